// SDK interaction updates in any order, duplicated, truncated or with wrong types, through one provider turn (the
// translator and the stream): Pi's stream ends with exactly one terminal event, the answer text is never duplicated
// or lost, and a malformed update never ends the turn; only how Cursor ended the run does.
import { afterAll, expect, test } from "bun:test";
import type { AssistantMessageEvent } from "@earendil-works/pi-ai";
import { anyJson, fc, nastyString, PropertyTarget, wrongTyped } from "../support/property.ts";
import { DRIVER_KEY, driveTurn, type RunEnd } from "../support/turn-driver.ts";

const target = new PropertyTarget("turn-stream");
afterAll(() => target.report());

const TOOL_TYPES = ["shell", "read", "grep", "glob", "ls", "edit", "write", "delete", "mcp", "task", "todo", "bogus"];
const callId = fc.oneof(fc.constantFrom("c1", "c2", "c3"), wrongTyped);
const toolCall = fc.oneof(
	fc.record(
		{
			type: fc.constantFrom(...TOOL_TYPES),
			args: fc.oneof(
				fc.record({ command: fc.string(), path: fc.string(), pattern: fc.string() }, { requiredKeys: [] }),
				wrongTyped,
			),
			result: fc.oneof(
				fc.record({ status: fc.constantFrom("success", "error"), value: anyJson }, { requiredKeys: [] }),
				wrongTyped,
			),
		},
		{ requiredKeys: [] },
	),
	wrongTyped,
);
const usage = fc.oneof(
	fc.record({
		inputTokens: fc.nat({ max: 100_000 }),
		outputTokens: fc.nat({ max: 100_000 }),
		cacheReadTokens: fc.nat({ max: 100_000 }),
		cacheWriteTokens: fc.nat({ max: 100_000 }),
	}),
	fc.record(
		{
			inputTokens: wrongTyped,
			outputTokens: wrongTyped,
			cacheReadTokens: wrongTyped,
			cacheWriteTokens: wrongTyped,
			reasoningTokens: wrongTyped,
		},
		{ requiredKeys: [] },
	),
	wrongTyped,
);
const text = fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom(" ", "\n", "é", "😀"));

/** Updates as the SDK documents them. */
const wellFormed = fc.oneof(
	{ weight: 4, arbitrary: text.map((t) => ({ type: "text-delta", text: t })) },
	{ weight: 2, arbitrary: text.map((t) => ({ type: "thinking-delta", text: t })) },
	fc.constant({ type: "thinking-completed", thinkingDurationMs: 5 }),
	fc.record({ type: fc.constant("tool-call-started"), callId, toolCall }),
	fc.record({ type: fc.constant("tool-call-completed"), callId, toolCall }),
	fc.record({
		type: fc.constant("shell-output-delta"),
		event: fc.oneof(
			fc.record({ case: fc.constantFrom("stdout", "stderr"), value: fc.record({ data: fc.string() }) }),
			wrongTyped,
		),
	}),
	fc.record({ type: fc.constant("turn-ended"), usage }),
	fc.record({ type: fc.constantFrom("step-started", "summary", "user-message-appended", "token-delta") }),
);

/** What a broken or newer SDK might hand over instead. */
const malformed = fc.oneof(
	wrongTyped,
	fc.record({ type: wrongTyped }),
	fc.record({ type: fc.constantFrom("text-delta", "thinking-delta"), text: wrongTyped }),
	fc.record({ type: fc.constantFrom("tool-call-started", "tool-call-completed") }),
	fc.record({ type: nastyString, text: nastyString }),
);

type Script = { updates: unknown[]; end: RunEnd };

/** A script: well-formed and malformed updates, then reordered, duplicated or truncated, and an ending. */
const script: fc.Arbitrary<Script> = fc
	.record({
		updates: fc.array(fc.oneof({ weight: 4, arbitrary: wellFormed }, { weight: 1, arbitrary: malformed }), {
			maxLength: 25,
		}),
		mangle: fc.constantFrom("none", "shuffle", "duplicate", "truncate"),
		seed: fc.nat(),
		end: fc.oneof(
			{
				weight: 4,
				arbitrary: fc.record({
					status: fc.constant("finished"),
					result: fc.option(fc.oneof(nastyString, wrongTyped), { nil: undefined }),
				}),
			},
			fc.record({ status: fc.constant("error"), error: fc.oneof(fc.record({ message: nastyString }), wrongTyped) }),
			fc.constant({ status: "cancelled" }),
			fc.record({ status: fc.oneof(nastyString, wrongTyped) }),
			fc.record({
				rejects: fc.oneof(
					nastyString.map((m) => new Error(m)),
					wrongTyped,
				),
			}),
		),
	})
	.map(({ updates, mangle, seed, end }) => {
		let list = [...updates];
		if (mangle === "shuffle")
			list.sort(
				(a, b) => (((JSON.stringify(a) ?? "").length * seed) % 7) - (((JSON.stringify(b) ?? "").length * seed) % 7),
			);
		if (mangle === "duplicate" && list.length > 0) list.splice(seed % list.length, 0, list[seed % list.length]);
		if (mangle === "truncate") list = list.slice(0, seed % (list.length + 1));
		const runEnd: RunEnd =
			"rejects" in end ? { rejects: end.rejects } : { result: { id: "run-driver", ...end } as never };
		return { updates: list, end: runEnd };
	});

