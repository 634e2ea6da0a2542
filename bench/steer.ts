// Steering benchmark: the bytes of the request a steer sends, before and after steering joined Cursor's running turn.
// A real `pi --mode rpc` (built bundle, real @cursor/sdk, loopback fake Cursor backend) holds a conversation of
// BENCH_STEER_TURNS earlier turns (each a prompt and an answer of about 1 KB), then Cursor works on a long run with a
// tool batch and the user steers. Printed, never asserted.
//
// - after: the steer goes into the running run (`Run.steer`): one `conversation_action.inject_context_action` append
//   carrying the message (the fake records its payload size); or, when Cursor reverts it, an incremental follow-up
//   on the same agent (the `run_request` of that send).
// - before: the steer superseded the run and went to a fresh Cursor agent with the whole conversation: a bootstrap
//   `run_request` of the same conversation plus the steer (measured by sending the steer to a fresh agent: a model
//   change starts one).
//
// Run (after building the bundle):
//   node build/toolchain.mjs --run bun build/bundle.ts
//   node build/toolchain.mjs --run bun bench/steer.ts
import type { Scenario } from "../test/support/fake-backend/client.ts";
import { TempHome } from "../test/support/pi.ts";
import { cursorEnv, startTurnBackend } from "../test/support/pi-turn.ts";
import { type RpcPi, startRpcPi } from "../test/support/rpc.ts";

const TURNS = Number(process.env.BENCH_STEER_TURNS ?? 20);
const STEER = "[[bench:steer-text]] also check the tests before you finish";
const ANSWER = "An answer of about a kilobyte, as Cursor gives when it explains a change. ".repeat(14);

const working = (steer: Scenario["steps"]): Scenario => ({
	steps: [
		{ text: "Working on it. " },
		{ delay: 800 },
		{ toolCallStarted: { callId: "c1", read: { path: "notes.md" } } },
		{ toolCallCompleted: { callId: "c1", read: { path: "notes.md", result: { content: "notes\n" } } } },
		...(steer ?? []),
		{ text: "Done." },
		{ turnEnded: { inputTokens: 1000, outputTokens: 20 } },
	],
});

async function prompt(pi: RpcPi, message: string, steer?: string): Promise<void> {
	const from = pi.mark();
	pi.write({ type: "prompt", message });
	if (steer) {
		await pi.waitFor((r) => r.type === "message_update", { from, timeoutMs: 60_000 });
		pi.write({ type: "steer", message: steer });
	}
	await pi.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 120_000 });
}

async function main(): Promise<void> {
	const backend = await startTurnBackend({
		scenarioMap: {
			"[[bench:history]]": [{ text: ANSWER }, { turnEnded: { inputTokens: 100, outputTokens: 250 } }],
			"[[bench:delivered]]": working([{ steer: { state: "delivered", echo: "Noted: " } }]),
			"[[bench:reverted]]": working([{ steer: { state: "queued_for_next_turn" } }]),
		},
		defaultScenario: { steps: [{ text: "ok" }, { turnEnded: { inputTokens: 10, outputTokens: 1 } }] },
	});
	const home = new TempHome();
	const pi = startRpcPi(["--model", "cursor/composer-2.5", "--no-session"], {
		home,
		env: cursorEnv(backend),
		lifetimeMs: 20 * 60_000,
	});
	try {
		await pi.ready(60_000);
		for (let i = 0; i < TURNS; i++) await prompt(pi, `[[bench:history]] question ${i}: ${"context ".repeat(60)}`);
		await prompt(pi, "[[bench:delivered]] do the work", STEER);
		await prompt(pi, "[[bench:reverted]] do more work", STEER);
		// Before: the same conversation and steer to a fresh agent (a model change starts one).
		pi.write({ type: "set_model", provider: "cursor", modelId: "composer-2" });
		await prompt(pi, STEER);
		const runs = await backend.runs();
		const delivered = runs.find((run) => run.userText?.includes("[[bench:delivered]]"))?.steers?.[0];
		const reverted = runs.find((run) => run.userText?.includes("[[bench:reverted]]"))?.steers?.[0];
		const followUp = runs.filter((run) => run.userText?.includes("[[bench:steer-text]]")).at(0);
		const bootstrap = runs.filter((run) => run.userText?.includes("[[bench:steer-text]]")).at(-1);
		const kb = (bytes: number | undefined) => (bytes === undefined ? "—" : `${(bytes / 1024).toFixed(1)} KiB`);
		console.log(`steer: the request a steer sends after ${TURNS} earlier turns (payload bytes the backend received)`);
		console.log(`  before, fresh agent bootstrap   : ${kb(bootstrap?.runRequestBytes)} (whole conversation again)`);
		console.log(`  after, into the running turn    : ${kb(delivered?.bytes)} (${delivered?.state ?? "no steer seen"})`);
		console.log(
			`  after, reverted → follow-up     : ${kb(followUp?.runRequestBytes)} on the same agent (steer append ${kb(reverted?.bytes)})`,
		);
		if (bootstrap?.runRequestBytes && delivered?.bytes) {
			console.log(`  ratio into the turn / bootstrap : ${(delivered.bytes / bootstrap.runRequestBytes).toFixed(4)}`);
		}
	} finally {
		await pi.close();
		await backend.stop();
		home.remove();
	}
}

await main();
