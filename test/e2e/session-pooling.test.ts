// Session-scoped SDK agent pooling end to end: the real `pi --mode rpc` with our bundle and the real @cursor/sdk,
// against the loopback fake Cursor backend, whose decoded run requests show each send's conversationId (the SDK
// agent id) and prompt text. The scenarios run in beforeAll, one after another on ONE Pi (a new Pi session each:
// a Pi start and its first Cursor turn cost seconds of CPU, a new session a fraction) against one backend; each
// scenario sees only its own requests and records, and each test awaits and checks its scenario. Only the restart
// scenario starts further Pi processes: a new process is its subject.
//
// Tree navigation: Pi's RPC has no tree command, so a tiny helper extension written to the temp HOME registers
// `/test-tree <entryId> [summarize]`, which calls the public `ctx.navigateTree` (what `/tree` does in the TUI).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TOOL_TAIL_GUARD } from "../../src/prompt/transcript.ts";
import { RESUME_ENTRY_TYPE, type ResumeHandle } from "../../src/session/resume.ts";
import {
	type FakeBackend,
	loadCapturedCatalog,
	type RunRequestSummary,
	type ScenarioInput,
	startFakeBackend,
} from "../support/fake-backend/client.ts";
import { TempHome } from "../support/pi.ts";
import {
	isNotify,
	liveRpcProcesses,
	notifications,
	type RpcPi,
	type RpcRecord,
	SharedRpcPi,
	startRpcPi,
} from "../support/rpc.ts";
import { BUNDLE } from "../support/toolchain.ts";

const KEY = "key_test_session_pooling";
const SCENARIO_TIMEOUT_MS = 120_000;
type RunRequest = RunRequestSummary & { requestId: string };

// ---------------------------------------------------------------------------------------------------------------
// Helpers

const cleanup: (() => Promise<void> | void)[] = [];

async function environment(options: { settings?: object; scenarioMap?: Record<string, ScenarioInput> } = {}) {
	const home = new TempHome();
	cleanup.push(() => home.remove());
	if (options.settings) home.writeAgentFile("settings.json", options.settings);
	const backend = await startFakeBackend({
		rest: { models: loadCapturedCatalog(), apiKeys: [KEY] },
		...(options.scenarioMap ? { scenarioMap: options.scenarioMap } : {}),
	});
	cleanup.push(() => backend.stop());
	const env = { CURSOR_API_KEY: KEY, CURSOR_BACKEND_URL: backend.url };
	const pis: RpcPi[] = [];
	cleanup.push(async () => {
		for (const pi of pis) await pi.kill();
	});
	const start = (args: string[], extensions?: string[], lifetimeMs = SCENARIO_TIMEOUT_MS) => {
		const pi = startRpcPi(args, { home, env, lifetimeMs, ...(extensions ? { extensions } : {}) });
		pis.push(pi);
		return pi;
	};
	return { home, backend, start };
}

/** Sends a prompt that starts a run and waits until Pi settles; returns the records of that turn. */
async function turn(pi: RpcPi, text: string): Promise<RpcRecord[]> {
	const from = pi.mark();
	const { response } = await pi.prompt(text);
	if (!response.success || (response.data as { disposition?: string })?.disposition !== "started") {
		throw new Error(`prompt not started: ${JSON.stringify(response)}\n${pi.describe()}`);
	}
	await pi.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 30_000 });
	return pi.records.slice(from);
}

const textDelta = (r: RpcRecord) =>
	r.type === "message_update" &&
	(r as { assistantMessageEvent?: { type?: string } }).assistantMessageEvent?.type === "text_delta";
const deltaText = (r: RpcRecord) =>
	String((r as { assistantMessageEvent?: { delta?: string } }).assistantMessageEvent?.delta);