const isTextDelta = (u: unknown): u is { type: "text-delta"; text: string } =>
	typeof u === "object" &&
	u !== null &&
	(u as { type?: unknown }).type === "text-delta" &&
	typeof (u as { text?: unknown }).text === "string";

/** The terminal event Pi must get: decided by how the run ended, never by the updates. */
function expectedTerminal(end: RunEnd): "stop" | "error" | "aborted" {
	if ("rejects" in end) return "error";
	const status = (end.result as { status?: unknown }).status;
	if (status === "finished") return "stop";
	return status === "cancelled" ? "aborted" : "error";
}

/** Balanced blocks: every start has its end before the terminal event, deltas only inside, one terminal, last. */
function checkShape(events: AssistantMessageEvent[]): void {
	expect(events[0]?.type).toBe("start");
	const terminals = events.filter((e) => e.type === "done" || e.type === "error");
	expect(terminals.length).toBe(1);
	expect(events.at(-1)).toBe(terminals[0] as AssistantMessageEvent);
	const open = new Map<number, string>();
	for (const event of events) {
		if (!("contentIndex" in event)) continue;
		const [kind, phase] = event.type.split("_") as [string, string];
		if (phase === "start") {
			expect(open.has(event.contentIndex)).toBe(false);
			open.set(event.contentIndex, kind);
		} else if (phase === "delta") {
			expect(open.get(event.contentIndex)).toBe(kind);
		} else {
			expect(open.get(event.contentIndex)).toBe(kind);
			open.delete(event.contentIndex);
		}
	}
	expect(open.size).toBe(0);
}

test("any sequence of updates: one terminal event, decided by the run; the text exactly once, in order", async () => {
	await target.check(
		fc.asyncProperty(script, async ({ updates, end }) => {
			const turn = await driveTurn(updates, end);
			checkShape(turn.events);
			const terminal = turn.events.at(-1) as AssistantMessageEvent;
			const reason = terminal.type === "done" ? terminal.reason : terminal.type === "error" ? terminal.reason : "none";
			expect({ reason, error: turn.message.errorMessage }).toMatchObject({ reason: expectedTerminal(end) });

			const streamed = updates.filter(isTextDelta).map((u) => u.text);
			const shown = turn.message.content.map((c) => (c.type === "text" ? c.text : "")).join("");
			const result = "result" in end ? (end.result as { result?: unknown }).result : undefined;
			const expectedText =
				streamed.join("") !== "" || reason !== "stop"
					? streamed.join("")
					: typeof result === "string" && result.trim() !== ""
						? result
						: "";
			expect(shown).toBe(expectedText);
			const deltas = turn.events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : [])).join("");
			expect(deltas).toBe(shown);

			const u = turn.message.usage;
			for (const n of [u.input, u.output, u.cacheRead, u.cacheWrite, u.totalTokens]) {
				expect(Number.isFinite(n) && n >= 0).toBe(true);
			}
			expect(u.totalTokens).toBe(u.input + u.cacheRead + u.cacheWrite + u.output);
			expect(JSON.stringify(turn.message)).not.toContain(DRIVER_KEY);
			expect(turn.released.length).toBe(1);
		}),
		2500,
	);
});

test("examples the properties found: malformed updates are ignored and the answer still arrives whole", async () => {
	const turn = await driveTurn(
		[
			{ type: "text-delta", text: "Hel" },
			null,
			{ type: "tool-call-completed" },
			{ type: "text-delta", text: 5 },
			{ type: "tool-call-started", callId: "", toolCall: {} },
			{ type: "turn-ended", usage: "many" },
			{ type: "text-delta", text: "lo" },
		],
		{ result: { id: "run-driver", status: "finished", result: 42 } as never },
	);
	expect(turn.events.at(-1)?.type).toBe("done");
	expect(turn.message.content).toEqual([{ type: "text", text: "Hello" }]);
	expect(turn.cancelled).toBe(false);
});
