import { calculateCost, type Model, type Usage } from "@earendil-works/pi-ai";

/** `turn-ended` usage as the SDK reports it: `inputTokens` is the full prompt, cache tokens included. */
export interface CursorTurnUsage {
	inputTokens: number;
	outputTokens: number;
	cacheReadTokens: number;
	cacheWriteTokens: number;
	reasoningTokens?: number;
}

export function emptyUsage(): Usage {
	return {
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
}

const count = (n: unknown) => (typeof n === "number" && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);

/**
 * Maps raw turn usage into Pi's disjoint components: `input` is the uncached part of the prompt, so
 * input + cacheRead + cacheWrite + output = totalTokens = inputTokens + outputTokens. (The SDK's own `totalTokens`
 * adds the cache tokens a second time.) Cost comes from the model's configured rates (zero unless models.json sets
 * them).
 */
export function mapTurnUsage(raw: CursorTurnUsage, model: Model<string>): Usage {
	const inputTokens = count(raw.inputTokens);
	const cacheRead = Math.min(count(raw.cacheReadTokens), inputTokens);
	const cacheWrite = Math.min(count(raw.cacheWriteTokens), inputTokens - cacheRead);
	const output = count(raw.outputTokens);
	const usage: Usage = {
		...emptyUsage(),
		input: inputTokens - cacheRead - cacheWrite,
		output,
		cacheRead,
		cacheWrite,
		totalTokens: inputTokens + output,
	};
	const reasoning = count(raw.reasoningTokens);
	if (reasoning > 0) usage.reasoning = reasoning;
	calculateCost(model, usage);
	return usage;
}
