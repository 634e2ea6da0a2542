// One Pi AgentSession in process with the fake SDK: compaction and tree summaries use fresh tool-less agents on
// ephemeral stores and force a bootstrap afterwards; abort + immediate re-prompt and steering never surface
// "already has active run"; follow-ups fingerprint only what is new.
import { afterEach, describe, expect, test } from "bun:test";
import { TOOL_TAIL_GUARD } from "../../src/prompt/transcript.ts";
import { ConversationFingerprints } from "../../src/session/fingerprint.ts";
import { defaultScript, FakeCursorSdk, type FakeSend, latestRequest } from "../support/fake-sdk.ts";
import { createHarnessSession, type HarnessSession } from "../support/harness.ts";

const open: HarnessSession[] = [];
async function session(sdk: FakeCursorSdk, settings?: Record<string, unknown>): Promise<HarnessSession> {
	const s = await createHarnessSession({ sdk, settings });
	open.push(s);
	return s;
}
afterEach(async () => {
	for (const s of open.splice(0)) await s.close();
});

const isBootstrap = (send: FakeSend) => send.text.includes("<pi_instructions>");
const isSummary = (send: FakeSend) => send.text.includes("context summarization assistant");
const storeOf = (sdk: FakeCursorSdk, agentId: string) => sdk.agents.find((a) => a.agentId === agentId)?.storeDir ?? "";

function expectSummaryAgents(sdk: FakeCursorSdk, summaries: FakeSend[], mainAgents: string[]): void {
	expect(summaries.length).toBeGreaterThan(0);
	for (const send of summaries) {
		expect(mainAgents).not.toContain(send.agentId);
		const record = sdk.agents.find((a) => a.agentId === send.agentId);
		expect(record?.options.tools).toEqual([]);
		expect(record?.options.mode).toBe("agent");
		expect(record?.options.local?.settingSources).toEqual([]);
		expect(record?.closed).toBe(true);
		expect(storeOf(sdk, send.agentId)).toBe(""); // an ephemeral store: nothing on disk
		expect(send.text).toContain("<pi_instructions>");
		expect(send.text).not.toContain("<cursor_tool_boundary>");
		expect(send.text).not.toContain(TOOL_TAIL_GUARD);
	}
	expect(new Set(summaries.map((s) => s.agentId)).size).toBe(summaries.length); // one fresh agent each
	expect(sdk.ephemeralStores).toBe(summaries.length); // on a store of its own
}

