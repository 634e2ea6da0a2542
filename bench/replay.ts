// Replay benchmark: what showing Cursor's tool calls as Pi tool cards costs. One Cursor run with 50 completed tool
// calls (each becomes a `toolUse` message, a replay tool execution and a continuation of the same run) against the
// same run's text-only stream, through pi-cursor-sdk in a real `pi --mode rpc` (Pi 1.6.0 on Node 24, built bundle,
// real @cursor/sdk, loopback fake Cursor backend). Pi's own floor for the same shape comes from its faux provider
// with a no-op tool (bench/fixtures/faux-tools-extension.js). Printed, never asserted.
//
// Run (after building the bundle):
//   node build/toolchain.mjs --run bun build/bundle.ts
//   node build/toolchain.mjs --run bun bench/replay.ts
// Knobs: BENCH_RUNS (interleaved turns per variant, default 7), BENCH_TOOL_CALLS (default 50).
//
// A turn is timed from the `prompt` command written to a ready Pi to `agent_settled`. The tool calls are reported by
// the fake as completed calls (UI updates, nothing executed), so the difference is our replay path plus Pi's own
// tool-turn work: per replayed call = (tools turn − text-only turn) / calls.
import { join } from "node:path";
import type { Step } from "../test/support/fake-backend/client.ts";
import { TempHome } from "../test/support/pi.ts";
import { cursorEnv, startTurnBackend } from "../test/support/pi-turn.ts";
import { type RpcPi, startRpcPi } from "../test/support/rpc.ts";
import { REPO_ROOT } from "../test/support/toolchain.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const CALLS = Number(process.env.BENCH_TOOL_CALLS ?? 50);
const TOOLS_MARKER = "[[bench:tools]]";
const TEXT_MARKER = "[[bench:text]]";

function steps(withTools: boolean): Step[] {
	const out: Step[] = [{ text: "Working. " }];
	for (let i = 0; i < CALLS; i++) {
		if (withTools) {
			const read = { path: `file-${i}.ts`, result: { content: `contents ${i}\n` } };
			out.push({ toolCallStarted: { callId: `c${i}`, read } }, { toolCallCompleted: { callId: `c${i}`, read } });
		}
		out.push({ text: `step ${i}. ` });
	}
	out.push({ text: "Done." }, { turnEnded: { inputTokens: 1000, outputTokens: CALLS } });
	return out;
}

async function timedTurn(pi: RpcPi, prompt: string): Promise<{ ms: number; toolRuns: number }> {
	const from = pi.mark();
	let toolRuns = 0;
	const settled = pi.waitFor(
		(r) => {
			if (r.type === "tool_execution_end") toolRuns++;
			return r.type === "agent_settled";
		},
		{ from, timeoutMs: 120_000 },
	);
	const startAt = performance.now();
	pi.write({ type: "prompt", message: prompt });
	await settled;
	return { ms: performance.now() - startAt, toolRuns };
}

const median = (values: number[]) => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** Interleaved tools/text turns on one ready Pi: medians of each. */
async function measure(pi: RpcPi): Promise<{ toolsMs: number; textMs: number }> {
	await pi.ready(60_000);
	await timedTurn(pi, `${TEXT_MARKER} warm-up`);
	const tools: number[] = [];
	const text: number[] = [];
	for (let run = 0; run < RUNS; run++) {
		// Alternate the order so neither variant always runs on a warmer process.
		const order = run % 2 === 0 ? ["tools", "text"] : ["text", "tools"];
		for (const variant of order) {
			const turn = await timedTurn(pi, `${variant === "tools" ? TOOLS_MARKER : TEXT_MARKER} run ${run}`);
			if (variant === "tools") {
				if (turn.toolRuns !== CALLS) throw new Error(`expected ${CALLS} tool executions, saw ${turn.toolRuns}`);
				tools.push(turn.ms);
			} else text.push(turn.ms);
		}
	}
	return { toolsMs: median(tools), textMs: median(text) };
}

async function main(): Promise<void> {
	const backend = await startTurnBackend({
		scenarioMap: { [TOOLS_MARKER]: { steps: steps(true) }, [TEXT_MARKER]: { steps: steps(false) } },
	});
	const homes = { ours: new TempHome(), faux: new TempHome() };
	const lifetimeMs = 30 * 60_000;
	const ours = startRpcPi(["--model", "cursor/composer-2.5", "--no-session"], {
		home: homes.ours,
		env: cursorEnv(backend),
		lifetimeMs,
	});
	const faux = startRpcPi(
		["-e", join(REPO_ROOT, "bench", "fixtures", "faux-tools-extension.js"), "--model", "faux/faux-1", "--no-session"],
		{ home: homes.faux, env: { BENCH_TOOL_CALLS: String(CALLS) }, lifetimeMs },
	);
	try {
		const cursor = await measure(ours);
		const floor = await measure(faux);
		const perCall = (cursor.toolsMs - cursor.textMs) / CALLS;
		const floorPerCall = (floor.toolsMs - floor.textMs) / CALLS;
		console.log(`replay: one run with ${CALLS} Cursor tool calls vs the same run text-only (medians of ${RUNS})`);
		console.log(
			`  with tool cards   : ${cursor.toolsMs.toFixed(0)} ms (${CALLS} toolUse messages, replays, continuations)`,
		);
		console.log(`  text only         : ${cursor.textMs.toFixed(0)} ms`);
		console.log(`  per replayed call : ${perCall.toFixed(2)} ms (target ≤ 5 ms)`);
		console.log(`  Pi's floor (faux provider, no-op tool): ${floorPerCall.toFixed(2)} ms per tool turn`);
		console.log(`  ours beyond Pi's floor: ${(perCall - floorPerCall).toFixed(2)} ms per call`);
	} finally {
		await Promise.all([ours.close(), faux.close()]);
		await backend.stop();
		homes.ours.remove();
		homes.faux.remove();
	}
}

await main();
