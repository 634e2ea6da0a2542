// A second Pi on the same session (the real `pi`, the real SDK, the fake backend). Pi A answers once (the session
// records its Cursor agent), Pi B opens the same session (`-c`), then A starts a turn Cursor keeps open and B prompts.
// While A lives, B says once and plainly that the agent is busy in another Pi process (no raw SDK text, no automatic
// retry, nothing sent); after A crashed (SIGKILL) with its run still marked active, B expires that run and goes on
// with the same Cursor agent. And a Pi started after a crash (`pi -c`, the crashed turn's prompt last on the branch)
// goes on with the same agent too, sending the interrupted prompt once with the new one.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { Glob } from "bun";
import { AGENT_BUSY_ELSEWHERE } from "../../src/sdk/errors.ts";
import { INTERRUPTED_TURN_RECOVERED } from "../../src/session/stale-run.ts";
import type { TempHome } from "../support/pi.ts";
import { TURN_TEST_MS, turnSuite } from "../support/pi-turn.ts";
import { notifications, type RpcPi, type RpcRecord, startRpcPi } from "../support/rpc.ts";

const suite = turnSuite({
	defaultScenario: { steps: [{ echo: "reply to: " }, { turnEnded: { inputTokens: 10, outputTokens: 5 } }] },
});

/** Pi's automatic retry, on and quick: a retried error would show within the test. */
const RETRYING = { retry: { enabled: true, maxRetries: 3, baseDelayMs: 50 } };
const MODEL = ["--model", "cursor/composer-2.5"];

type Assistant = { stopReason: string; errorMessage?: string; content?: { type: string; text?: string }[] };
const assistantsOf = (records: RpcRecord[]) =>
	records
		.filter((r) => r.type === "message_end" && (r.message as { role?: string }).role === "assistant")
		.map((r) => r.message as Assistant);

/** Pi A answers once on a persisted session (which records its Cursor agent), then Pi B opens it (`-c`). */
async function twoPis(home: TempHome, name: string): Promise<{ a: RpcPi; b: RpcPi }> {
	await suite.backend.setScenarioMap({ [`[[${name}:long]]`]: [{ text: "working on it" }, { hang: true }] });
	const a = startRpcPi(MODEL, { home, env: suite.env() });
	await a.ready();
	const from = a.mark();
	expect((await a.send({ type: "prompt", message: `[[${name}:first]] hello` })).response.success).toBe(true);
	await a.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 60_000 });
	const b = startRpcPi([...MODEL, "-c"], { home, env: suite.env() });
	await b.ready();
	return { a, b };
}

/** A starts a turn Cursor keeps open: its run stays active on the session's agent. */
async function startLongTurn(a: RpcPi, name: string): Promise<void> {
	const from = a.mark();
	expect((await a.send({ type: "prompt", message: `[[${name}:long]] work` })).response.success).toBe(true);
	await a.waitFor((r) => r.type === "message_update", { from, timeoutMs: 60_000 });
}

/** One prompt in B, until Pi has no more automatic work. */
async function prompt(b: RpcPi, message: string): Promise<RpcRecord[]> {
	const from = b.mark();
	expect((await b.send({ type: "prompt", message })).response.success).toBe(true);
	await b.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 60_000 });
	return b.records.slice(from);
}

/** An ordinary answer: the prompt echoed, then the turn's end. */
const ANSWER = [{ echo: "reply to: " }, { turnEnded: { inputTokens: 10, outputTokens: 5 } }];

/** A conversation checkpoint of `turns` turns, as Cursor streams it during a run (the SDK stores it as the agent's). */
const checkpoint = (turns: number) => ({
	raw: {
		conversation_checkpoint_update: {
			turns: Array.from({ length: turns }, (_, i) => Buffer.alloc(32, i + 1).toString("base64")),
		},
	},
});

/**
 * The Pi the crash-reopen test leaves running (in its own process group) for the partial-crash test when it passed,
 * else undefined; settled when that test ends (the tests run concurrently).
 */
/** Whether the crash-reopen test runs (not filtered out): only then is its Pi waited for. */
let reopenRuns = false;
let reopenedDone: (value: { pi: RpcPi; home: TempHome } | undefined) => void = () => {};
const reopened = new Promise<{ pi: RpcPi; home: TempHome } | undefined>((resolve) => {
	reopenedDone = resolve;
});

const runsOf = async (name: string) =>
	(await suite.backend.runs()).filter((run) => run.userText?.includes(`[[${name}`));

