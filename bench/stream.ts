// Turn benchmark: time to first text as a user waits for it, and the cost of streamed text deltas, through
// pi-cursor-sdk in a real `pi --mode rpc` (Pi 1.6.0 on Node 24, built bundle, real @cursor/sdk, loopback fake Cursor
// backend), versus a bare @cursor/sdk script (bench/fixtures/bare-sdk-stream.mjs, Node 24) driven the same way on the
// same fake streams. Printed, never asserted.
//
// Variants: the bare SDK (its first turn is a cold `Agent.create` + `send`); ours with the first-send prewarm off
// (PI_CURSOR_PREWARM=0) and on (the default); Pi alone with its faux provider (no SDK, no network: Pi's own cost of a
// turn). Pi runs without PI_OFFLINE, as users run it (the prewarm honours Pi's offline mode).
//
// Run (after building the bundle):
//   node build/toolchain.mjs --run bun build/bundle.ts
//   node build/toolchain.mjs --run bun bench/stream.ts
// Knobs: BENCH_RUNS (interleaved processes per variant, default 5), BENCH_FOLLOWUPS (timed follow-up turns per
// process of each kind, default 4), BENCH_TURN_DELTAS (text deltas of the first turn and each follow-up, default 20),
// BENCH_PACE_MS (the gap between the text deltas of a paced follow-up, default 5),
// BENCH_DELTAS (text deltas of the final burst turn, default 10000), BENCH_SETTLE_MS (how long after a process is
// ready the first prompt is sent, default 2000), BENCH_TIMEOUT_MS (bound of one turn, default 30000).
//
// Each process is started and made ready first (Pi: a `get_state` round trip; the bare script: its `ready` line once
// the SDK is imported), then left alone for BENCH_SETTLE_MS, as a user takes a moment to type; nothing before the
// first prompt is timed. It then runs the first turn, the follow-ups, the paced follow-ups, and one burst turn (the
// fake sends BENCH_DELTAS text frames as fast as it can). A follow-up's deltas leave the fake at once, as the first
// turn's do; a paced follow-up's leave BENCH_PACE_MS apart, as a model streams them. On this process's clock:
// - first token: the turn's input line is written to the child's stdin (Pi: the `prompt` command; the bare script:
//   its prompt line, on which it runs `Agent.create` + `send` for the first turn, `send` for later ones) → the line
//   carrying the turn's first text delta is read from the child's stdout (Pi: a `message_update` text_delta).
// - per delta: first → last text delta of the burst turn, divided by the deltas in between.
// The next turn starts once the previous one is over (Pi: `agent_settled`; the bare script: `done`).
// Pi and the bare script run with bench/fixtures/spawn-probe.mjs, which reports how long each child-process spawn
// holds the event loop: the SDK starts `git` on every send.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { join } from "node:path";
import type { FakeBackend, Step } from "../test/support/fake-backend/client.ts";
import { TempHome } from "../test/support/pi.ts";
import { cursorEnv, startTurnBackend } from "../test/support/pi-turn.ts";
import { type RpcPi, type RpcRecord, startRpcPi } from "../test/support/rpc.ts";
import { ensureTool, REPO_ROOT } from "../test/support/toolchain.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const FOLLOWUPS = Number(process.env.BENCH_FOLLOWUPS ?? 4);
const TURN_DELTAS = Number(process.env.BENCH_TURN_DELTAS ?? 20);
const DELTAS = Number(process.env.BENCH_DELTAS ?? 10000);
const TURN_TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 30_000);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 2000);
const PACE_MS = Number(process.env.BENCH_PACE_MS ?? 5);
const TURN_MARKER = "[[bench:turn]]";
const PACED_MARKER = "[[bench:paced]]";
/** Also named by bench/fixtures/faux-stream-extension.js. */
const BURST_MARKER = "[[bench:burst]]";

/** One timed turn, on this process's clock (performance.now). */
interface Turn {
	ttftMs: number;
	deltas: number;
	firstAt: number;
	lastAt: number;
}

/** A started, ready child that runs turns one at a time. */
interface Runner {
	turn(prompt: string, deltas: number): Promise<Turn>;
	/** Closes the child; resolves with how long each of its child-process spawns held its event loop (ms). */
	close(): Promise<number[]>;
}

