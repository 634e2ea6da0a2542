import { expect, test } from "bun:test";
import { type AssistantMessageEvent, createAssistantMessageEventStream } from "@earendil-works/pi-ai";
import type { InteractionUpdate } from "../../src/sdk/cursor-sdk.ts";
import { TurnTranslator } from "../../src/turn/translate.ts";
import { DRIVER_MODEL } from "../support/turn-driver.ts";

const model = DRIVER_MODEL;

async function run(updates: InteractionUpdate[], end: (t: TurnTranslator) => void) {
	const out = createAssistantMessageEventStream();
	const translator = new TurnTranslator(out, model);
	translator.start();
	for (const update of updates) translator.update(update);
	end(translator);
	const events: AssistantMessageEvent[] = [];
	for await (const event of out) events.push(event);
	return { events, message: await out.result() };
}

const shape = (events: AssistantMessageEvent[]) =>
	events.map((e) => ("contentIndex" in e ? `${e.type}:${e.contentIndex}` : e.type));

test("thinking then text stream as balanced blocks, then done with usage", async () => {
	const { events, message } = await run(
		[
			{ type: "thinking-delta", text: "let me " },
			{ type: "thinking-delta", text: "think" },
			{ type: "thinking-completed", thinkingDurationMs: 5 },
			{ type: "text-delta", text: "Hello" },
			{ type: "text-delta", text: " world" },
			{ type: "turn-ended", usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 4, cacheWriteTokens: 0 } },
		],
		(t) => t.finish("Hello world"),
	);
	expect(shape(events)).toEqual([
		"start",
		"thinking_start:0",
		"thinking_delta:0",
		"thinking_delta:0",
		"thinking_end:0",
		"text_start:1",
		"text_delta:1",
		"text_delta:1",
		"text_end:1",
		"done",
	]);
	expect(message.content).toEqual([
		{ type: "thinking", thinking: "let me think" },
		{ type: "text", text: "Hello world" },
	]);
	expect(message.stopReason).toBe("stop");
	expect(message.usage).toMatchObject({ input: 6, cacheRead: 4, output: 2, totalTokens: 12 });
});

test("a tool call closes the open text block", async () => {
	const toolCall = { type: "shell", args: { command: "ls" } } as never;
	const { events, message } = await run(
		[
			{ type: "text-delta", text: "Looking" },
			{ type: "tool-call-started", callId: "c1", toolCall, modelCallId: "m1" } as InteractionUpdate,
			{ type: "tool-call-completed", callId: "c1", toolCall, modelCallId: "m1" } as InteractionUpdate,
			{ type: "text-delta", text: "Done" },
		],
		(t) => t.finish(),
	);
	expect(shape(events)).toEqual([
		"start",
		"text_start:0",
		"text_delta:0",
		"text_end:0",
		"text_start:1",
		"text_delta:1",
		"text_end:1",
		"done",
	]);
	expect(message.content.map((c) => (c.type === "text" ? c.text : c.type))).toEqual(["Looking", "Done"]);
});

test("toolUse ends the message with tool-call blocks; notes go to the thinking", async () => {
	const block = { type: "toolCall" as const, id: "cursor-replay-c1", name: "bash", arguments: { command: "ls" } };
	const { events, message } = await run([{ type: "text-delta", text: "Let me look" }], (t) => {
		t.note("Cursor shell: ls");
		t.toolUse([block]);
	});
	expect(shape(events)).toEqual([
		"start",
		"text_start:0",
		"text_delta:0",
		"text_end:0",
		"thinking_start:1",
		"thinking_delta:1",
		"thinking_end:1",
		"toolcall_start:2",
		"toolcall_delta:2",
		"toolcall_end:2",
		"done",
	]);
	expect(message.stopReason).toBe("toolUse");
	expect(message.content).toEqual([
		{ type: "text", text: "Let me look" },
		{ type: "thinking", thinking: "Cursor shell: ls\n" },
		block,
	]);
});

test("the run result is shown when no text streamed; empty deltas create no blocks", async () => {
	const { message } = await run([{ type: "text-delta", text: "" }], (t) => t.finish("final answer"));
	expect(message.content).toEqual([{ type: "text", text: "final answer" }]);
});

test("errors and aborts end with one terminal event and keep partial content", async () => {
	const failed = await run([{ type: "text-delta", text: "partial" }], (t) =>
		t.fail({ kind: "network", message: "Cursor connection failed: x. retry." }),
	);
	expect(shape(failed.events)).toEqual(["start", "text_start:0", "text_delta:0", "text_end:0", "error"]);
	expect(failed.message).toMatchObject({ stopReason: "error", errorMessage: "Cursor connection failed: x. retry." });
	const aborted = await run([], (t) => {
		t.fail({ kind: "aborted", message: "Request was aborted" });
		t.finish("late");
	});
	expect(shape(aborted.events)).toEqual(["start", "error"]);
	expect(aborted.message.stopReason).toBe("aborted");
});

test("updates after the end are ignored", async () => {
	const out = createAssistantMessageEventStream();
	const translator = new TurnTranslator(out, model);
	translator.start();
	translator.finish("x");
	translator.update({ type: "text-delta", text: "late" });
	expect(translator.message.content).toEqual([{ type: "text", text: "x" }]);
});
