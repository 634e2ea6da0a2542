// One Cursor run across several Pi provider turns, in a real Pi AgentSession with the fake SDK: tool batches end
// assistant messages as replay cards, Pi's results continue the same run (one send), the conversation stays
// incremental afterwards, steering joins the running run (or follows it on the same agent), and an abort during Pi's tool handling gives the run up.
import { afterEach, expect, test } from "bun:test";
import type { InteractionUpdate } from "../../src/sdk/cursor-sdk.ts";
import { defaultScript, FakeCursorSdk, type FakeStep, latestRequest } from "../support/fake-sdk.ts";
import { createHarnessSession, type HarnessSession } from "../support/harness.ts";

const open: HarnessSession[] = [];
afterEach(async () => {
	for (const s of open.splice(0)) await s.close();
});

async function session(sdk: FakeCursorSdk): Promise<HarnessSession> {
	const s = await createHarnessSession({ sdk, settings: { retry: { enabled: false } } });
	open.push(s);
	return s;
}

const readCall = (path: string) => ({
	type: "read",
	args: { path },
	result: { status: "success", value: { content: `contents of ${path}` } },
});
const tool = (phase: "started" | "completed", callId: string, toolCall: unknown): FakeStep => ({
	raw: {
		type: phase === "started" ? "tool-call-started" : "tool-call-completed",
		callId,
		toolCall,
	} as InteractionUpdate,
});
const readStep = (callId: string, path: string): FakeStep[] => [
	tool("started", callId, readCall(path)),
	tool("completed", callId, readCall(path)),
];

function assistantStops(h: HarnessSession): string[] {
	return h.session.state.messages
		.filter((m) => m.role === "assistant")
		.map((m) => (m as { stopReason: string }).stopReason);
}

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error("condition not met in time");
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}

test("two tool batches and an answer: three messages from one send; the next prompt is incremental", async () => {
	const sdk = new FakeCursorSdk();
	sdk.script = (send) =>
		latestRequest(send.text) === "tour"
			? [
					{ text: "Looking. " },
					...readStep("c1", "a.md"),
					{ thinking: "now b" },
					...readStep("c2", "b.md"),
					{ text: "Both read." },
					{ turnEnded: { inputTokens: 10, outputTokens: 3 } },
				]
			: defaultScript(send);
	const h = await session(sdk);
	await h.session.prompt("tour");
	expect(assistantStops(h)).toEqual(["toolUse", "toolUse", "stop"]);
	const results = h.session.state.messages.filter((m) => m.role === "toolResult");
	expect(results.map((r) => (r as { toolName: string }).toolName)).toEqual(["read", "read"]);
	expect(JSON.stringify(results[0])).toContain("contents of a.md");
	expect(sdk.sends).toHaveLength(1);
	expect(sdk.sends[0]?.status).toBe("finished");

	await h.session.prompt("next question");
	expect(sdk.sends).toHaveLength(2);
	expect(sdk.sends[1]?.agentId).toBe(sdk.sends[0]?.agentId);
	expect(sdk.sends[1]?.text).not.toContain("<pi_instructions>"); // incremental: Cursor already has the tool turns
	expect(sdk.sends[1]?.text).not.toContain("contents of a.md");
	expect(h.errorMessages()).toEqual([]);
});

/**
 * A "long job" whose run streams, reads a file and then plays `afterRead` (what Cursor does with the steer); `steer`
 * is sent once the run streams. Resolves when Pi is idle again.
 */
async function steerLongJob(afterRead: FakeStep[], steer: string) {
	const sdk = new FakeCursorSdk();
	sdk.script = (send) =>
		latestRequest(send.text) === "long job"
			? [{ text: "working" }, { delay: 200 }, ...readStep("c1", "a.md"), ...afterRead]
			: defaultScript(send);
	const h = await session(sdk);
	const running = h.session.prompt("long job");
	await waitFor(() => h.events.some((e) => e.type === "message_update"));
	// Pi delivers the steer after this message's tool batch: the context then ends with it, after the tool result.
	await h.session.steer(steer);
	await running;
	await h.session.agent.waitForIdle?.();
	return { sdk, h };
}