suite.test(
	"while the other Pi's turn runs, the second Pi says once that the agent is busy there; nothing is retried or sent",
	async () => {
		const { a, b } = await twoPis(suite.home(RETRYING), "busy");
		try {
			await startLongTurn(a, "busy");
			const records = await prompt(b, "[[busy:second]] and now this");
			const assistants = assistantsOf(records);
			expect(assistants.map((m) => [m.stopReason, m.errorMessage])).toEqual([["error", AGENT_BUSY_ELSEWHERE]]);
			const text = JSON.stringify(records);
			expect(text).not.toContain("already has active run");
			expect(text).not.toMatch(/agent-[0-9a-f-]{8,}/);
			expect(records.filter((r) => r.type === "auto_retry_start")).toEqual([]);
			// Nothing of B's reached Cursor; A's run goes on.
			const runs = await runsOf("busy");
			expect(runs.map((run) => run.userText?.includes("[[busy:second]]"))).toEqual([false, false]);
			expect(runs[1]?.clientClosed).toBe(false);
			// Sent again, the message goes on here with a new Cursor agent that gets the whole conversation.
			const again = assistantsOf(await prompt(b, "[[busy:again]] and now this"));
			expect(again.map((m) => m.stopReason)).toEqual(["stop"]);
			const fresh = (await runsOf("busy")).find((run) => run.userText?.includes("[[busy:again]]"));
			expect(fresh?.conversationId).not.toBe(runs[0]?.conversationId);
			expect(fresh?.userText).toContain("<conversation_history>");
			expect(fresh?.userText).toContain("[[busy:first]] hello");
		} finally {
			await Promise.all([a.kill(), b.kill()]);
		}
	},
);

suite.test("after the other Pi crashed mid-turn, this Pi goes on with the same Cursor agent", async () => {
	const { a, b } = await twoPis(suite.home(), "crash");
	try {
		await startLongTurn(a, "crash");
		const [first] = await runsOf("crash");
		await a.kill(); // SIGKILL: its run stays marked active in the session's store, its holder file stays behind
		const records = await prompt(b, "[[crash:after]] where were we");
		const assistants = assistantsOf(records);
		expect(assistants.map((m) => m.stopReason)).toEqual(["stop"]);
		expect(JSON.stringify(assistants)).toContain("reply to:");
		expect(notifications(records).map((n) => n.message)).toContainEqual(
			expect.stringContaining("left this session's Cursor agent marked busy"),
		);
		// The same Cursor conversation, continued incrementally: no history sent again, no new agent.
		const after = (await runsOf("crash")).find((run) => run.userText?.includes("[[crash:after]]"));
		expect(after?.conversationId).toBe(first?.conversationId);
		expect(after?.userText).not.toContain("<conversation_history>");
	} finally {
		await Promise.all([a.kill(), b.kill()]);
	}
});

// A concurrent test like suite.test's, that marks at its start (before it waits for a Pi slot) that it runs.
test.concurrent(
	"a Pi reopened after a crash mid-turn goes on with the same Cursor agent; the interrupted prompt is sent once",
	() => {
		reopenRuns = true;
		return suite.limit(reopenAfterCrash);
	},
	TURN_TEST_MS,
);

async function reopenAfterCrash(): Promise<void> {
	const home = suite.home();
	await suite.backend.setScenarioMap({
		"[[reopen:long]]": [{ text: "working on it" }, { hang: true }],
		// Longer, so it wins when the interrupted prompt comes again with the new one: an ordinary answer.
		"[[reopen:after-crash]]": [{ echo: "reply to: " }, { turnEnded: { inputTokens: 10, outputTokens: 5 } }],
	});
	const a = startRpcPi(MODEL, { home, env: suite.env(), processGroup: true });
	let c: RpcPi | undefined;
	let passed = false;
	try {
		await a.ready();
		const from = a.mark();
		expect((await a.send({ type: "prompt", message: "[[reopen:first]] hello" })).response.success).toBe(true);
		await a.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 60_000 });
		await startLongTurn(a, "reopen");
		await a.killGroup(); // a crash: Pi had saved the prompt; the run stays marked active in the session's store
		const [first, crashed] = await runsOf("reopen");
		expect(crashed?.userText).toContain("[[reopen:long]] work");

		// In its own process group: the next test may crash it in turn.
		c = startRpcPi([...MODEL, "-c"], { home, env: suite.env(), processGroup: true });
		await c.ready();
		const records = await prompt(c, "[[reopen:after-crash]] where were we");
		const assistants = assistantsOf(records);
		expect(assistants.map((m) => m.stopReason)).toEqual(["stop"]);
		expect(JSON.stringify(assistants)).toContain("reply to:");
		// Told once; the run the crash left active was expired (without it, the send would fail "already has active run").
		expect(notifications(records).map((n) => n.message)).toEqual([INTERRUPTED_TURN_RECOVERED]);
		// The same Cursor conversation, continued incrementally: no history again, no new agent. The crashed run never
		// reached Cursor's conversation (no checkpoint), so its prompt goes once, before the new one.
		const after = (await runsOf("reopen")).slice(2);
		expect(after).toHaveLength(1);
		expect(after[0]?.conversationId).toBe(first?.conversationId);
		const text = after[0]?.userText ?? "";
		expect(text).not.toContain("<pi_instructions>"); // not a bootstrap: the first turn is not sent again
		expect(text).not.toContain("[[reopen:first]]");
		expect(text.split("[[reopen:long]] work")).toHaveLength(2);
		expect(text.indexOf("[[reopen:long]] work")).toBeLessThan(text.indexOf("[[reopen:after-crash]]"));
		passed = true;
	} finally {
		await a.kill();
		if (passed && c) reopenedDone({ pi: c, home });
		else {
			await c?.kill();
			reopenedDone(undefined);
		}
	}
}