const SPAWN_PROBE = join(REPO_ROOT, "bench", "fixtures", "spawn-probe.mjs");
const PROBED = { NODE_OPTIONS: `--import=${SPAWN_PROBE}` };

function spawnTimes(stderr: string): number[] {
	return [...stderr.matchAll(/^\[\[bench:spawn\]\] ([\d.]+)/gm)].map((m) => Number(m[1]));
}

function textSteps(count: number, paceMs = 0): Step[] {
	const steps: Step[] = [{ stepStarted: 1 }];
	for (let i = 0; i < count; i++) {
		if (i > 0 && paceMs > 0) steps.push({ delay: paceMs });
		steps.push({ text: i === 0 ? "first " : "tok " });
	}
	steps.push({ stepCompleted: 1 }, { turnEnded: { inputTokens: 1000, outputTokens: count } });
	return steps;
}

const isTextDelta = (r: RpcRecord) =>
	r.type === "message_update" && (r.assistantMessageEvent as { type?: string } | undefined)?.type === "text_delta";

/** Pi in RPC mode: ready after `get_state`; a turn is `prompt` → `agent_settled`. */
async function piRunner(pi: RpcPi): Promise<Runner> {
	await pi.ready(60_000);
	return {
		async turn(prompt) {
			const from = pi.mark();
			let deltas = 0;
			let firstAt = Number.NaN;
			let lastAt = Number.NaN;
			// The predicate runs as each stdout record is parsed, so the times are arrival times.
			const settled = pi.waitFor(
				(r) => {
					if (isTextDelta(r)) {
						lastAt = performance.now();
						if (deltas++ === 0) firstAt = lastAt;
					}
					return r.type === "agent_settled";
				},
				{ from, timeoutMs: TURN_TIMEOUT_MS },
			);
			const startAt = performance.now();
			pi.write({ type: "prompt", message: prompt });
			await settled;
			if (deltas === 0) throw new Error(`turn without text\n${pi.describe()}`);
			return { ttftMs: firstAt - startAt, deltas, firstAt, lastAt };
		},
		async close() {
			await pi.close();
			return spawnTimes(pi.stderr);
		},
	};
}

/** The bare SDK script: ready after its `ready` line; a turn is a prompt line → `done`. */
async function bareRunner(home: TempHome, backend: FakeBackend): Promise<Runner> {
	const script = join(REPO_ROOT, "bench", "fixtures", "bare-sdk-stream.mjs");
	const child: ChildProcessWithoutNullStreams = spawn(ensureTool("node24"), [script], {
		cwd: home.dir,
		// Pi enables Node's compile cache for itself (and so for the SDK's lazily loaded chunks): the same here.
		env: home.env(cursorEnv(backend, { NODE_COMPILE_CACHE: join(home.tmp, "node-compile-cache"), ...PROBED })),
		stdio: ["pipe", "pipe", "pipe"],
	});
	let stderr = "";
	let partial = "";
	const spawns: number[] = [];
	child.stderr.on("data", (chunk: Buffer) => {
		const text = chunk.toString();
		stderr = (stderr + text).slice(-4000);
		const lines = (partial + text).split("\n");
		partial = lines.pop() ?? "";
		spawns.push(...spawnTimes(lines.join("\n")));
	});
	let onEvent: (event: { event: string; deltas?: number; status?: string; error?: string }, at: number) => void =
		() => {};
	let buffer = "";
	child.stdout.on("data", (chunk: Buffer) => {
		const at = performance.now();
		buffer += chunk.toString();
		for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
			const line = buffer.slice(0, newline);
			buffer = buffer.slice(newline + 1);
			if (line.startsWith('{"event"')) onEvent(JSON.parse(line), at); // the SDK's own log lines share stdout
		}
	});
	const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
	const next = (what: string, handle: (event: { event: string }, at: number) => boolean) =>
		new Promise<void>((resolve, reject) => {
			const timer = setTimeout(() => {
				child.kill("SIGKILL");
				reject(new Error(`bare SDK script: no ${what} within ${TURN_TIMEOUT_MS} ms\n${stderr}`));
			}, TURN_TIMEOUT_MS);
			onEvent = (event, at) => {
				if (!handle(event, at)) return;
				clearTimeout(timer);
				resolve();
			};
		});
	await next("ready", (event) => event.event === "ready");
	return {
		async turn(prompt, expected) {
			let deltas = 0;
			let firstAt = Number.NaN;
			let lastAt = Number.NaN;
			let failure: string | undefined;
			const done = next("done", (event, at) => {
				const e = event as { event: string; deltas?: number; status?: string; error?: string };
				if (e.event === "first") firstAt = at;
				if (e.event === "last") lastAt = at;
				if (e.event !== "done") return false;
				deltas = e.deltas ?? 0;
				if (e.status !== "finished") failure = `${e.status}: ${e.error ?? ""}`;
				return true;
			});
			const startAt = performance.now();
			child.stdin.write(`${JSON.stringify({ prompt, deltas: expected })}\n`);
			await done;
			if (failure || deltas === 0) throw new Error(`bare SDK turn failed (${failure ?? "no text"})\n${stderr}`);
			return { ttftMs: firstAt - startAt, deltas, firstAt, lastAt: deltas === expected ? lastAt : Number.NaN };
		},
		async close() {
			child.stdin.end();
			const kill = setTimeout(() => child.kill("SIGKILL"), 15_000);
			await exited;
			clearTimeout(kill);
			return spawns;
		},
	};
}