/** Everything that would show a user an error: failed responses, error notices, assistant errors, busy errors. */
function userVisibleErrors(records: readonly RpcRecord[], stderr = ""): string[] {
	const problems: string[] = [];
	for (const r of records) {
		if (r.type === "response" && r.success === false) problems.push(`failed response: ${JSON.stringify(r)}`);
		if (r.type === "message_end") {
			const message = r.message as { role?: string; stopReason?: string; errorMessage?: string };
			if (message.role === "assistant" && message.stopReason === "error") {
				problems.push(`assistant error: ${message.errorMessage}`);
			}
		}
	}
	for (const n of notifications(records)) if (n.type === "error" || n.type === "warning") problems.push(n.message);
	const all = JSON.stringify(records) + stderr;
	if (/already has active run|AgentBusyError/i.test(all)) problems.push("busy error text in the output");
	return problems;
}

function latestRequest(text: string): string | undefined {
	return /<latest_user_request>\n([\s\S]*?)\n<\/latest_user_request>/.exec(text)?.[1];
}

/** A bootstrap send: Pi's instructions, the coding-tool boundary and the latest request. */
function expectBootstrap(request: RunRequest | undefined, latest: string): void {
	expect(request?.text).toContain("<pi_instructions>");
	expect(request?.text).toContain("<cursor_tool_boundary>");
	expect(latestRequest(request?.text ?? "")).toBe(latest);
}

/** An incremental send: only the new user request (and the tail guard), nothing from before. */
function expectIncremental(request: RunRequest | undefined, latest: string, earlier: string[] = []): void {
	const text = request?.text ?? "";
	expect(text).not.toContain("<pi_instructions>");
	expect(text).not.toContain("<cursor_tool_boundary>");
	expect(text).not.toContain("<conversation_history>");
	expect(text).toStartWith("<latest_user_request>\n");
	expect(latestRequest(text)).toBe(latest);
	expect(text.endsWith(TOOL_TAIL_GUARD)).toBe(true);
	for (const old of earlier) expect(text).not.toContain(old);
}

/** Compaction / tree summaries: no coding-tool boundary or tail guard. */
function expectSummary(request: RunRequest | undefined): void {
	expect(request?.text).toContain("<pi_instructions>");
	expect(request?.text).not.toContain("<cursor_tool_boundary>");
	expect(request?.text).not.toContain(TOOL_TAIL_GUARD);
}

