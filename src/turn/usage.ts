import { type AssistantMessage, calculateCost, type Model, type Usage } from "@earendil-works/pi-ai";
import { estimateContentTokens, estimatedUsage, implausibility, type UsageEstimateReason } from "../usage/estimate.ts";

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

/** The usage Pi is given for a message, and why it is an estimate when it is one. */
export interface TrustedUsage {
	usage: Usage;
	estimated?: UsageEstimateReason;
}

/**
 * The usage Pi can trust for `message`: Cursor's report mapped (see {@link mapTurnUsage}) when it can describe this
 * model's context; else an estimate from the prompt (`promptTokens`) and the answer. A missing report is estimated only
 * when `estimateMissing` (a message that ended normally); a failed one keeps zeros, which Pi estimates itself.
 */
export function trustedTurnUsage(
	raw: CursorTurnUsage | undefined,
	model: Model<string>,
	promptTokens: number,
	message: Pick<AssistantMessage, "content">,
	estimateMissing: boolean,
): TrustedUsage {
	// A report of no input at all is no report: every prompt has tokens.
	const reported = raw && count(raw.inputTokens) > 0 ? raw : undefined;
	const reason = reported
		? implausibility(reported, model.contextWindow)
		: estimateMissing
			? "not reported"
			: undefined;
	if (!reason) return { usage: raw ? mapTurnUsage(raw, model) : emptyUsage() };
	const answered = raw ? count(raw.outputTokens) : 0;
	// A report's output stays when it could be one (at most the model's output limit); else the answer is measured.
	const output =
		answered > 0 && answered <= (model.maxTokens || answered) ? answered : estimateContentTokens(message.content);
	const usage: Usage = { ...emptyUsage(), ...estimatedUsage(promptTokens, output) };
	calculateCost(model, usage);
	return { usage, estimated: reason };
}
