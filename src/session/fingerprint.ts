// Fingerprints of what a Cursor conversation already knows, so a follow-up can send only what is new.
import { createHash } from "node:crypto";
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

/** A stable digest of the conversation (system instructions are fingerprinted separately). */
export function conversationFingerprint(messages: readonly Message[]): string {
	const hash = createHash("sha256");
	for (const message of messages) {
		const projected = projection(message);
		if (projected !== undefined) hash.update(`${JSON.stringify(projected)}\n`);
	}
	return hash.digest("hex").slice(0, 32);
}

export function instructionsFingerprint(messages: readonly Message[]): string {
	return createHash("sha256").update(getCurrentSystemPrompt(messages)).digest("hex").slice(0, 32);
}
