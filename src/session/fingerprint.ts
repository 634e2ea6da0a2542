// Fingerprints of what a Cursor conversation already knows, so a follow-up can send only what is new.
import { createHash, type Hash } from "node:crypto";
import { getCurrentSystemPrompt, type Message } from "@earendil-works/pi-ai";

function projection(message: Message): unknown {
	switch (message.role) {
		case "system":
			return undefined;
		case "user":
			return [
				"u",
				typeof message.content === "string"
					? message.content
					: message.content.map((p) => (p.type === "text" ? p.text : `image:${p.mimeType}:${p.data.length}`)),
			];
		case "assistant":
			return [
				"a",
				message.content.map((p) =>
					p.type === "text" ? p.text : p.type === "toolCall" ? ["tool", p.id, p.name, p.arguments] : null,
				),
			];
		case "toolResult":
			return [
				"t",
				message.toolCallId,
				message.isError,
				message.content.map((p) => (p.type === "text" ? p.text : p.type)),
			];
	}
}

function hashMessage(hash: Hash, message: Message): void {
	const projected = projection(message);
	if (projected !== undefined) hash.update(`${JSON.stringify(projected)}\n`);
}

/** A stable digest of the conversation (system instructions are fingerprinted separately). */
export function conversationFingerprint(messages: readonly Message[]): string {
	const hash = createHash("sha256");
	for (const message of messages) hashMessage(hash, message);
	return hash.digest("hex").slice(0, 32);
}

type Part = {
	type: string;
	text?: string;
	mimeType?: string;
	data?: string;
	id?: string;
	name?: string;
	arguments?: unknown;
};

/** Whether two content parts project the same (see `projection`): compared as values, without serializing them. */
function samePart(a: Part, b: Part): boolean {
	if (a === b) return true;
	if (a.type !== b.type) return false;
	switch (a.type) {
		case "text":
			return a.text === b.text;
		case "toolCall":
			return (
				a.id === b.id &&
				a.name === b.name &&
				(a.arguments === b.arguments || JSON.stringify(a.arguments) === JSON.stringify(b.arguments))
			);
		default:
			// An image projects as its type, MIME type and size; a part without them (thinking) as nothing or its type.
			return a.mimeType === b.mimeType && a.data?.length === b.data?.length;
	}
}

/**
 * Whether two messages project the same, compared as values (Pi rebuilds its messages every turn, so the objects
 * differ): string comparisons instead of serializing and hashing megabytes.
 */
function sameProjection(a: Message, b: Message): boolean {
	if (a === b) return true;
	if (a.role !== b.role) return false;
	if (a.role === "system") return true;
	if (
		a.role === "toolResult" &&
		(b.role !== "toolResult" || a.toolCallId !== b.toolCallId || a.isError !== b.isError)
	) {
		return false;
	}
	const [x, y] = [a.content, b.content] as unknown[];
	if (typeof x === "string" || typeof y === "string") return x === y;
	if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
	return x.every((part, i) => samePart(part as Part, y[i] as Part));
}

/**
 * {@link conversationFingerprint} for one growing conversation. It keeps the hash state after each message it saw
 * last; a call whose messages start with the same messages (see {@link sameProjection}) resumes from the state after
 * them and hashes only the rest. A long session's follow-up then costs its new messages, not the whole transcript
 * (megabytes of tool output) twice a turn.
 */
export class ConversationFingerprints {
	private seen: readonly Message[] = [];
	/** `states[i]`: the hash after `seen[0..i)`. */
	private states: Hash[] = [createHash("sha256")];
	/** Messages hashed so far (for tests: how much work the calls did). */
	hashed = 0;

	of(messages: readonly Message[]): string {
		let shared = 0;
		while (
			shared < this.seen.length &&
			shared < messages.length &&
			sameProjection(messages[shared] as Message, this.seen[shared] as Message)
		) {
			shared++;
		}
		const states = this.states.slice(0, shared + 1);
		for (let i = shared; i < messages.length; i++) {
			const next = (states[i] as Hash).copy();
			hashMessage(next, messages[i] as Message);
			states.push(next);
		}
		this.hashed += messages.length - shared;
		this.seen = [...messages];
		this.states = states;
		return (states[messages.length] as Hash).copy().digest("hex").slice(0, 32);
	}
}

export function instructionsFingerprint(messages: readonly Message[]): string {
	return createHash("sha256").update(getCurrentSystemPrompt(messages)).digest("hex").slice(0, 32);
}