function sessionEntries(file: string): Record<string, unknown>[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** What one scenario on the shared Pi saw: the records of its use and the Pi's stderr and non-JSON output so far. */
interface Seen {
	records: RpcRecord[];
	stderr: string;
	junk: string[];
}

function seenSince(pi: RpcPi, from: number): Seen {
	return { records: pi.records.slice(from), stderr: pi.stderr, junk: [...pi.junk] };
}

/** The backend's run requests and runs from now on: the scenario's own (the shared Pi runs one at a time). */
async function backendSince(backend: FakeBackend) {
	const requests = (await backend.runRequests()).length;
	const runs = (await backend.runs()).length;
	return {
		requests: async () => (await backend.runRequests()).slice(requests),
		runs: async () => (await backend.runs()).slice(runs),
	};
}

function resumeHandles(file: string): ResumeHandle[] {
	return sessionEntries(file)
		.filter((e) => e.type === "custom" && e.customType === RESUME_ENTRY_TYPE)
		.map((e) => e.data as ResumeHandle);
}

// ---------------------------------------------------------------------------------------------------------------
// Scenarios

/** 5 turns, RPC compact, 2 turns, set_model to another Cursor model, 2 turns — one persisted session. */
async function pooledConversation(pi: RpcPi, fake: FakeBackend) {
	const from = pi.mark();
	const backend = await backendSince(fake);
	const state = await pi.ready();
	for (let i = 1; i <= 5; i++) await turn(pi, `pooling turn ${i}`);
	const afterFive = await backend.requests();

	const compact = await pi.send({ type: "compact" }, { timeoutMs: 60_000 });
	const afterCompact = await backend.requests();
	await turn(pi, "after compaction 1");
	await turn(pi, "after compaction 2");
	const afterCompactTurns = await backend.requests();

	const setModel = await pi.send({ type: "set_model", provider: "cursor", modelId: "composer-2.5" });
	await turn(pi, "after model change 1");
	await turn(pi, "after model change 2");
	const all = await backend.requests();
	const seen = seenSince(pi, from);
	// The next scenarios start on the file's model again (a new Pi session keeps the current one).
	const back = await pi.send({ type: "set_model", provider: "cursor", modelId: "composer-2" });
	if (!back.response.success) throw new Error(`set_model failed: ${JSON.stringify(back.response)}\n${pi.describe()}`);
	return {
		sessionFile: String(state.sessionFile),
		afterFive,
		compact: compact.response,
		compactionSummaries: afterCompact.slice(afterFive.length),
		afterCompaction: afterCompactTurns.slice(afterCompact.length),
		setModel: setModel.response,
		afterModelChange: all.slice(afterCompactTurns.length),
		runs: await backend.runs(),
		seen,
	};
}

const TREE_EXTENSION = `
export default function (pi) {
	pi.registerCommand("test-tree", {
		description: "test helper: navigate the session tree",
		handler: async (args, ctx) => {
			const [id, mode] = args.trim().split(/\\s+/);
			const result = await ctx.navigateTree(id, { summarize: mode === "summarize" });
			ctx.ui.notify("test-tree " + JSON.stringify({ cancelled: result.cancelled }), "info");
		},
	});
}
`;

/** 3 turns, navigate back to the first reply (with a branch summary), then 2 turns on the new branch. */
async function treeNavigation(pi: RpcPi, fake: FakeBackend) {
	const start = pi.mark();
	const backend = await backendSince(fake);
	for (let i = 1; i <= 3; i++) await turn(pi, `tree turn ${i}`);
	const before = await backend.requests();
	const { response } = await pi.send({ type: "get_entries" });
	const entries = (response.data as { entries: { id: string; type: string; message?: { role: string } }[] }).entries;
	const firstReply = entries.find((e) => e.type === "message" && e.message?.role === "assistant");
	if (!firstReply) throw new Error("no assistant entry");
	const from = pi.mark();
	const tree = await pi.prompt(`/test-tree ${firstReply.id} summarize`, { timeoutMs: 60_000 });
	const notice = await pi.waitFor(isNotify("test-tree "), { from, timeoutMs: 60_000 });
	const afterTree = await backend.requests();
	await turn(pi, "new branch 1");
	await turn(pi, "new branch 2");
	const all = await backend.requests();
	return {
		before,
		treeResponse: tree.response,
		notice: String(notice.message),
		treeSummaries: afterTree.slice(before.length),
		afterTree: all.slice(afterTree.length),
		seen: seenSince(pi, start),
	};
}

const SLOW: ScenarioInput = {
	name: "slow",
	steps: [
		{ text: "OLD-1 " },
		{ delay: 1500 },
		{ text: "OLD-2 " },
		{ delay: 300 },
		{ text: "OLD-3" },
		{ turnEnded: { inputTokens: 3, outputTokens: 3 } },
	],
};

/** Two slow runs, each steered mid-stream: once with RPC `steer`, once with `prompt` + streamingBehavior "steer". */
async function steering(pi: RpcPi, fake: FakeBackend) {
	const backend = await backendSince(fake);
	const from = pi.mark();

	const steered = async (text: string, steer: Record<string, unknown>) => {
		const mark = pi.mark();
		const { response } = await pi.prompt(text);
		if (!response.success) throw new Error(`prompt failed: ${JSON.stringify(response)}`);
		await pi.waitFor(textDelta, { from: mark });
		const steerResponse = (await pi.send(steer)).response;
		await pi.waitFor((r) => r.type === "agent_settled", { from: mark, timeoutMs: 30_000 });
		return steerResponse;
	};
	const steer1 = await steered("[[slow]] first slow run", { type: "steer", message: "STEER ONE: change course" });
	const steer2 = await steered("[[slow]] second slow run", {
		type: "prompt",
		message: "STEER TWO: again",
		streamingBehavior: "steer",
	});
	const requests = await backend.requests();
	return { steer1, steer2, requests, seen: seenSince(pi, from) };
}

/** A hanging run aborted, then an immediate new prompt: no busy error, a real answer. */
async function abortThenPrompt(pi: RpcPi, fake: FakeBackend) {
	// Queued, not marked: the bootstrap after the abort replays the hanging prompt's text in its history.
	const hang: ScenarioInput = { name: "hang", steps: [{ text: "PARTIAL" }, { hang: true }] };
	const answer: ScenarioInput = {
		name: "answer",
		steps: [{ text: "Hello from fake backend" }, { turnEnded: { inputTokens: 1, outputTokens: 1 } }],
	};
	const backend = await backendSince(fake);
	await fake.enqueue(answer, hang, answer);
	await turn(pi, "before the hang");
	const from = pi.mark();
	await pi.prompt("this never ends");
	await pi.waitFor(textDelta, { from });
	const abort = await pi.send({ type: "abort" });
	const started = Date.now();
	const afterAbort = await turn(pi, "right after the abort");
	const afterAbortMs = Date.now() - started;
	const requests = await backend.requests();
	const runs = await backend.runs();
	return { abort: abort.response, afterAbort, afterAbortMs, requests, runs, seen: seenSince(pi, from) };
}

/**
 * Three processes on one persisted session: resume, then a deleted store. The first is the shared Pi (its last
 * scenario: it exits after it, so `-c` continues this scenario's session, the latest of the home).
 */
async function restart(first: RpcPi, env: Environment) {
	const { start } = env;
	const backend = await backendSince(env.backend);
	const state = await first.ready();
	const sessionFile = String(state.sessionFile);
	await turn(first, "restart turn 1");
	await turn(first, "restart turn 2");
	const exit1 = await first.close();

	const second = start(["-c", "--model", "cursor/composer-2"]);
	const state2 = await second.ready();
	await turn(second, "restart turn 3 (resumed)");
	const exit2 = await second.close();
	const afterResume = await backend.requests();
	const handles = resumeHandles(sessionFile);
	const last = handles.at(-1);
	const storeExisted = last ? existsSync(last.storeDir) : false;
	if (last) rmSync(last.storeDir, { recursive: true, force: true });

	const third = start(["--session", sessionFile, "--model", "cursor/composer-2"]);
	await third.ready();
	const turn4 = await turn(third, "restart turn 4 (store deleted)");
	await turn(third, "restart turn 5");
	const exit3 = await third.close();
	const all = await backend.requests();
	return {
		sessionFile,
		resumedFile: String(state2.sessionFile),
		afterResume,
		handlesBeforeDelete: handles,
		storeExisted,
		afterDelete: all.slice(afterResume.length),
		turn4,
		handlesAtEnd: resumeHandles(sessionFile),
		exits: [exit1, exit2, exit3],
	};
}

/** 3 turns, RPC fork at the third user message, 2 turns in the fork, then switch back to the donor for a turn. */
async function forkAndSwitchBack(pi: RpcPi, fake: FakeBackend) {
	const from = pi.mark();
	const backend = await backendSince(fake);
	const donorFile = String((await pi.ready()).sessionFile);
	for (let i = 1; i <= 3; i++) await turn(pi, `fork turn ${i}`);
	const donor = await backend.requests();
	const { response } = await pi.send({ type: "get_entries" });
	const entries = (response.data as { entries: { id: string; type: string; message?: { content?: unknown } }[] })
		.entries;
	const third = entries.find((e) => e.type === "message" && JSON.stringify(e.message?.content).includes("fork turn 3"));
	if (!third) throw new Error("no third user message");
	const fork = await pi.send({ type: "fork", entryId: third.id });
	const forkFile = String((await pi.ready()).sessionFile);
	const forkRecords = await turn(pi, "forked turn 1");
	await turn(pi, "forked turn 2");
	const forked = (await backend.requests()).slice(donor.length);
	const switched = await pi.send({ type: "switch_session", sessionPath: donorFile });
	await turn(pi, "donor turn 4");
	const all = await backend.requests();
	return {
		donorFile,
		forkFile,
		donor,
		fork: fork.response,
		forkRecords,
		forked,
		switched: switched.response,
		back: all.slice(donor.length + forked.length),
		seen: seenSince(pi, from),
	};
}

// ---------------------------------------------------------------------------------------------------------------

type Environment = Awaited<ReturnType<typeof environment>>;
/** The shared Pi hosts six scenarios in turn: its lifetime guard is theirs together. */
const SHARED_LIFETIME_MS = 5 * SCENARIO_TIMEOUT_MS;

const scenarios = {
	pooledConversation: undefined as ReturnType<typeof pooledConversation> | undefined,
	treeNavigation: undefined as ReturnType<typeof treeNavigation> | undefined,
	steering: undefined as ReturnType<typeof steering> | undefined,
	abortThenPrompt: undefined as ReturnType<typeof abortThenPrompt> | undefined,
	restart: undefined as ReturnType<typeof restart> | undefined,
	forkAndSwitchBack: undefined as ReturnType<typeof forkAndSwitchBack> | undefined,
};

beforeAll(async () => {
	// compaction keeps only the newest turn (pooledConversation compacts); the tree helper serves treeNavigation.
	const env = await environment({
		settings: { compaction: { keepRecentTokens: 1 } },
		scenarioMap: { "[[slow]]": SLOW },
	});
	const helper = join(env.home.dir, "test-tree-extension.js");
	writeFileSync(helper, TREE_EXTENSION);
	const shared = new SharedRpcPi(() =>
		env.start(["--model", "cursor/composer-2"], [BUNDLE, helper], SHARED_LIFETIME_MS),
	);
	const on = <T>(scenario: (pi: RpcPi, backend: FakeBackend) => Promise<T>) =>
		shared.use((pi) => scenario(pi, env.backend));
	// In the order the tests read them; restart last (its first process is the shared Pi, which it closes).
	scenarios.pooledConversation = on(pooledConversation);
	scenarios.treeNavigation = on(treeNavigation);
	scenarios.steering = on(steering);
	scenarios.abortThenPrompt = on(abortThenPrompt);
	scenarios.forkAndSwitchBack = on(forkAndSwitchBack);
	scenarios.restart = shared.use((pi) => restart(pi, env));
	// keep unhandled rejections quiet: each test awaits its own scenario
	for (const p of Object.values(scenarios)) p?.catch(() => {});
});

afterAll(async () => {
	await Promise.allSettled(Object.values(scenarios));
	for (const step of cleanup.reverse()) await step();
	expect(liveRpcProcesses()).toBe(0);
}, SCENARIO_TIMEOUT_MS);

async function result<K extends keyof typeof scenarios>(name: K): Promise<Awaited<NonNullable<(typeof scenarios)[K]>>> {
	const promise = scenarios[name];
	if (!promise) throw new Error(`scenario ${name} not started`);
	return (await promise) as Awaited<NonNullable<(typeof scenarios)[K]>>;
}

describe("pooled conversation (pi --mode rpc + fake backend)", () => {
	test(
		"5 turns: one SDK agent, one bootstrap and four incremental prompts",
		async () => {
			const r = await result("pooledConversation");
			expect(r.afterFive).toHaveLength(5);
			const conversation = r.afterFive[0]?.conversationId;
			expect(conversation).toBeString();
			expect(r.afterFive.map((q) => q.conversationId)).toEqual(Array(5).fill(conversation));
			expectBootstrap(r.afterFive[0], "pooling turn 1");
			for (let i = 2; i <= 5; i++) {
				const earlier = Array.from({ length: i - 1 }, (_, k) => `pooling turn ${k + 1}`);
				expectIncremental(r.afterFive[i - 1], `pooling turn ${i}`, earlier);
			}
			// one resume handle per finished turn, all on that agent, in a session-derived store
			const handles = resumeHandles(r.sessionFile);
			expect(handles.length).toBeGreaterThanOrEqual(5);
			expect(handles.slice(0, 5).map((h) => h.agentId)).toEqual(Array(5).fill(conversation));
			expect(handles[0]?.storeDir).toContain("/pi-sessions/");
		},
		SCENARIO_TIMEOUT_MS,
	);

	test(
		"RPC compact: summaries on other conversations without the tool boundary; the next send bootstraps anew",
		async () => {
			const r = await result("pooledConversation");
			expect(r.compact.success).toBe(true);
			const main = r.afterFive[0]?.conversationId;
			expect(r.compactionSummaries.length).toBeGreaterThanOrEqual(1);
			const summaryConversations = r.compactionSummaries.map((q) => q.conversationId);
			expect(new Set(summaryConversations).size).toBe(summaryConversations.length); // a fresh agent each
			for (const summary of r.compactionSummaries) {
				expect(summary.conversationId).not.toBe(main);
				expectSummary(summary);
				expect(summary.text).toContain("summarization");
			}
			const [first, second] = r.afterCompaction;
			expect(r.afterCompaction).toHaveLength(2);
			expectBootstrap(first, "after compaction 1");
			expect([main, ...summaryConversations]).not.toContain(first?.conversationId);
			expect(second?.conversationId).toBe(first?.conversationId as string);
			expectIncremental(second, "after compaction 2", ["after compaction 1"]);
		},
		SCENARIO_TIMEOUT_MS,
	);

	test(
		"set_model to another Cursor model: the next send bootstraps a new conversation on that model",
		async () => {
			const r = await result("pooledConversation");
			expect(r.setModel.success).toBe(true);
			const [first, second] = r.afterModelChange;
			expect(r.afterModelChange).toHaveLength(2);
			const seen = [...r.afterFive, ...r.compactionSummaries, ...r.afterCompaction].map((q) => q.conversationId);
			expectBootstrap(first, "after model change 1");
			expect(seen).not.toContain(first?.conversationId);
			expect(first?.modelId).toBe("composer-2.5");
			expect(r.afterCompaction[0]?.modelId).toBe("composer-2");
			expect(second?.conversationId).toBe(first?.conversationId as string);
			expectIncremental(second, "after model change 2", ["after model change 1"]);
		},
		SCENARIO_TIMEOUT_MS,
	);

	test(
		"no user-visible errors, clean exit, every run finished",
		async () => {
			const r = await result("pooledConversation");
			expect(userVisibleErrors(r.seen.records, r.seen.stderr)).toEqual([]);
			expect(r.seen.junk).toEqual([]);
			expect(r.runs.filter((run) => run.error)).toEqual([]);
			// The Pi it ran in hosts the later scenarios too: its clean exit (code 0, no stray stdout, no error in any
			// of its records) is checked with the restart scenario, whose first process it is.
		},
		SCENARIO_TIMEOUT_MS,
	);
});

describe("tree navigation (helper extension calling ctx.navigateTree)", () => {
	test(
		"the branch summary runs on its own conversation; the next send bootstraps a new conversation",
		async () => {
			const r = await result("treeNavigation");
			expect(r.treeResponse.success).toBe(true);
			expect(r.notice).toContain('"cancelled":false');
			const main = r.before[0]?.conversationId;
			expect(r.before.map((q) => q.conversationId)).toEqual(Array(3).fill(main));
			expect(r.treeSummaries.length).toBeGreaterThanOrEqual(1);
			for (const summary of r.treeSummaries) {
				expect(summary.conversationId).not.toBe(main);
				expectSummary(summary);
			}
			const [first, second] = r.afterTree;
			expectBootstrap(first, "new branch 1");
			expect([main, ...r.treeSummaries.map((q) => q.conversationId)]).not.toContain(first?.conversationId);
			expect(first?.text).toContain("tree turn 1"); // kept history is replayed …
			expect(first?.text).not.toContain("tree turn 3"); // … the abandoned branch is not
			expect(second?.conversationId).toBe(first?.conversationId as string);
			expectIncremental(second, "new branch 2", ["new branch 1"]);
			expect(userVisibleErrors(r.seen.records, r.seen.stderr)).toEqual([]);
		},
		SCENARIO_TIMEOUT_MS,
	);
});

describe("steering mid-run", () => {
	test(
		"steer / prompt+steer while streaming: no busy error, the steering text reaches the backend incrementally",
		async () => {
			const r = await result("steering");
			expect(r.steer1).toMatchObject({ success: true, data: { disposition: "queued" } });
			expect(r.steer2).toMatchObject({ success: true, data: { disposition: "queued" } });
			expect(userVisibleErrors(r.seen.records, r.seen.stderr)).toEqual([]);
			expect(r.requests.map((q) => latestRequest(q.text))).toEqual([
				"[[slow]] first slow run",
				"STEER ONE: change course",
				"[[slow]] second slow run",
				"STEER TWO: again",
			]);
			const conversation = r.requests[0]?.conversationId;
			expect(r.requests.map((q) => q.conversationId)).toEqual(Array(4).fill(conversation));
			expectBootstrap(r.requests[0], "[[slow]] first slow run");
			expectIncremental(r.requests[1], "STEER ONE: change course");
			expectIncremental(r.requests[3], "STEER TWO: again");
		},
		SCENARIO_TIMEOUT_MS,
	);

	test(
		"none of the old run's output appears after the steering message",
		async () => {
			const r = await result("steering");
			for (const marker of ["STEER ONE", "STEER TWO"]) {
				const at = r.seen.records.findIndex(
					(rec) =>
						rec.type === "message_start" &&
						(rec.message as { role?: string }).role === "user" &&
						JSON.stringify(rec.message).includes(marker),
				);
				expect(at).toBeGreaterThan(0);
				const before = r.seen.records.slice(0, at).filter(textDelta).map(deltaText).join("");
				expect(before).toContain("OLD-1");
				const nextSettled = r.seen.records.findIndex((rec, i) => i > at && rec.type === "agent_settled");
				const after = r.seen.records.slice(at, nextSettled).filter(textDelta).map(deltaText).join("");
				expect(after).not.toContain("OLD-");
				expect(after).toContain("Hello from fake backend");
			}
		},
		SCENARIO_TIMEOUT_MS,
	);

	test(
		"abort a hanging run, prompt at once: no busy error, the new prompt is answered on a fresh conversation",
		async () => {
			const r = await result("abortThenPrompt");
			expect(r.abort.success).toBe(true);
			const stops = r.seen.records
				.filter((rec) => rec.type === "message_end" && (rec.message as { role?: string }).role === "assistant")
				.map((rec) => (rec.message as { stopReason?: string }).stopReason);
			expect(stops).toEqual(["aborted", "stop"]);
			expect(userVisibleErrors(r.seen.records, r.seen.stderr)).toEqual([]);
			const answer = r.afterAbort.filter(textDelta).map(deltaText).join("");
			expect(answer).toBe("Hello from fake backend");
			expect(r.afterAbortMs).toBeLessThan(15_000); // not stuck behind the 30 s busy wait
			expect(r.requests.map((q) => latestRequest(q.text))).toEqual([
				"before the hang",
				"this never ends",
				"right after the abort",
			]);
			const [before, hang, after] = r.requests;
			expect(hang?.conversationId).toBe(before?.conversationId as string);
			// after an abort the SDK conversation state is unknown: a new agent with the full context
			expect(after?.conversationId).not.toBe(before?.conversationId);
			expectBootstrap(after, "right after the abort");
			expect(r.runs.map((run) => run.scenarioName)).toEqual(["answer", "hang", "answer"]);
			expect(r.runs[1]?.clientClosed).toBe(true); // the hanging run was cancelled
		},
		SCENARIO_TIMEOUT_MS,
	);
});

describe("fork", () => {
	test(
		"a fork never continues the donor's SDK conversation: it bootstraps its own; the donor keeps its own",
		async () => {
			const r = await result("forkAndSwitchBack");
			expect(r.fork).toMatchObject({ success: true, data: { cancelled: false } });
			expect(r.forkFile).not.toBe(r.donorFile);
			const donorConversation = r.donor[0]?.conversationId;
			expect(r.donor.map((q) => q.conversationId)).toEqual(Array(3).fill(donorConversation));
			const [first, second] = r.forked;
			expect(r.forked).toHaveLength(2);
			expectBootstrap(first, "forked turn 1");
			expect(first?.conversationId).not.toBe(donorConversation);
			expect(first?.text).toContain("fork turn 2"); // the fork's own history …
			expect(first?.text).not.toContain("fork turn 3"); // … without the donor's later turn
			expect(second?.conversationId).toBe(first?.conversationId as string);
			expectIncremental(second, "forked turn 2", ["forked turn 1"]);
			expect(notifications(r.forkRecords).map((n) => n.message)).toEqual([]);
			// back on the donor session: its own conversation continues incrementally
			expect(r.switched).toMatchObject({ success: true, data: { cancelled: false } });
			expect(r.back).toHaveLength(1);
			expect(r.back[0]?.conversationId).toBe(donorConversation as string);
			expectIncremental(r.back[0], "donor turn 4", ["fork turn 3", "forked turn 1"]);
			// the fork's resume handles live in its own store, not the donor's
			const donorStore = resumeHandles(r.donorFile)[0]?.storeDir;
			const forkHandles = resumeHandles(r.forkFile).filter((h) => h.agentId === first?.conversationId);
			expect(forkHandles.length).toBeGreaterThan(0);
			expect(forkHandles[0]?.storeDir).not.toBe(donorStore);
			expect(userVisibleErrors(r.seen.records, r.seen.stderr)).toEqual([]);
		},
		SCENARIO_TIMEOUT_MS,
	);
});

describe("restart", () => {
	test(
		"a new process (-c) with a valid handle continues the SAME conversation incrementally",
		async () => {
			const r = await result("restart");
			expect(r.resumedFile).toBe(r.sessionFile);
			expect(r.afterResume).toHaveLength(3);
			const conversation = r.afterResume[0]?.conversationId;
			expect(r.afterResume.map((q) => q.conversationId)).toEqual(Array(3).fill(conversation));
			expectBootstrap(r.afterResume[0], "restart turn 1");
			expectIncremental(r.afterResume[1], "restart turn 2", ["restart turn 1"]);
			expectIncremental(r.afterResume[2], "restart turn 3 (resumed)", ["restart turn 1", "restart turn 2"]);
			expect(r.storeExisted).toBe(true);
			expect(r.handlesBeforeDelete.map((h) => h.agentId)).toEqual(Array(3).fill(conversation));
			expect(
				notifications(r.exits[1]?.records ?? [])
					.map((n) => n.message)
					.join("\n"),
			).not.toContain("Could not resume");
		},
		SCENARIO_TIMEOUT_MS,
	);

	test(
		"after deleting the store (--session <file>): a notice, then a bootstrap on a new conversation",
		async () => {
			const r = await result("restart");
			const old = r.afterResume[0]?.conversationId;
			const [four, five] = r.afterDelete;
			expect(r.afterDelete).toHaveLength(2);
			expectBootstrap(four, "restart turn 4 (store deleted)");
			expect(four?.conversationId).not.toBe(old);
			expect(four?.text).toContain("restart turn 1"); // the full context goes to the new agent
			expect(five?.conversationId).toBe(four?.conversationId as string);
			expectIncremental(five, "restart turn 5", ["restart turn 4 (store deleted)"]);
			const notice = notifications(r.turn4).find((n) => n.message.startsWith("Could not resume"));
			expect(notice?.message).toContain("Could not resume the previous Cursor conversation");
			expect(notice?.message).toContain("sending the full context to a new Cursor agent");
			expect(r.handlesAtEnd.at(-1)?.agentId).toBe(four?.conversationId as string);
			for (const exit of r.exits) {
				expect(exit.code).toBe(0);
				expect(exit.junk).toEqual([]);
				expect(userVisibleErrors(exit.records, exit.stderr)).toEqual([]);
			}
		},
		SCENARIO_TIMEOUT_MS,
	);
});
