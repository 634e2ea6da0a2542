// A cloud turn's phases before its run exists, through the provider's turn code with the cloud runtime on a stub SDK
// and a real journal (the real SDK against the cloud fake: test/e2e/cloud-pi.test.ts).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AssistantMessageEvent, TranscriptContext } from "@earendil-works/pi-ai";
import { CloudJournal, cloudJournalPath } from "../../src/cloud/journal.ts";
import { BUSY_DISMISSED, BUSY_OPTIONS } from "../../src/fleet/busy.ts";
import type { CursorReplay } from "../../src/replay/replay.ts";
import { CLOUD_AGENT_ENTRY, CloudRuntime, type CloudRuntimeDeps } from "../../src/runtime/cloud.ts";
import { ABORT_GRACE_MS } from "../../src/runtime/cloud-leave.ts";
import type { CloudSdk, Run, SDKAgent } from "../../src/sdk/cursor-sdk.ts";
import type { LiveRun } from "../../src/turn/live-run.ts";
import { CLOUD_BOUNDS } from "../../src/turn/setup.ts";
import { streamCursorTurn } from "../../src/turn/stream.ts";
import type { TurnSetup } from "../../src/turn/types.ts";
import { cursorModel } from "../support/messages.ts";
import { turnSetup } from "../support/pool-request.ts";

const KEY = "key_unit_test_cloud_run";
const AGENT_ID = "bc-12345678-1234-4234-8234-123456789abc";
let dir: string;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "cloud-runtime-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function deferred<T>() {
	let resolve!: (value: T) => void;
	const promise = new Promise<T>((r) => {
		resolve = r;
	});
	return { promise, resolve };
}

function stubAgent(send: () => Promise<Run>, log: string[]): SDKAgent {
	return { agentId: AGENT_ID, send, close: () => log.push("close") } as unknown as SDKAgent;
}

const setup = turnSetup({ apiKey: KEY, runtime: "cloud", ...CLOUD_BOUNDS });

function cloudTurn(
	sdk: Pick<CloudSdk, "createAgent" | "resumeAgent">,
	signal: AbortSignal,
	overrides: Partial<TurnSetup> = {},
	deps: Partial<CloudRuntimeDeps> = {},
) {
	let live: LiveRun | undefined;
	const sessionFile = join(dir, "sessions", "s.jsonl");
	const runtime = new CloudRuntime({
		sdk: sdk as CloudSdk,
		env: {},
		flags: () => ({ ack: true, repo: "https://github.com/acme/app", allowLocalState: true }),
		local: { current: { user: {} } as never, reload: () => ({}) as never },
		configFile: { update: async () => ({ ok: true, written: true, config: {} }) },
		session: () => ({
			cwd: dir,
			mode: "print",
			manager: { getSessionFile: () => sessionFile, getSessionId: () => "session-1", getBranch: () => [] },
		}),
		confirm: async () => false,
		select: async () => undefined,
		fleet: { activeRunOf: () => undefined, cancel: async () => {} },
		notify: () => {},
		appendEntry: () => {},
		pool: {
			get liveRun() {
				return live;
			},
			keepLive: (run) => {
				live = run;
			},
			dropLive: () => {
				live = undefined;
			},
		},
		replay: undefined as unknown as CursorReplay,
		...deps,
	});
	const context = { messages: [{ role: "user", content: "hello", timestamp: 1 }] } as unknown as TranscriptContext;
	const entry = { runtime, cloud: runtime, isSummary: () => false, setup: () => ({ ...setup, ...overrides }) };
	const stream = streamCursorTurn(entry, cursorModel, context, { apiKey: KEY, signal });
	const journal = () => new CloudJournal(cloudJournalPath(join(dir, "sessions"), "session-1")).read().records;
	return { stream, journal };
}

async function collect(stream: AsyncIterable<AssistantMessageEvent>): Promise<AssistantMessageEvent[]> {
	const events: AssistantMessageEvent[] = [];
	for await (const event of stream) events.push(event);
	return events;
}

describe("a cloud turn before its run exists", () => {
	test("Pi's abort while the agent is being created ends the turn aborted; the late agent is closed, nothing recorded", async () => {
		const log: string[] = [];
		const created = deferred<SDKAgent>();
		const controller = new AbortController();
		const { stream, journal } = cloudTurn(
			{ createAgent: () => created.promise, resumeAgent: () => created.promise },
			controller.signal,
		);
		await Bun.sleep(50); // the target check runs git
		controller.abort();
		const events = await collect(stream);
		expect(events.map((e) => e.type)).toEqual(["error"]);
		expect(events[0]).toMatchObject({ reason: "aborted" });
		created.resolve(stubAgent(() => Promise.reject(new Error("never sent")), log));
		await Bun.sleep(10);
		expect(log).toEqual(["close"]);
		expect(journal()).toEqual([]);
	});

	test("Pi's abort while the send is pending ends the turn at once; a run that arrives later is recorded and cancelled", async () => {
		const log: string[] = [];
		const sent = deferred<Run>();
		const controller = new AbortController();
		const agent = stubAgent(() => sent.promise, log);
		const { stream, journal } = cloudTurn(
			{ createAgent: async () => agent, resumeAgent: async () => agent },
			controller.signal,
		);
		for (let i = 0; i < 100 && journal().length === 0; i++) await Bun.sleep(10);
		expect(journal().map((r) => r.type)).toEqual(["agent"]);
		const started = performance.now();
		controller.abort();
		const events = await collect(stream);
		expect(performance.now() - started).toBeLessThan(100);
		expect(events.map((e) => e.type)).toEqual(["start", "error"]);
		expect(events.at(-1)).toMatchObject({ reason: "aborted" });
		expect(journal().at(-1)).toMatchObject({ type: "result", status: "aborted", runId: null });

		sent.resolve({ id: "run-late", cancel: async () => void log.push("cancel run-late") } as unknown as Run);
		await Bun.sleep(10);
		expect(journal().at(-1)).toMatchObject({ type: "run", agentId: AGENT_ID, runId: "run-late" });
		// An abort's cancel waits the grace period (a shutdown right after it leaves the run going instead).
		await Bun.sleep(ABORT_GRACE_MS + 50);
		expect(log).toContain("cancel run-late");
	});
});

