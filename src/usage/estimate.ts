// Usage Pi can trust. Pi's context meter, its auto-compaction and its overflow check read each assistant message's
// usage; a report that cannot describe this model's context (cache tokens above the input, a total beyond the
// context window) or no report at all would make Pi compact for nothing or go blind. Then Pi gets an estimate made
// from the prompt, and the ledger keeps the raw report beside it, marked as estimated. Pure.
import { getCurrentSystemPrompt, type Message, type Usage } from "@earendil-works/pi-ai";

/** Characters per token of the estimate (Pi's own estimate uses the same ratio). */
const CHARS_PER_TOKEN = 4;
/** What one image counts for (Pi's estimate: 4800 characters). */
const IMAGE_CHARS = 4800;

/** Why a message's usage is an estimate. */
export const ESTIMATE_REASONS = ["not reported", "cache exceeds input", "exceeds the context window"] as const;
export type UsageEstimateReason = (typeof ESTIMATE_REASONS)[number];

/** `turn-ended` usage as the SDK reports it: `inputTokens` is the full prompt, cache tokens included. */
export interface ReportedUsage {
	inputTokens: number;
	outputTokens: number;
	cacheReadTokens: number;
	cacheWriteTokens: number;
	reasoningTokens?: number;
}

function blockChars(block: unknown): number {
	if (typeof block === "string") return block.length;
	if (typeof block !== "object" || block === null) return 0;
	const b = block as Record<string, unknown>;
	if (b.type === "image") return IMAGE_CHARS;
	if (typeof b.text === "string") return b.text.length;
	if (typeof b.thinking === "string") return b.thinking.length;
	return JSON.stringify(block)?.length ?? 0;
}

function contentChars(content: unknown): number {
	if (!Array.isArray(content)) return blockChars(content);
	let chars = 0;
	for (const block of content) chars += blockChars(block);
	return chars;
}

/** The tokens of a prompt (Pi's messages, its system prompt among them), estimated from its size. */
export function estimatePromptTokens(messages: readonly Message[]): number {
	let chars = getCurrentSystemPrompt(messages as Message[]).length;
	for (const message of messages) chars += contentChars((message as { content?: unknown }).content);
	return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** The tokens of an answer's content, estimated from its size. */
export function estimateContentTokens(content: Message["content"]): number {
	return Math.ceil(contentChars(content) / CHARS_PER_TOKEN);
}

const count = (n: unknown) => (typeof n === "number" && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);

/** Why a report cannot be the context of `contextWindow` (undefined: it can). */
export function implausibility(raw: ReportedUsage, contextWindow: number): UsageEstimateReason | undefined {
	const input = count(raw.inputTokens);
	if (count(raw.cacheReadTokens) + count(raw.cacheWriteTokens) > input) return "cache exceeds input";
	if (contextWindow > 0 && input + count(raw.outputTokens) > contextWindow) return "exceeds the context window";
	return undefined;
}

/** An estimated usage: the whole prompt as input, the answer as output (no cache split is guessed). */
export function estimatedUsage(promptTokens: number, outputTokens: number): Omit<Usage, "cost"> {
	const input = count(promptTokens);
	const output = count(outputTokens);
	return { input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output };
}
