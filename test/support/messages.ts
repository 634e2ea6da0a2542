// Pi transcript messages (and a Cursor model row) for unit tests.
import type { AssistantMessage, Message, Model, SystemMessage, ToolResultMessage } from "@earendil-works/pi-ai";
import { emptyUsage } from "../../src/turn/usage.ts";

/** Pi ≥ 0.87 system messages: empty content and named sections; later ones patch sections by name. */
export const systemMessage = (preamble = "You are Pi."): SystemMessage => ({
	role: "system",
	content: "",
	sections: { preamble },
	timestamp: 0,
});

export const userMessage = (text: string): Message => ({
	role: "user",
	content: [{ type: "text", text }],
	timestamp: 1,
});

export const assistantMessage = (content: AssistantMessage["content"] | string, timestamp = 2): AssistantMessage => ({
	role: "assistant",
	content: typeof content === "string" ? [{ type: "text", text: content }] : content,
	api: "cursor-sdk",
	provider: "cursor",
	model: "composer-2",
	usage: emptyUsage(),
	stopReason: "stop",
	timestamp,
});

export const toolResultMessage = (id: string, text: string, isError = false): ToolResultMessage => ({
	role: "toolResult",
	toolCallId: id,
	toolName: "bash",
	content: [{ type: "text", text }],
	isError,
	timestamp: 3,
});

/** A Cursor model row as Pi hands it to the provider (no cost rates: costs stay zero). */
export const cursorModel: Model<string> = {
	id: "composer-2",
	name: "Composer 2",
	api: "cursor-sdk",
	provider: "cursor",
	baseUrl: "https://api.cursor.com",
	reasoning: true,
	input: ["text", "image"],
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
	contextWindow: 200_000,
	maxTokens: 64_000,
};