describe("a cloud turn that cannot be recorded or sent", () => {
	test("a journal that cannot be written fails the turn before anything is sent", async () => {
		const log: string[] = [];
		writeFileSync(join(dir, "sessions"), "a file where the session folder should be");
		const agent = stubAgent(async () => {
			log.push("send");
			return { id: "run-1" } as unknown as Run;
		}, log);
		const { stream } = cloudTurn(
			{ createAgent: async () => agent, resumeAgent: async () => agent },
			new AbortController().signal,
		);
		const events = await collect(stream);
		expect(events.at(-1)).toMatchObject({ type: "error", reason: "error" });
		expect(JSON.stringify(events.at(-1))).toContain("cloud journal");
		expect(log).not.toContain("send");
	});

	test("a send Cursor never accepts fails as a network error after the send bound; a late run is cancelled", async () => {
		const log: string[] = [];
		const sent = deferred<Run>();
		const agent = stubAgent(() => sent.promise, log);
		const { stream, journal } = cloudTurn(
			{ createAgent: async () => agent, resumeAgent: async () => agent },
			new AbortController().signal,
			{ sendMs: 100 },
		);
		const events = await collect(stream);
		expect(events.at(-1)).toMatchObject({ type: "error", reason: "error" });
		expect(JSON.stringify(events.at(-1))).toContain("did not accept the request within 100 ms (network error)");
		sent.resolve({ id: "run-late", cancel: async () => void log.push("cancel run-late") } as unknown as Run);
		await Bun.sleep(ABORT_GRACE_MS + 50);
		expect(log).toContain("cancel run-late");
		expect(journal().map((r) => r.type)).toEqual(["agent", "result", "run"]);
	});
});

describe("a cloud turn for an agent that is still busy with a run the session follows", () => {
	const sessionFile = () => join(dir, "sessions", "s.jsonl");
	function busyTurn(label: string | undefined) {
		const log: string[] = [];
		const seed = new CloudJournal(cloudJournalPath(join(dir, "sessions"), "session-1"));
		seed.record({ type: "agent", agentId: AGENT_ID, model: "composer-2", repo: null });
		seed.record({ type: "run", agentId: AGENT_ID, runId: "run-0" });
		const ended = deferred<undefined>();
		const agent = stubAgent(async () => {
			log.push("send");
			throw new Error("stop here");
		}, log);
		const { stream } = cloudTurn(
			{
				createAgent: async () => {
					log.push("create");
					return agent;
				},
				resumeAgent: async () => {
					log.push("resume");
					return agent;
				},
			},
			new AbortController().signal,
			{},
			{
				session: () => ({
					cwd: dir,
					mode: "tui",
					manager: {
						getSessionFile: sessionFile,
						getSessionId: () => "session-1",
						getBranch: () => [{ type: "custom", customType: CLOUD_AGENT_ENTRY, data: { agentId: AGENT_ID } }] as never,
					},
				}),
				select: async (_title, options) => {
					log.push(`asked ${options.length}`);
					return label;
				},
				fleet: {
					activeRunOf: (id) => (id === AGENT_ID ? { agentId: id, runId: "run-0", ended: ended.promise } : undefined),
					cancel: async () => {
						log.push("cancel run-0");
						ended.resolve(undefined);
					},
				},
			},
		);
		return { log, ended, events: collect(stream) };
	}
	const label = (choice: string) => BUSY_OPTIONS.find((o) => o.choice === choice)?.label;

	test("wait: nothing is sent until the run ends, then the same agent gets the message", async () => {
		const turn = busyTurn(label("wait"));
		await Bun.sleep(100);
		expect(turn.log).toEqual(["asked 3"]);
		turn.log.push("run ended");
		turn.ended.resolve(undefined);
		await turn.events;
		expect(turn.log.slice(0, 4)).toEqual(["asked 3", "run ended", "resume", "send"]);
	});

	test("stop: the run is cancelled, then the same agent gets the message", async () => {
		const turn = busyTurn(label("stop"));
		await turn.events;
		expect(turn.log.slice(0, 4)).toEqual(["asked 3", "cancel run-0", "resume", "send"]);
	});

	test("new: a new agent gets the message; the busy one is left alone", async () => {
		const turn = busyTurn(label("new"));
		await turn.events;
		expect(turn.log.slice(0, 3)).toEqual(["asked 3", "create", "send"]);
	});

	test("dismissed: nothing is sent, and the message says how to choose", async () => {
		const turn = busyTurn(undefined);
		const events = await turn.events;
		expect(turn.log).toEqual(["asked 3"]);
		expect(JSON.stringify(events.at(-1))).toContain(BUSY_DISMISSED.slice(0, 40));
	});
});
