// A pooled agent fingerprints its conversation incrementally (src/session/fingerprint.ts): whatever Pi hands over turn
// after turn (the same messages rebuilt as new objects, a longer conversation, an edited or shorter one), the digest
// is the one the whole conversation hashed from scratch gives, so a changed conversation is never mistaken for the
// covered one; and a conversation that only grew is hashed only from where it grew.
import { afterAll, expect, test } from "bun:test";
import type { Message } from "@earendil-works/pi-ai";
import { ConversationFingerprints, conversationFingerprint } from "../../src/session/fingerprint.ts";
import { fc, PropertyTarget } from "../support/property.ts";

const target = new PropertyTarget("conversation-fingerprint");
afterAll(() => target.report());

const text = fc.string({ maxLength: 12 });
const message: fc.Arbitrary<Message> = fc.oneof(
	fc.record({ role: fc.constant("user"), content: text, timestamp: fc.constant(0) }),
	fc.record({
		role: fc.constant("user"),
		content: fc.array(
			fc.oneof(
				fc.record({ type: fc.constant("text"), text }),
				fc.record({ type: fc.constant("image"), mimeType: fc.constantFrom("image/png", "image/jpeg"), data: text }),
			),
			{ maxLength: 3 },
		),
		timestamp: fc.constant(0),
	}),
	fc.record({
		role: fc.constant("assistant"),
		content: fc.array(
			fc.oneof(
				fc.record({ type: fc.constant("text"), text }),
				fc.record({ type: fc.constant("thinking"), thinking: text }),
				fc.record({
					type: fc.constant("toolCall"),
					id: fc.constantFrom("c1", "c2"),
					name: fc.constantFrom("read", "bash"),
					arguments: fc.dictionary(fc.constantFrom("path", "command"), text),
				}),
			),
			{ maxLength: 3 },
		),
	}),
	fc.record({
		role: fc.constant("toolResult"),
		toolCallId: fc.constantFrom("c1", "c2"),
		toolName: fc.constant("read"),
		isError: fc.boolean(),
		content: fc.array(fc.record({ type: fc.constant("text"), text }), { maxLength: 2 }),
		timestamp: fc.constant(0),
	}),
) as fc.Arbitrary<Message>;

type Step =
	| { kind: "grow"; added: Message[] }
	| { kind: "rebuild" }
	| { kind: "edit"; at: number; replacement: Message }
	| { kind: "cut"; at: number };

const step: fc.Arbitrary<Step> = fc.oneof(
	fc.record({ kind: fc.constant("grow" as const), added: fc.array(message, { minLength: 1, maxLength: 3 }) }),
	fc.record({ kind: fc.constant("rebuild" as const) }),
	fc.record({ kind: fc.constant("edit" as const), at: fc.nat(), replacement: message }),
	fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
);

test("the incremental digest always equals the digest from scratch", async () => {
	await target.check(
		fc.property(fc.array(message, { maxLength: 6 }), fc.array(step, { maxLength: 12 }), (start, steps) => {
			const fingerprints = new ConversationFingerprints();
			let messages = start;
			expect(fingerprints.of(messages)).toBe(conversationFingerprint(messages));
			for (const s of steps) {
				if (s.kind === "grow") messages = [...messages, ...s.added];
				else if (s.kind === "rebuild")
					messages = structuredClone(messages); // what Pi does every turn
				else if (s.kind === "edit" && messages.length > 0) {
					messages = messages.map((m, i) => (i === s.at % messages.length ? s.replacement : m));
				} else if (s.kind === "cut") messages = messages.slice(0, s.at % (messages.length + 1));
				const before = fingerprints.hashed;
				expect(fingerprints.of(messages)).toBe(conversationFingerprint(messages));
				if (s.kind === "rebuild") expect(fingerprints.hashed).toBe(before); // nothing new: nothing hashed
				if (s.kind === "grow") expect(fingerprints.hashed - before).toBeLessThanOrEqual(s.added.length);
			}
		}),
		500,
	);
});
