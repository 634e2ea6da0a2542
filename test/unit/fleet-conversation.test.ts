// `/cursor-cloud show`'s conversation text: what the user asked and what Cursor answered, bounded and scrubbed.
import { describe, expect, test } from "bun:test";
import {
	CONVERSATION_MAX_CHARS,
	conversationText,
	ENTRY_MAX_CHARS,
	type RunConversation,
} from "../../src/fleet/conversation.ts";
import type { CloudConversationEntry } from "../../src/sdk/cursor-sdk.ts";
import { oldestFirst } from "../../src/sdk/run-order.ts";
import { fc, nastyString, PropertyTarget } from "../support/property.ts";

const KEY = "key_live_0123456789abcdef0123456789";

describe("the conversation of a cloud agent's runs", () => {
	test("runs oldest first; the user's messages and Cursor's answers; tool calls and shell commands in brief; no thinking", () => {
		const runs: RunConversation[] = [
			{
				runId: "run-1",
				status: "finished",
				entries: [
					{ kind: "user", text: "Fix the login test" },
					{ kind: "thinking", text: "Let me look at the private reasoning." },
					{ kind: "assistant", text: "Looking. " },
					{ kind: "assistant", text: "Fixed it." },
				],
			},
			{
				runId: "run-2",
				status: "error",
				entries: [
					{ kind: "user", text: "Run the tests" },
					{ kind: "tool", name: "shell", detail: "npm test" },
					{ kind: "shell", command: "git push", exitCode: 1 },
				],
			},
			{ runId: "run-3", status: "running", missing: "still running: /cursor-cloud follow bc-1" },
		];
		expect(conversationText(runs, [])).toBe(
			[
				"Conversation (3 runs):",
				"── run run-1 (finished)",
				"You: Fix the login test",
				"Cursor: Looking. Fixed it.",
				"── run run-2 (error)",
				"You: Run the tests",
				"  [shell] npm test",
				"  $ git push (exit 1)",
				"── run run-3 (running)",
				"  (still running: /cursor-cloud follow bc-1)",
			].join("\n"),
		);
		expect(conversationText([], [])).toBe("Conversation: none yet.");
		expect(conversationText([{ runId: "r", status: "finished", entries: [] }], [])).toContain("(no messages)");
	});

	test("the key and credentials Cursor's text may carry are redacted", () => {
		const entries: CloudConversationEntry[] = [
			{ kind: "assistant", text: `Used ${KEY} and https://bob:hunter2@github.com/acme/app.git` },
			{ kind: "shell", command: `curl -H "Authorization: Bearer ${KEY}" https://x` },
		];
		const text = conversationText([{ runId: "r", status: "finished", entries }], [KEY]);
		expect(text).not.toContain(KEY);
		expect(text).not.toContain("hunter2");
		expect(text).toContain("[redacted]");
	});

	test("a long conversation keeps its newest part and says how much was left out; one long message is cut", () => {
		const long = "x".repeat(ENTRY_MAX_CHARS * 3);
		const runs: RunConversation[] = Array.from({ length: 5 }, (_, i) => ({
			runId: `run-${i}`,
			status: "finished",
			entries: [
				{ kind: "user", text: `question ${i}` },
				{ kind: "assistant", text: `${long} answer ${i}` },
			],
		}));
		const text = conversationText(runs, []);
		expect(text.length).toBeLessThanOrEqual(CONVERSATION_MAX_CHARS + 100);
		expect(text).toMatch(/^Conversation \(5 runs\):\n {2}… \d+ earlier line\(s\) not shown\n/);
		expect(text).toContain("question 4");
		expect(text).not.toContain("question 0");
		// Each message is cut at ENTRY_MAX_CHARS, so its own end ("answer n") is not shown.
		expect(text).not.toContain("answer 4");
	});

	test("property: any text from Cursor stays bounded, without control characters (but line breaks and tabs) or the key", async () => {
		const target = new PropertyTarget("fleet-conversation-text");
		const text = fc.oneof(
			nastyString,
			nastyString.map((s) => `${s}${KEY}${s}`),
		);
		const entry: fc.Arbitrary<CloudConversationEntry> = fc.oneof(
			fc.record({ kind: fc.constantFrom("user" as const, "assistant" as const, "thinking" as const), text }),
			fc.record({ kind: fc.constant("tool" as const), name: text, detail: text }),
			fc.record({ kind: fc.constant("shell" as const), command: text, exitCode: fc.integer() }),
		);
		const run = fc.record({
			runId: text,
			status: text,
			entries: fc.array(entry, { maxLength: 30 }),
		});
		await target.check(
			fc.property(fc.array(run, { maxLength: 6 }), fc.integer({ min: 50, max: 4000 }), (runs, max) => {
				const out = conversationText(runs, [KEY], max);
				expect(/[^\P{Cc}\n\t]/u.test(out)).toBe(false);
				expect(out).not.toContain(KEY);
				expect(out.length).toBeLessThanOrEqual(max + 120);
				return true;
			}),
			300,
		);
		target.report();
	});
});

describe("the order of an agent's runs", () => {
	test("oldest first whatever order Cursor lists them in; as listed when a run has no creation time", () => {
		const runs = [
			{ id: "c", createdAt: 30 },
			{ id: "a", createdAt: 10 },
			{ id: "b", createdAt: 20 },
		];
		expect(oldestFirst(runs).map((r) => r.id)).toEqual(["a", "b", "c"]);
		expect(runs.map((r) => r.id)).toEqual(["c", "a", "b"]);
		const partly = [{ id: "c", createdAt: 30 }, { id: "a" }, { id: "b", createdAt: Number.NaN }];
		expect(oldestFirst(partly).map((r) => r.id)).toEqual(["c", "a", "b"]);
	});
});
