// Fingerprints of what a Cursor conversation already knows: stable for equal content, sensitive to what Cursor saw.
import { describe, expect, test } from "bun:test";
import type { AssistantMessage, Message } from "@earendil-works/pi-ai";
import { conversationFingerprint, instructionsFingerprint } from "../../src/session/fingerprint.ts";

const usage = (n: number): AssistantMessage["usage"] => ({
	input: n,
	output: n,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 2 * n,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});

function conversation(overrides: { timestamp?: number; usage?: number; thinking?: string } = {}): Message[] {
	const t = overrides.timestamp ?? 1;
	return [
		{ role: "system", content: "You are Pi.", timestamp: t },
		{
			role: "user",
			content: [
				{ type: "text", text: "look" },
				{ type: "image", data: "AAAA", mimeType: "image/png" },
			],
			timestamp: t,
		},
		{
			role: "assistant",
			content: [
				{ type: "thinking", thinking: overrides.thinking ?? "hmm" },
				{ type: "text", text: "Reading." },
				{ type: "toolCall", id: "call-1", name: "read", arguments: { path: "a.ts" } },
			],
			api: "cursor-sdk",
			provider: "cursor",
			model: "composer-2",
			usage: usage(overrides.usage ?? 1),
			stopReason: "stop",
			timestamp: t,
		},
		{
			role: "toolResult",
			toolCallId: "call-1",
			toolName: "read",
			content: [{ type: "text", text: "body" }],
			isError: false,
			timestamp: t,
		},
		{ role: "user", content: "plain string content", timestamp: t },
	];
}

describe("conversationFingerprint", () => {
	test("is a 32-hex digest, equal for equal content (deterministic across calls and copies)", () => {
		const a = conversationFingerprint(conversation());
		expect(a).toMatch(/^[0-9a-f]{32}$/);
		expect(conversationFingerprint(conversation())).toBe(a);
		expect(conversationFingerprint(structuredClone(conversation()))).toBe(a);
	});

	test("ignores timestamps, usage, thinking text and system messages", () => {
		const a = conversationFingerprint(conversation());
		expect(conversationFingerprint(conversation({ timestamp: 42 }))).toBe(a);
		expect(conversationFingerprint(conversation({ usage: 9 }))).toBe(a);
		expect(conversationFingerprint(conversation({ thinking: "other reasoning" }))).toBe(a);
		const withoutSystem = conversation().filter((m) => m.role !== "system");
		expect(conversationFingerprint(withoutSystem)).toBe(a);
		const otherSystem = conversation().map((m) => (m.role === "system" ? { ...m, content: "Different." } : m));
		expect(conversationFingerprint(otherSystem as Message[])).toBe(a);
	});

	test("changes when text, tool calls, tool results, images or the order change", () => {
		const a = conversationFingerprint(conversation());
		const variants: ((m: Message[]) => void)[] = [
			(m) => {
				(m[1] as { content: { type: string; text?: string }[] }).content[0] = { type: "text", text: "LOOK" };
			},
			(m) => {
				const call = (m[2] as AssistantMessage).content[2] as { arguments: Record<string, unknown> };
				call.arguments = { path: "b.ts" };
			},
			(m) => {
				(m[3] as { isError: boolean }).isError = true;
			},
			(m) => {
				(m[3] as { content: { type: string; text: string }[] }).content = [{ type: "text", text: "other" }];
			},
			(m) => {
				(m[1] as { content: { type: string; data?: string }[] }).content[1] = {
					type: "image",
					data: "AAAAAAAA",
					mimeType: "image/png",
				} as never;
			},
			(m) => {
				m.reverse();
			},
			(m) => {
				m.pop();
			},
		];
		const seen = new Set([a]);
		for (const change of variants) {
			const messages = conversation();
			change(messages);
			const fp = conversationFingerprint(messages);
			expect(seen.has(fp)).toBe(false);
			seen.add(fp);
		}
	});

	test("message boundaries matter (no collisions by concatenation)", () => {
		const one: Message[] = [{ role: "user", content: "ab", timestamp: 1 }];
		const two: Message[] = [
			{ role: "user", content: "a", timestamp: 1 },
			{ role: "user", content: "b", timestamp: 1 },
		];
		expect(conversationFingerprint(one)).not.toBe(conversationFingerprint(two));
		expect(conversationFingerprint([])).toBe(conversationFingerprint([]));
	});
});

describe("instructionsFingerprint", () => {
	test("follows the current system prompt only", () => {
		const a = instructionsFingerprint(conversation());
		expect(a).toMatch(/^[0-9a-f]{32}$/);
		expect(instructionsFingerprint(conversation({ timestamp: 5 }))).toBe(a);
		const changed = conversation().map((m) => (m.role === "system" ? { ...m, content: "You are Pi 2." } : m));
		expect(instructionsFingerprint(changed as Message[])).not.toBe(a);
		// conversation content does not change it
		expect(instructionsFingerprint(conversation().slice(0, 2))).toBe(a);
	});

	test("later system messages patch sections by name (Pi 1.6 transcript deltas)", () => {
		const sys = (sections: Record<string, string | null>): Message => ({
			role: "system",
			content: "",
			sections,
			timestamp: 0,
		});
		const patched = [sys({ preamble: "A", tools: "T1" }), ...conversation().slice(1), sys({ tools: "T2" })];
		expect(instructionsFingerprint(patched)).toBe(instructionsFingerprint([sys({ preamble: "A", tools: "T2" })]));
		const same = [sys({ preamble: "A", tools: "T1" }), ...conversation().slice(1), sys({ tools: "T1" })];
		expect(instructionsFingerprint(same)).toBe(instructionsFingerprint([sys({ preamble: "A", tools: "T1" })]));
	});
});