const median = (xs: number[]) => {
	const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
	return s.length === 0 ? Number.NaN : (s[Math.floor(s.length / 2)] ?? Number.NaN);
};

interface Samples {
	first: Turn[];
	followUps: Turn[];
	paced: Turn[];
	burst: Turn[];
	/** How long each child-process spawn held the event loop (ms). */
	spawns: number[];
}

const noSamples = (): Samples => ({ first: [], followUps: [], paced: [], burst: [], spawns: [] });

/**
 * One process: start, ready, settle, the first turn, the follow-ups, the paced follow-ups, the burst; closed whatever
 * happens.
 */
async function session(start: () => Promise<Runner>, followUps: number, into = noSamples()): Promise<void> {
	const runner = await start();
	try {
		await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
		into.first.push(await runner.turn(`${TURN_MARKER} go`, TURN_DELTAS));
		for (let i = 1; i <= followUps; i++) {
			into.followUps.push(await runner.turn(`${TURN_MARKER} again ${i}`, TURN_DELTAS));
		}
		for (let i = 1; i <= followUps; i++) {
			into.paced.push(await runner.turn(`${PACED_MARKER} again ${i}`, TURN_DELTAS));
		}
		into.burst.push(await runner.turn(`${BURST_MARKER} go`, DELTAS));
	} finally {
		into.spawns.push(...(await runner.close()));
	}
}

export const TURNS = {
	bare: "bare SDK",
	cold: "ours, cold",
	prewarmed: "ours, prewarmed",
	faux: "Pi + faux",
} as const;

/** Medians in ms per variant name. */
export interface TurnFigures {
	runs: number;
	followUps: number;
	turnDeltas: number;
	deltas: number;
	settleMs: number;
	paceMs: number;
	seconds: number;
	first: Record<string, number>;
	followUp: Record<string, number>;
	paced: Record<string, number>;
	/** How long the median child-process spawn held the event loop (the SDK's `git` on every send). */
	spawn: Record<string, number>;
	burstFirst: Record<string, number>;
	burst: Record<string, number>;
	perDelta: Record<string, number>;
	/** min–max of the first turn and of the follow-ups per variant, for the record. */
	ranges: Record<string, string>;
}