/** Resolves once the SDK's store (in `home`) records a conversation checkpoint for a run still marked running. */
async function checkpointStoredMidRun(home: TempHome): Promise<void> {
	const deadline = Date.now() + 30_000;
	for (;;) {
		for (const path of new Glob("**/pi-sessions/*/index.db").scanSync({ cwd: home.dir, dot: true, absolute: true })) {
			const db = new Database(path, { readonly: true });
			try {
				const moved = db
					.query(
						"SELECT count(*) AS n FROM runs WHERE status = 'RUNNING' AND latest_checkpoint_ref_json IS NOT start_checkpoint_ref_json",
					)
					.get() as { n: number } | null;
				if ((moved?.n ?? 0) > 0) return;
			} catch {
				// not created yet
			} finally {
				db.close();
			}
		}
		if (Date.now() > deadline) throw new Error("the SDK stored no checkpoint for the running turn");
		await Bun.sleep(50);
	}
}

/**
 * A Pi in its own process group on a Cursor model that answered a turn, for a test that crashes it in a new session:
 * the Pi the previous test reopened when it passed (a Pi start and its first turn saved), else a new one.
 */
async function crashablePi(): Promise<{ a: RpcPi; home: TempHome }> {
	const previous = reopenRuns ? await reopened : undefined;
	if (previous && !previous.pi.gone) {
		const { response } = await previous.pi.send({ type: "new_session" });
		expect(response.success).toBe(true);
		return { a: previous.pi, home: previous.home };
	}
	const home = suite.home();
	const a = startRpcPi(MODEL, { home, env: suite.env(), processGroup: true });
	await a.ready();
	return { a, home };
}

suite.test(
	"a Pi reopened after a crash in a turn Cursor had recorded part of: a new agent gets the whole conversation, once",
	async () => {
		const { a, home } = await crashablePi();
		await suite.backend.setScenarioMap({
			"[[partial:first]]": [checkpoint(1), ...ANSWER],
			// Cursor records the interrupted turn in the conversation (a second turn in its checkpoint) before Pi crashes.
			"[[partial:long]]": [checkpoint(2), { text: "working on it" }, { hang: true }],
			"[[partial:after-crash]]": ANSWER,
		});
		let c: RpcPi | undefined;
		try {
			const from = a.mark();
			expect((await a.send({ type: "prompt", message: "[[partial:first]] hello" })).response.success).toBe(true);
			await a.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 60_000 });
			await startLongTurn(a, "partial");
			await checkpointStoredMidRun(home);
			await a.killGroup();
			const [first] = await runsOf("partial");

			c = startRpcPi([...MODEL, "-c"], { home, env: suite.env() });
			await c.ready();
			const records = await prompt(c, "[[partial:after-crash]] where were we");
			expect(assistantsOf(records).map((m) => m.stopReason)).toEqual(["stop"]);
			expect(notifications(records)).toEqual([]);
			// Cursor's conversation may hold the interrupted prompt (and some of its work): that agent is left alone, and a
			// new one gets the whole conversation, the interrupted prompt in it once.
			const after = (await runsOf("partial")).slice(2);
			expect(after).toHaveLength(1);
			expect(after[0]?.conversationId).not.toBe(first?.conversationId);
			expect(after[0]?.conversationTurns).toBe(0);
			const text = after[0]?.userText ?? "";
			expect(text).toContain("<pi_instructions>");
			expect(text).toContain("[[partial:first]] hello");
			expect(text.split("[[partial:long]] work")).toHaveLength(2);
		} finally {
			await Promise.all([a.kill(), c?.kill()]);
		}
	},
);

suite.nothingLeftBehind();