test("steering that arrives before a tool batch goes into the running run: one send, the run's work kept", async () => {
	const { sdk, h } = await steerLongJob(
		[
			{ steer: "complete_delivered" },
			{ text: " RUN TEXT AFTER THE STEER" },
			{ turnEnded: { inputTokens: 10, outputTokens: 3 } },
		],
		"STEER: different plan",
	);
	expect(sdk.sends).toHaveLength(1);
	expect(sdk.sends[0]?.status).toBe("finished");
	expect(sdk.sends[0]?.steers).toEqual([{ text: "STEER: different plan", outcome: "complete_delivered" }]);
	const shown = JSON.stringify(h.session.state.messages);
	expect(shown).toContain("steered: STEER: different plan RUN TEXT AFTER THE STEER");
	expect(h.errorMessages()).toEqual([]);
	// The steer is part of the agent's conversation: the next prompt is incremental and does not repeat it.
	await h.session.prompt("next");
	expect(sdk.sends[1]?.agentId).toBe(sdk.sends[0]?.agentId);
	expect(sdk.sends[1]?.text).not.toContain("STEER: different plan");
});

test("a steer Cursor reverts goes as a follow-up on the same agent after the run; one assistant message", async () => {
	const { sdk, h } = await steerLongJob(
		[{ steer: "revert_to_followup" }, { text: " first job done" }, { turnEnded: { inputTokens: 10, outputTokens: 3 } }],
		"STEER: and the tests",
	);
	expect(sdk.sends.map((s) => s.status)).toEqual(["finished", "finished"]);
	expect(sdk.sends[1]?.agentId).toBe(sdk.sends[0]?.agentId);
	expect(latestRequest(sdk.sends[1]?.text ?? "")).toBe("STEER: and the tests");
	expect(sdk.sends[1]?.text).not.toContain("<pi_instructions>");
	expect(assistantStops(h)).toEqual(["toolUse", "stop"]);
	const last = JSON.stringify(h.session.state.messages.at(-1));
	expect(last).toContain("first job done");
	expect(h.errorMessages()).toEqual([]);
});

test("a run that fails before taking the steer says so; the next send gives it to a new agent with the conversation", async () => {
	const { sdk, h } = await steerLongJob([{ delay: 50 }, { fail: "[internal] boom" }], "STEER: and the tests");
	expect(h.errorMessages().map((m) => m.errorMessage)).toEqual([
		"Cursor error: [internal] boom. Your steering message had not reached Cursor's turn: the next send gives it, with the whole conversation, to a new Cursor agent.",
	]);
	await h.session.prompt("go on");
	const last = sdk.sends.at(-1);
	expect(last?.agentId).not.toBe(sdk.sends[0]?.agentId);
	expect(last?.text).toContain("STEER: and the tests");
	expect(last?.text).toContain("<conversation_history>");
});

test("abort while Pi handles a tool batch: the turn ends aborted and the waiting run is cancelled", async () => {
	const sdk = new FakeCursorSdk();
	sdk.script = (send) =>
		send.agentId === "fake-agent-1" ? [...readStep("c1", "a.md"), { hang: true }] : defaultScript(send);
	const h = await session(sdk);
	const stop = h.session.subscribe((event) => {
		if (event.type === "tool_execution_end") void h.session.abort();
	});
	await h.session.prompt("work");
	stop();
	expect(assistantStops(h).at(-1)).toBe("aborted");
	expect(h.extension.pool.liveRun).toBeUndefined();
	await waitFor(() => sdk.sends[0]?.status === "cancelled");
	expect(sdk.agents[0]?.closed).toBe(true);
	await h.session.prompt("again");
	expect(assistantStops(h).at(-1)).toBe("stop");
});

test("PI_CURSOR_TASK_PRESENTATION=task titles Cursor's subagent calls 'Cursor task' (default 'Cursor subagent')", async () => {
	const taskCall = {
		type: "task",
		args: { description: "Audit deps", prompt: "check" },
		result: { status: "success", value: { conversationSteps: [] } },
	};
	const sdk = new FakeCursorSdk();
	sdk.script = (send) => [
		tool("started", `t${send.index}`, taskCall),
		tool("completed", `t${send.index}`, taskCall),
		{ text: "done" },
	];
	const h = await session(sdk);
	const titles = () =>
		h.session.state.messages.flatMap((m) =>
			m.role === "assistant"
				? m.content.flatMap((c) =>
						c.type === "toolCall" ? [(c.arguments as { activityTitle?: string }).activityTitle] : [],
					)
				: [],
		);
	await h.session.prompt("default wording");
	const saved = process.env.PI_CURSOR_TASK_PRESENTATION;
	process.env.PI_CURSOR_TASK_PRESENTATION = "task";
	try {
		await h.session.prompt("older wording");
	} finally {
		if (saved === undefined) delete process.env.PI_CURSOR_TASK_PRESENTATION;
		else process.env.PI_CURSOR_TASK_PRESENTATION = saved;
	}
	expect(titles()).toEqual(["Cursor subagent", "Cursor task"]);
});
