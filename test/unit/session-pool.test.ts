// SessionAgentPool against the in-process fake SDK: bootstrap then incremental on one agent, invalidation, resume
// handles, summary agents, and the busy wait that keeps "already has active run" away from users.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@earendil-works/pi-ai";
import { TOOL_BOUNDARY, TOOL_TAIL_GUARD } from "../../src/prompt/transcript.ts";
import { type PoolRequest, SessionAgentPool } from "../../src/session/pool.ts";
import { RESUME_ENTRY_TYPE, type ResumeHandle } from "../../src/session/resume.ts";
import { coverageOf } from "../../src/session/send-plan.ts";
import { TurnEnded } from "../../src/turn/watch.ts";
import { FakeCursorSdk } from "../support/fake-sdk.ts";
import { assistantMessage, systemMessage, userMessage } from "../support/messages.ts";
import { poolRequest, testWatch } from "../support/pool-request.ts";

const system = systemMessage();
const user = userMessage;
const assistant = (text: string) => assistantMessage(text);

const request = (messages: Message[], setup: Partial<PoolRequest["setup"]> = {}) => poolRequest(messages, { setup });

const watch = testWatch;

const pools: SessionAgentPool[] = [];

/** A pool plus what its hooks saw (shut down after the test, which removes its temporary stores). */
function setup(options: { busyWaitMs?: number } = {}) {
	const sdk = new FakeCursorSdk();
	const entries: { customType: string; data: unknown }[] = [];
	const notices: string[] = [];
	const pool = new SessionAgentPool(
		sdk,
		{ appendEntry: (customType, data) => entries.push({ customType, data }), notify: (m) => notices.push(m) },
		options,
	);
	pools.push(pool);
	return { sdk, pool, entries, notices };
}