describe("session lifecycle with a pooled agent", () => {
	test("follow-ups hash only their new messages: Pi rebuilds its messages from the same parts every turn", async () => {
		const calls: { total: number; hashed: number }[] = [];
		const of = ConversationFingerprints.prototype.of;
		ConversationFingerprints.prototype.of = function (this: ConversationFingerprints, messages) {
			const before = this.hashed;
			const digest = of.call(this, messages);
			calls.push({ total: messages.length, hashed: this.hashed - before });
			return digest;
		};
		try {
			const sdk = new FakeCursorSdk();
			const h = await session(sdk);
			for (let i = 1; i <= 6; i++) await h.session.prompt(`turn ${i}`);
			const pooled = sdk.sends[0]?.agentId;
			expect(sdk.sends.map((s) => s.agentId)).toEqual(Array(6).fill(pooled)); // one conversation, 5 follow-ups
			// Each turn: the plan (the covered prefix) then the new coverage after the answer.
			const late = calls.slice(4);
			expect(late.length).toBeGreaterThanOrEqual(6);
			for (const call of late) expect(call.hashed).toBeLessThanOrEqual(2); // a user message and Cursor's reply
			expect(late.at(-1)?.total).toBeGreaterThanOrEqual(11);
			expect(h.errorMessages()).toEqual([]);
		} finally {
			ConversationFingerprints.prototype.of = of;
		}
	});

	test("compaction: summaries on fresh tool-less agents, then a bootstrap on a new pooled agent", async () => {
		const sdk = new FakeCursorSdk();
		const h = await session(sdk, { compaction: { keepRecentTokens: 1 } });
		await h.session.prompt("turn one");
		await h.session.prompt("turn two");
		const pooled = sdk.sends[0]?.agentId ?? "";
		expect(sdk.sends.map((s) => s.agentId)).toEqual([pooled, pooled]);

		await h.session.compact();
		const summaries = sdk.sends.slice(2).filter(isSummary);
		expect(sdk.sends.slice(2)).toEqual(summaries);
		expectSummaryAgents(sdk, summaries, [pooled]);
		expect(sdk.agents.find((a) => a.agentId === pooled)?.closed).toBe(true); // session_compact invalidated it

		await h.session.prompt("turn three");
		await h.session.prompt("turn four");
		const [three, four] = sdk.sends.slice(-2);
		expect(three && isBootstrap(three)).toBe(true);
		expect(three?.agentId).not.toBe(pooled);
		expect(summaries.map((s) => s.agentId)).not.toContain(three?.agentId);
		expect(four).toMatchObject({ agentId: three?.agentId, index: 2 });
		expect(four && isBootstrap(four)).toBe(false);
		expect(h.errorMessages()).toEqual([]);
	});

	test("tree navigation with a summary: branch summary on a fresh agent, then a bootstrap on a new agent", async () => {
		const sdk = new FakeCursorSdk();
		const h = await session(sdk);
		await h.session.prompt("turn one");
		await h.session.prompt("turn two");
		await h.session.prompt("turn three");
		const pooled = sdk.sends[0]?.agentId ?? "";
		const firstReply = h.session.sessionManager
			.getBranch()
			.find((e) => e.type === "message" && e.message.role === "assistant");
		if (!firstReply) throw new Error("no assistant entry");

		const result = await h.session.navigateTree(firstReply.id, { summarize: true });
		expect(result.cancelled).toBe(false);
		expect(result.summaryEntry).toBeDefined();
		const summaries = sdk.sends.slice(3); // everything navigateTree sent
		expectSummaryAgents(sdk, summaries, [pooled]);
		expect(sdk.agents.find((a) => a.agentId === pooled)?.closed).toBe(true); // session_tree invalidated it

		await h.session.prompt("turn on the new branch");
		const next = sdk.sends.at(-1);
		expect(next && isBootstrap(next)).toBe(true);
		expect(next?.text).toContain("turn on the new branch");
		expect(next?.text).not.toContain("turn three"); // the abandoned branch is not replayed
		expect([pooled, ...summaries.map((s) => s.agentId)]).not.toContain(next?.agentId);
		expect(h.errorMessages()).toEqual([]);
	});

	test("abort, then an immediate prompt: a new agent answers at once while the old run cancels, no busy error", async () => {
		const sdk = new FakeCursorSdk();
		sdk.cancelLatencyMs = 300; // the cancelled run keeps its agent busy for a while
		sdk.script = (send) =>
			latestRequest(send.text) === "please hang" ? [{ text: "partial" }, { hang: true }] : defaultScript(send);
		const h = await session(sdk);
		await h.session.prompt("turn one");
		const mark = h.events.length;
		const hanging = h.session.prompt("please hang");
		await waitFor(() => h.events.slice(mark).some((e) => e.type === "message_update"));
		await h.session.abort();
		await hanging;
		await h.session.prompt("after the abort");

		const [one, hang, after] = sdk.sends;
		expect(after?.status).toBe("finished");
		expect(after?.agentId).not.toBe(one?.agentId); // after an abort the conversation state is unknown
		expect(after && isBootstrap(after)).toBe(true);
		await waitFor(() => hang?.status === "cancelled"); // cancelled in the background, on its own (closed) agent
		expect(hang?.agentId).toBe(one?.agentId);
		expect(h.errorMessages()).toEqual([]);
		const stops = h.events
			.filter((e) => e.type === "message_end" && e.message.role === "assistant")
			.map((e) => (e as { message: { stopReason: string } }).message.stopReason);
		expect(stops).toEqual(["stop", "aborted", "stop"]);
		expect(JSON.stringify(h.events)).not.toContain("already has active run");
	});

	test("steering mid-run: delivered after the run as an incremental send on the same agent", async () => {
		const sdk = new FakeCursorSdk();
		sdk.script = (send) =>
			latestRequest(send.text) === "slow one"
				? [{ text: "OLD-1 " }, { delay: 200 }, { text: "OLD-2" }, { turnEnded: { inputTokens: 1, outputTokens: 1 } }]
				: defaultScript(send);
		const h = await session(sdk);
		const running = h.session.prompt("slow one");
		await waitFor(() => h.events.some((e) => e.type === "message_update"));
		await h.session.steer("STEER: change course");
		await running;
		await h.session.agent.waitForIdle?.();

		expect(sdk.sends).toHaveLength(2);
		const [first, steer] = sdk.sends;
		expect(steer).toMatchObject({ agentId: first?.agentId, index: 2, status: "finished" });
		expect(steer?.text).toContain("<latest_user_request>\nSTEER: change course\n</latest_user_request>");
		expect(steer && isBootstrap(steer)).toBe(false);
		// none of the old run's output after the steering message
		const steerAt = h.events.findIndex(
			(e) => e.type === "message_start" && e.message.role === "user" && JSON.stringify(e.message).includes("STEER"),
		);
		expect(steerAt).toBeGreaterThan(0);
		const later = h.events
			.slice(steerAt)
			.filter((e) => e.type === "message_update" || (e.type === "message_end" && e.message.role === "assistant"));
		expect(later.length).toBeGreaterThan(0);
		for (const e of later) {
			const text =
				e.type === "message_update"
					? JSON.stringify(e.assistantMessageEvent)
					: JSON.stringify((e as { message: unknown }).message);
			expect(text).not.toContain("OLD-");
		}
		expect(h.errorMessages()).toEqual([]);
	});
});

async function waitFor(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!predicate()) {
		if (Date.now() > deadline) throw new Error("waitFor timed out");
		await new Promise((r) => setTimeout(r, 10));
	}
}