export async function runTurnBench(): Promise<TurnFigures> {
	const backend = await startTurnBackend({
		scenarioMap: {
			[TURN_MARKER]: { name: "turn", steps: textSteps(TURN_DELTAS) },
			[PACED_MARKER]: { name: "paced", steps: textSteps(TURN_DELTAS, PACE_MS) },
			[BURST_MARKER]: { name: "burst", steps: textSteps(DELTAS) },
		},
	});
	// One HOME per variant: Pi sessions and SDK stores of one never slow down another.
	const homes = { bare: new TempHome(), cold: new TempHome(), prewarmed: new TempHome(), faux: new TempHome() };
	const lifetimeMs = SETTLE_MS + TURN_TIMEOUT_MS * (2 * FOLLOWUPS + 3);
	const faux = join(REPO_ROOT, "bench", "fixtures", "faux-stream-extension.js");
	const ours = (home: TempHome, extra: Record<string, string>) => () =>
		piRunner(
			startRpcPi(["--model", "cursor/composer-2.5"], {
				home,
				env: cursorEnv(backend, { PI_OFFLINE: "", ...PROBED, ...extra }),
				lifetimeMs,
			}),
		);
	const variants: Record<string, () => Promise<Runner>> = {
		[TURNS.bare]: () => bareRunner(homes.bare, backend),
		[TURNS.cold]: ours(homes.cold, { PI_CURSOR_PREWARM: "0" }),
		[TURNS.prewarmed]: ours(homes.prewarmed, {}),
		[TURNS.faux]: () =>
			piRunner(
				startRpcPi(["--model", "faux/faux-1"], {
					home: homes.faux,
					extensions: [faux],
					env: {
						PI_OFFLINE: "",
						BENCH_DELTAS: String(DELTAS),
						BENCH_TURN_DELTAS: String(TURN_DELTAS),
						...PROBED,
					},
					lifetimeMs,
				}),
			),
	};
	const names = Object.keys(variants);
	const samples: Record<string, Samples> = Object.fromEntries(names.map((n) => [n, noSamples()]));
	const started = performance.now();
	try {
		// Warm-up (not recorded): compile caches, the SDK's lazily loaded chunks on disk, store directories.
		for (const start of Object.values(variants)) await session(start, 1);
		for (let i = 0; i < RUNS; i++) {
			// Rotate the order so no variant always runs right after the same neighbour.
			for (let k = 0; k < names.length; k++) {
				const name = names[(i + k) % names.length] ?? "";
				await session(variants[name] as () => Promise<Runner>, FOLLOWUPS, samples[name]);
			}
		}
	} finally {
		await backend.stop();
		for (const home of Object.values(homes)) home.remove();
	}

	const per = (f: (s: Samples) => number[]) =>
		Object.fromEntries(names.map((name) => [name, median(f(samples[name] ?? noSamples()))]));
	const span = (xs: number[]) => {
		const sorted = [...xs].sort((a, b) => a - b);
		return `${sorted[0]?.toFixed(0)}–${sorted.at(-1)?.toFixed(0)}`;
	};
	return {
		runs: RUNS,
		followUps: FOLLOWUPS,
		turnDeltas: TURN_DELTAS,
		deltas: DELTAS,
		settleMs: SETTLE_MS,
		paceMs: PACE_MS,
		seconds: (performance.now() - started) / 1000,
		first: per((s) => s.first.map((t) => t.ttftMs)),
		followUp: per((s) => s.followUps.map((t) => t.ttftMs)),
		paced: per((s) => s.paced.map((t) => t.ttftMs)),
		spawn: per((s) => s.spawns),
		burstFirst: per((s) => s.burst.map((t) => t.ttftMs)),
		burst: per((s) => s.burst.map((t) => t.lastAt - t.firstAt)),
		perDelta: per((s) => s.burst.map((t) => (t.lastAt - t.firstAt) / (t.deltas - 1))),
		ranges: Object.fromEntries(
			names.map((name) => {
				const s = samples[name] ?? noSamples();
				const spans = [s.first, s.followUps, s.paced].map((turns) => span(turns.map((t) => t.ttftMs)));
				return [name, spans.join(" / ")];
			}),
		),
	};
}

/** The acceptance ratios: first turn (prewarmed and cold) and follow-up (deltas at once, paced), ours ÷ the bare SDK. */
export function turnRatios(f: TurnFigures): { prewarmed: number; cold: number; followUp: number; paced: number } {
	const bare = f.first[TURNS.bare] ?? Number.NaN;
	const ratio = (figure: Record<string, number>) =>
		(figure[TURNS.prewarmed] ?? Number.NaN) / (figure[TURNS.bare] ?? Number.NaN);
	return {
		prewarmed: (f.first[TURNS.prewarmed] ?? Number.NaN) / bare,
		cold: (f.first[TURNS.cold] ?? Number.NaN) / bare,
		followUp: ratio(f.followUp),
		paced: ratio(f.paced),
	};
}

