// SessionAgentPool reopening a session whose last turn a crashed Pi left unfinished (a user message after the resume
// handle): with the agent's run still marked active and Cursor's conversation untouched by it, the same agent goes on
// and gets the interrupted message with the new one; in any other state a new agent gets the whole conversation.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@earendil-works/pi-ai";
import type { AgentRunState } from "../../src/sdk/cursor-sdk.ts";
import { SessionAgentPool } from "../../src/session/pool.ts";
import type { ResumeHandle } from "../../src/session/resume.ts";
import { INTERRUPTED_TURN_RECOVERED } from "../../src/session/stale-run.ts";
import { FakeCursorSdk, latestRequest } from "../support/fake-sdk.ts";
import { assistantMessage, systemMessage, userMessage } from "../support/messages.ts";
import { poolRequest, testWatch } from "../support/pool-request.ts";

const scratch: string[] = [];
const pools: SessionAgentPool[] = [];
afterEach(() => {
	for (const pool of pools.splice(0)) pool.shutdown();
	for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const first: Message[] = [systemMessage(), userMessage("q1")];
/** Pi's branch when the next Pi starts: the first turn, its reply, the crashed turn's prompt, then the new prompt. */
const reopened: Message[] = [...first, assistantMessage("a1"), userMessage("crashed prompt"), userMessage("q3")];

/** A session whose first turn finished (its resume handle recorded); then a new pool, as a restarted Pi. */
async function crashedSession(run: AgentRunState | undefined) {
	const storeDir = mkdtempSync(join(tmpdir(), "pool-interrupted-"));
	scratch.push(storeDir);
	const sdk = new FakeCursorSdk();
	const handles: ResumeHandle[] = [];
	const before = new SessionAgentPool(sdk, {
		appendEntry: (_t, data) => handles.push(data as ResumeHandle),
		notify() {},
	});
	before.bind({ storeDir, resume: undefined });
	const lease = await before.acquire(poolRequest(first), testWatch());
	await (await lease.agent.send(lease.prompt.text)).wait();
	await lease.release("finished");
	before.shutdown();
	if (run) sdk.runStates.set("fake-agent-1", run);
	const notices: string[] = [];
	const pool = new SessionAgentPool(sdk, { appendEntry() {}, notify: (m) => notices.push(m) });
	pools.push(pool);
	pool.bind({ storeDir, resume: handles.at(-1), interrupted: true });
	return { sdk, pool, notices, storeDir };
}

describe("an interrupted turn after the resume handle", () => {
	test("run still active, conversation untouched: the same agent, the interrupted and the new message once each", async () => {
		const { sdk, pool, notices } = await crashedSession({ kind: "active", conversationAdvanced: false });
		const lease = await pool.acquire(poolRequest(reopened), testWatch());
		expect(sdk.runStateQueries).toEqual(["fake-agent-1"]);
		expect(sdk.agents.map((a) => [a.agentId, a.origin])).toEqual([
			["fake-agent-1", "create"],
			["fake-agent-1", "resume"],
		]);
		expect(lease.kind).toBe("incremental");
		expect(lease.prompt.text).not.toContain("<pi_instructions>");
		expect(lease.prompt.text.split("crashed prompt")).toHaveLength(2);
		expect(latestRequest(lease.prompt.text)).toBe("q3");
		expect(lease.prompt.text).not.toContain("q1");
		// The send meets the run the crashed Pi left active: it may be expired, and the user is told once why.
		expect(lease.staleRunRecoverable?.()).toBe(true);
		expect(notices).toEqual([INTERRUPTED_TURN_RECOVERED]);
		await lease.release("finished");
	});

	for (const [name, run] of [
		[
			"Cursor's conversation moved during the run (it may hold the prompt)",
			{ kind: "active", conversationAdvanced: true },
		],
		["the run ended (its outcome may be in the conversation)", { kind: "idle" }],
		["the store does not know the agent", undefined],
	] as const) {
		test(`${name}: a new agent gets the whole conversation, nothing said`, async () => {
			const { sdk, pool, notices } = await crashedSession(run);
			const lease = await pool.acquire(poolRequest(reopened), testWatch());
			expect(sdk.agents.map((a) => [a.agentId, a.origin])).toEqual([
				["fake-agent-1", "create"],
				["fake-agent-2", "create"],
			]);
			expect(lease.kind).toBe("bootstrap");
			expect(lease.prompt.text.split("crashed prompt")).toHaveLength(2);
			expect(lease.prompt.text).toContain("q1");
			expect(notices).toEqual([]);
			await lease.release("finished");
		});
	}

	test("another live Pi holds the session (it may own the run): a new agent, as before", async () => {
		const { sdk, pool, storeDir } = await crashedSession({ kind: "active", conversationAdvanced: false });
		writeFileSync(join(storeDir, `pi-cursor-sdk-holder-${process.ppid}`), ""); // a live process that is not this one
		const lease = await pool.acquire(poolRequest(reopened), testWatch());
		expect(sdk.agents.map((a) => a.origin)).toEqual(["create", "create"]);
		expect(lease.kind).toBe("bootstrap");
		await lease.release("finished");
	});
});