const scratch: string[] = [];
function tempDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "session-pool-test-"));
	scratch.push(dir);
	return dir;
}
afterEach(() => {
	for (const pool of pools.splice(0)) pool.shutdown();
	for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs a lease's prompt on its agent to the end, like src/turn/stream.ts, and releases it. */
async function runLease(lease: Awaited<ReturnType<SessionAgentPool["acquire"]>>): Promise<void> {
	const run = await lease.agent.send(lease.prompt.text);
	const result = await run.wait();
	await lease.release(result.status === "finished" ? "finished" : "error");
}

const turns = (n: number): Message[][] => {
	const out: Message[][] = [];
	let messages: Message[] = [system, user("q1")];
	for (let i = 1; i <= n; i++) {
		out.push(messages);
		messages = [...messages, assistant(`a${i}`), user(`q${i + 1}`)];
	}
	return out;
};

describe("SessionAgentPool", () => {
	test("one agent: a bootstrap, then only the new user message", async () => {
		const { sdk, pool } = setup();
		for (const messages of turns(3)) await runLease(await pool.acquire(request(messages), watch()));
		expect(sdk.agents.map((a) => a.agentId)).toEqual(["fake-agent-1"]);
		const [first, second, third] = sdk.sends;
		expect(first?.text).toContain("<pi_instructions>");
		expect(first?.text).toContain(TOOL_BOUNDARY);
		expect(second?.text).not.toContain("<pi_instructions>");
		expect(second?.text).not.toContain(TOOL_BOUNDARY);
		expect(second?.text).toContain("<latest_user_request>\nq2\n</latest_user_request>");
		expect(second?.text).not.toContain("q1");
		expect(second?.text.endsWith(TOOL_TAIL_GUARD)).toBe(true);
		expect(third?.text).toContain("<latest_user_request>\nq3\n</latest_user_request>");
		expect(sdk.agents[0]?.options.local).toMatchObject({ cwd: "/projects/app", settingSources: ["all"] });
		expect(sdk.agents[0]?.options.local?.enableAgentRetries).toBe(false);
	});

	test("fileless sessions use one temporary store for their agents, removed at shutdown; no resume entries", async () => {
		const { sdk, pool, entries } = setup();
		await runLease(await pool.acquire(request([system, user("q1")]), watch()));
		const dir = sdk.agents[0]?.storeDir ?? "";
		expect(existsSync(dir)).toBe(true);
		expect(entries).toEqual([]);
		pool.invalidate();
		expect(sdk.agents[0]?.closed).toBe(true);
		await runLease(await pool.acquire(request([system, user("q2")]), watch()));
		expect(sdk.agents[1]?.storeDir).toBe(dir);
		pool.shutdown();
		expect(existsSync(dir)).toBe(false);
		expect(sdk.agents[1]?.closed).toBe(true);
	});

	test("persisted sessions: a resume entry after every finished turn, store kept on invalidate", async () => {
		const { sdk, pool, entries } = setup();
		const storeDir = join(tempDir(), "pi-sessions", "abc");
		pool.bind({ storeDir, resume: undefined });
		const [t1, t2] = turns(2);
		await runLease(await pool.acquire(request(t1 ?? []), watch()));
		await runLease(await pool.acquire(request(t2 ?? []), watch()));
		expect(entries.map((e) => e.customType)).toEqual([RESUME_ENTRY_TYPE, RESUME_ENTRY_TYPE]);
		const last = entries[1]?.data as ResumeHandle;
		expect(last).toMatchObject({ agentId: "fake-agent-1", storeDir, coverage: { count: 4, incrementalSends: 1 } });
		pool.invalidate();
		expect(existsSync(storeDir)).toBe(true);
		expect(sdk.agents[0]?.closed).toBe(true);
	});

	test("an error or abort drops the agent: the next turn bootstraps a new one", async () => {
		const { sdk, pool } = setup();
		const [t1, t2, t3] = turns(3);
		await runLease(await pool.acquire(request(t1 ?? []), watch()));
		const lease = await pool.acquire(request(t2 ?? []), watch());
		await (await lease.agent.send(lease.prompt.text)).wait();
		await lease.release("aborted");
		await runLease(await pool.acquire(request(t3 ?? []), watch()));
		expect(sdk.agents.map((a) => [a.agentId, a.closed])).toEqual([
			["fake-agent-1", true],
			["fake-agent-2", false],
		]);
		expect(sdk.sends[2]?.text).toContain("<pi_instructions>");
	});

	test("a different model or API key recreates the agent (bootstrap); the same ones keep it", async () => {
		const { sdk, pool } = setup();
		const [t1, t2, t3, t4] = turns(4);
		await runLease(await pool.acquire(request(t1 ?? []), watch()));
		await runLease(
			await pool.acquire(request(t2 ?? [], { baseModelId: "gpt-5.5", selection: { id: "gpt-5.5" } }), watch()),
		);
		await runLease(
			await pool.acquire(request(t3 ?? [], { baseModelId: "gpt-5.5", selection: { id: "gpt-5.5" } }), watch()),
		);
		await runLease(
			await pool.acquire(
				request(t4 ?? [], { apiKey: "key_b", baseModelId: "gpt-5.5", selection: { id: "gpt-5.5" } }),
				watch(),
			),
		);
		expect(sdk.sends.map((s) => [s.agentId, s.text.includes("<pi_instructions>")])).toEqual([
			["fake-agent-1", true],
			["fake-agent-2", true],
			["fake-agent-2", false],
			["fake-agent-3", true],
		]);
	});

	test("after 20 incremental sends the 22nd turn bootstraps a new agent", async () => {
		const { sdk, pool } = setup();
		for (const messages of turns(23)) await runLease(await pool.acquire(request(messages), watch()));
		const bootstraps = sdk.sends.filter((s) => s.text.includes("<pi_instructions>")).map((s) => s.agentId);
		expect(bootstraps).toEqual(["fake-agent-1", "fake-agent-2"]);
		expect(sdk.sends.filter((s) => s.agentId === "fake-agent-1")).toHaveLength(21);
	});

	test("resume: a valid handle continues the same agent incrementally", async () => {
		const { sdk, pool, notices } = setup();
		const storeDir = join(tempDir(), "store");
		pool.bind({ storeDir, resume: undefined });
		const [t1, t2] = turns(2);
		const entries: ResumeHandle[] = [];
		const first = new SessionAgentPool(sdk, {
			appendEntry: (_t, data) => entries.push(data as ResumeHandle),
			notify: () => {},
		});
		first.bind({ storeDir, resume: undefined });
		await runLease(await first.acquire(request(t1 ?? []), watch()));
		first.shutdown();

		pool.bind({ storeDir, resume: entries.at(-1) });
		await runLease(await pool.acquire(request(t2 ?? []), watch()));
		expect(sdk.agents.map((a) => [a.agentId, a.origin])).toEqual([
			["fake-agent-1", "create"],
			["fake-agent-1", "resume"],
		]);
		expect(sdk.sends[1]?.text).not.toContain("<pi_instructions>");
		expect(notices).toEqual([]);
	});

	test("resume: an unknown agent → notice, then a bootstrap on a new agent", async () => {
		const { sdk, pool, notices } = setup();
		const [, t2] = turns(2);
		const messages = t2 ?? [];
		const handle: ResumeHandle = {
			agentId: "gone",
			storeDir: tempDir(),
			coverage: coverageOf(pool.poolKey(request(messages)), messages.slice(0, 2), 0),
		};
		pool.bind({ storeDir: handle.storeDir, resume: handle });
		await runLease(await pool.acquire(request(messages), watch()));
		expect(notices).toHaveLength(1);
		expect(notices[0]).toStartWith("Could not resume the previous Cursor conversation");
		expect(sdk.agents.map((a) => [a.agentId, a.origin])).toEqual([["fake-agent-1", "create"]]);
		expect(sdk.sends[0]?.text).toContain("<pi_instructions>");
	});

	test("resume: a handle for another pool key (model changed) is not resumed and not reported", async () => {
		const { sdk, pool, notices } = setup();
		sdk.resumable.add("old-agent");
		const [, t2] = turns(2);
		const handle: ResumeHandle = {
			agentId: "old-agent",
			storeDir: tempDir(),
			coverage: { poolKey: "other", count: 2, fingerprint: "f", instructions: "i", incrementalSends: 0 },
		};
		pool.bind({ storeDir: handle.storeDir, resume: handle });
		await runLease(await pool.acquire(request(t2 ?? []), watch()));
		expect(sdk.agents.map((a) => a.origin)).toEqual(["create"]);
		expect(notices).toEqual([]);
	});

	test("resume: a handle from another session's store (fork, clone) is not resumed: bootstrap, no notice", async () => {
		const { sdk, pool, notices } = setup();
		const [, t2] = turns(2);
		const messages = t2 ?? [];
		sdk.resumable.add("donor-agent");
		const handle: ResumeHandle = {
			agentId: "donor-agent",
			storeDir: tempDir(), // the donor session's store
			coverage: coverageOf(pool.poolKey(request(messages)), messages.slice(0, 2), 0),
		};
		pool.bind({ storeDir: join(tempDir(), "fork-store"), resume: handle });
		await runLease(await pool.acquire(request(messages), watch()));
		expect(sdk.agents.map((a) => [a.agentId, a.origin])).toEqual([["fake-agent-1", "create"]]);
		expect(sdk.sends[0]?.text).toContain("<pi_instructions>");
		expect(notices).toEqual([]);
	});

	test("summaries: a fresh tool-less agent on its own ephemeral store; the pooled agent is untouched", async () => {
		const { sdk, pool } = setup();
		const [t1, t2] = turns(2);
		await runLease(await pool.acquire(request(t1 ?? []), watch()));
		const summary = await pool.acquireForSummary(request([system, user("summarize this")], { mode: "plan" }), watch());
		const record = sdk.agents[1];
		expect(record?.options).toMatchObject({ mode: "agent", tools: [] });
		expect(record?.options.local?.settingSources).toEqual([]);
		expect(record?.storeDir).toBeUndefined(); // nothing on disk
		expect(sdk.ephemeralStores).toBe(1);
		expect(sdk.opened).toHaveLength(1); // only the session store
		expect(summary.prompt.text).toContain("<pi_instructions>");
		expect(summary.prompt.text).not.toContain("<cursor_tool_boundary>");
		expect(summary.prompt.text).not.toContain(TOOL_TAIL_GUARD);
		await runLease(summary);
		expect(record?.closed).toBe(true);
		await runLease(await pool.acquire(request(t2 ?? []), watch()));
		expect(sdk.sends.at(-1)).toMatchObject({ agentId: "fake-agent-1", index: 2 });
	});

	test("busy: a turn waits for the previous run's release instead of sending on a busy agent", async () => {
		const { sdk, pool } = setup();
		sdk.script = (send) => (send.index === 1 ? [{ delay: 150 }, { text: "slow" }] : [{ text: "fast" }]);
		const [t1, t2] = turns(2);
		const first = await pool.acquire(request(t1 ?? []), watch());
		const run = await first.agent.send(first.prompt.text);
		let secondAcquired = false;
		const second = pool.acquire(request(t2 ?? []), watch()).then((lease) => {
			secondAcquired = true;
			return lease;
		});
		await new Promise((r) => setTimeout(r, 50));
		expect(secondAcquired).toBe(false);
		await run.wait();
		await first.release("finished");
		await runLease(await second);
		expect(sdk.sends.map((s) => [s.agentId, s.status])).toEqual([
			["fake-agent-1", "finished"],
			["fake-agent-1", "finished"],
		]);
	});

	test("busy: Pi's abort ends the wait for the previous run at once, and the claim stays with the running turn", async () => {
		const { sdk, pool } = setup();
		sdk.script = (send) => (send.agentId === "fake-agent-1" ? [{ hang: true }] : [{ text: "ok" }]);
		const [t1, t2, t3] = turns(3);
		const first = await pool.acquire(request(t1 ?? []), watch());
		const run = await first.agent.send(first.prompt.text);
		const abort = new AbortController();
		const waiting = pool.acquire(request(t2 ?? []), watch(abort.signal));
		await new Promise((r) => setTimeout(r, 30));
		const abortedAt = Date.now();
		abort.abort();
		await expect(waiting).rejects.toBeInstanceOf(TurnEnded);
		expect(Date.now() - abortedAt).toBeLessThan(100);
		// The aborted waiter never held the claim: the next turn still waits for the first one.
		let thirdAcquired = false;
		const third = pool.acquire(request(t3 ?? []), watch()).then((lease) => {
			thirdAcquired = true;
			return lease;
		});
		await new Promise((r) => setTimeout(r, 30));
		expect(thirdAcquired).toBe(false);
		await run.cancel();
		await first.release("aborted");
		await runLease(await third);
		expect(sdk.sends.map((s) => s.status)).toEqual(["cancelled", "finished"]);
	});

	test("busy: concurrent acquisitions queue one behind the other (never two runs at once, no leaked agent)", async () => {
		const { sdk, pool } = setup();
		sdk.script = () => [{ delay: 30 }, { text: "ok" }];
		const [t1] = turns(1);
		await Promise.all([0, 1, 2].map(async () => runLease(await pool.acquire(request(t1 ?? []), watch()))));
		expect(sdk.sends).toHaveLength(3);
		expect(sdk.sends.every((s) => s.status === "finished")).toBe(true);
		expect(sdk.maxRunning).toBe(1);
		// each replaced agent was closed (the same messages three times diverge, so each turn bootstraps)
		expect(sdk.agents.map((a) => a.closed)).toEqual([true, true, false]);
	});

	test("busy: a run that never ends is abandoned after the busy wait; its late release does not free the new turn", async () => {
		const { sdk, pool } = setup({ busyWaitMs: 300 });
		sdk.script = (send) => (send.agentId === "fake-agent-1" ? [{ hang: true }] : [{ delay: 100 }, { text: "ok" }]);
		const [t1, t2, t3] = turns(3);
		const stuck = await pool.acquire(request(t1 ?? []), watch());
		await stuck.agent.send(stuck.prompt.text);
		const second = await pool.acquire(request(t2 ?? []), watch()); // after ~300 ms: the stuck agent is replaced
		expect(sdk.agents[0]?.closed).toBe(true);
		expect(second.agent.agentId).toBe("fake-agent-2");
		const secondRun = await second.agent.send(second.prompt.text);
		await stuck.release("aborted"); // the abandoned turn ends late
		let thirdAcquired = false;
		const third = pool.acquire(request(t3 ?? []), watch()).then((lease) => {
			thirdAcquired = true;
			return lease;
		});
		await new Promise((r) => setTimeout(r, 40));
		expect(thirdAcquired).toBe(false); // still waiting for the second turn
		await secondRun.wait();
		await second.release("finished");
		await runLease(await third);
		expect(sdk.sends.map((s) => [s.agentId, s.status])).toEqual([
			["fake-agent-1", "cancelled"],
			["fake-agent-2", "finished"],
			["fake-agent-2", "finished"],
		]);
	});

	test("a failed createAgent releases the claim; shutdown leaves no temporary store", async () => {
		const { sdk, pool } = setup();
		const before = sdk.agents.length;
		const original = sdk.createAgent.bind(sdk);
		let dir: string | undefined;
		sdk.createAgent = async (store) => {
			dir = store.dir;
			throw new Error("[unauthenticated] bad key");
		};
		await expect(pool.acquire(request([system, user("q1")]), watch())).rejects.toThrow("bad key");
		expect(dir).toBeString();
		sdk.createAgent = original;
		await runLease(await pool.acquire(request([system, user("q1")]), watch()));
		expect(sdk.agents.length).toBe(before + 1);
		pool.shutdown();
		expect(existsSync(dir ?? "")).toBe(false);
	});
});