export function printTurns(f: TurnFigures): void {
	const names = Object.keys(f.first);
	const cell = (text: string) => text.padStart(17);
	const fmt =
		(digits: number, unit = " ms") =>
		(x: number | undefined) =>
			x !== undefined && Number.isFinite(x) ? `${x.toFixed(digits)}${unit}` : "—";
	console.log(
		`Turns: pi --mode rpc (Pi 1.6.0, Node 24) vs the bare SDK, medians of ${f.runs} interleaved processes per ` +
			`variant (${f.runs} first turns sent ${f.settleMs} ms after the process is ready, ${f.runs * f.followUps} ` +
			`follow-ups of ${f.turnDeltas} deltas at once and as many a delta every ${f.paceMs} ms, ${f.runs} bursts ` +
			`of ${f.deltas}; ${f.seconds.toFixed(0)} s):`,
	);
	console.log(`  ${"".padEnd(24)}${names.map(cell).join("")}`);
	const rows: [string, Record<string, number>, (x: number | undefined) => string][] = [
		["first token, 1st turn", f.first, fmt(0)],
		["first token, follow-up", f.followUp, fmt(1)],
		["… paced follow-up", f.paced, fmt(1)],
		["a spawn holds the loop", f.spawn, fmt(1)],
		["first token, burst", f.burstFirst, fmt(0)],
		[`${f.deltas} deltas, burst`, f.burst, fmt(0)],
		["per delta", f.perDelta, fmt(3)],
	];
	for (const [label, values, format] of rows) {
		console.log(`  ${label.padEnd(24)}${names.map((name) => cell(format(values[name]))).join("")}`);
	}
	console.log(`  ranges (ms), first turn / follow-up / paced: ${names.map((n) => `${n} ${f.ranges[n]}`).join("; ")}`);
	const r = turnRatios(f);
	console.log(
		`  first turn ÷ the bare SDK's cold create + send: prewarmed ${r.prewarmed.toFixed(2)}× (target ≤ 0.60×), ` +
			`cold ${r.cold.toFixed(2)}×`,
	);
	console.log(
		`  follow-up ÷ the bare SDK: ${r.followUp.toFixed(2)}× with the deltas at once (target ≤ 1.50×), ` +
			`${r.paced.toFixed(2)}× paced`,
	);
	const gap = followUpGap(f);
	const ms = (x: number) => `${x.toFixed(1)} ms`;
	console.log(
		`  what the follow-up adds, at once / paced: ${ms(gap.total)} / ${ms(gap.pacedTotal)}, of which Pi's own turn ` +
			`(faux) ${ms(gap.pi)}; the SDK's git spawn on every send holding our bigger process longer ${ms(gap.spawn)}; ` +
			`the rest ${ms(gap.rest)} / ${ms(gap.pacedRest)}`,
	);
}

/**
 * Where a follow-up's extra time over the bare SDK goes (ms, medians): Pi's own turn (its faux provider), the longer
 * hold of the SDK's per-send `git` spawn in Pi's process, and the rest (our code, and with the deltas at once, Pi's
 * event chain waiting behind the SDK decoding the rest of the burst).
 */
export function followUpGap(f: TurnFigures) {
	const of = (figure: Record<string, number>, name: string) => figure[name] ?? Number.NaN;
	const total = of(f.followUp, TURNS.prewarmed) - of(f.followUp, TURNS.bare);
	const pacedTotal = of(f.paced, TURNS.prewarmed) - of(f.paced, TURNS.bare);
	const pi = of(f.followUp, TURNS.faux);
	const spawn = of(f.spawn, TURNS.prewarmed) - of(f.spawn, TURNS.bare);
	return { total, pacedTotal, pi, spawn, rest: total - pi - spawn, pacedRest: pacedTotal - pi - spawn };
}

if (import.meta.main) printTurns(await runTurnBench());
