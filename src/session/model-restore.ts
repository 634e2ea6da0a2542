// Pi 0.87.1 through 1.6.0 can start a session with no model at all although a Cursor key is set. Registering our
// provider starts a model refresh that Pi does not await, beside the one it does; when the unawaited one reaches
// its availability check last, Pi discards the awaited check as stale and picks the session's model while no
// extension's provider counts as configured. A resumed session's Cursor model is then "not restorable", and a new
// session finds no model to default to. Once that check has settled, `session_start` makes the choice Pi would have
// made, when it falls on a Cursor model, with the thinking level Pi would have given it (a `--thinking` on the
// command line first: Pi applied it to no model, so the session shows only "off").
import type { ModelThinkingLevel } from "@earendil-works/pi-ai";
import { PROVIDER_ID } from "../catalog/state.ts";
import { PI_THINKING_LEVELS } from "../catalog/thinking-map.ts";
import { isRecord } from "../settings/plain-data.ts";

/** Pi's thinking level for a new session when its settings name none (Pi's DEFAULT_THINKING_LEVEL). */
const PI_DEFAULT_THINKING: ModelThinkingLevel = "medium";

interface ModelRef {
	readonly provider: string;
	readonly modelId: string;
}

/** Pi's start-up inputs, once its availability check has settled. */
export interface PiStart {
	/** The session's entries, root → leaf (empty for a new session). */
	readonly branch: readonly unknown[];
	/** The settings' default model (`defaultProvider`/`defaultModel`), if both are set. */
	readonly defaultModel: ModelRef | undefined;
	/** The settings' thinking level for a model: its own (`modelThinkingLevels`), else `defaultThinkingLevel`. */
	readonly thinkingFor: (ref: ModelRef) => string | undefined;
	/** The settings' `defaultThinkingLevel` (a resumed session without a recorded level takes it, as in Pi). */
	readonly defaultThinking?: string;
	/** The command line's `--thinking` (see {@link cliThinkingLevel}): it wins over any other level, as in Pi. */
	readonly cliThinking?: string;
	/** The models Pi may use (a key is configured), in Pi's order. */
	readonly available: readonly { provider: string; id: string }[];
}

export interface ModelChoice {
	readonly modelId: string;
	readonly thinkingLevel: ModelThinkingLevel;
}

const thinkingLevel = (value: unknown): ModelThinkingLevel | undefined => PI_THINKING_LEVELS.find((l) => l === value);

/** The model a branch recorded, read as Pi reads it on resume: the last `model_change` or assistant message. */
export function recordedModel(branch: readonly unknown[]): ModelRef | undefined {
	let model: { provider: unknown; modelId: unknown } | undefined;
	for (const entry of branch) {
		if (!isRecord(entry)) continue;
		if (entry.type === "model_change") {
			model = { provider: entry.provider, modelId: entry.modelId };
		} else if (entry.type === "message" && isRecord(entry.message) && entry.message.role === "assistant") {
			model = { provider: entry.message.provider, modelId: entry.message.model };
		}
	}
	if (typeof model?.provider !== "string" || typeof model.modelId !== "string") return undefined;
	return { provider: model.provider, modelId: model.modelId };
}

/** Pi's `--thinking <level>` in the process arguments (the last valid one wins, as in Pi's parser). */
export function cliThinkingLevel(argv: readonly string[]): ModelThinkingLevel | undefined {
	let level: ModelThinkingLevel | undefined;
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === "--") break;
		if (argv[i] === "--thinking" && i + 1 < argv.length) level = thinkingLevel(argv[++i]) ?? level;
	}
	return level;
}

/** Entries that give a session context, so that Pi resumes it rather than starting it anew. */
const CONTEXT_ENTRIES = new Set(["message", "custom_message", "compaction", "branch_summary"]);

/**
 * Pi's choice of a starting model, when it is a Cursor model: for a resumed session the one it recorded, else the
 * settings' default, else the first model Pi may use; each counts only if Pi may use it. The thinking level, as Pi's
 * createAgentSession gives it: the command line's `--thinking`; else for a resumed session the level it recorded
 * (whichever model is picked), else the settings' default level; else for a new session the settings' level for
 * that model; else Pi's default.
 */
export function cursorModelPiWouldPick(start: PiStart): ModelChoice | undefined {
	const resumed = start.branch.some((entry) => isRecord(entry) && CONTEXT_ENTRIES.has(String(entry.type)));
	const recorded = resumed ? recordedModel(start.branch) : undefined;
	const first = start.available[0];
	const usable = (ref: ModelRef | undefined): ref is ModelRef =>
		ref !== undefined && start.available.some((m) => m.provider === ref.provider && m.id === ref.modelId);
	const pick = [recorded, start.defaultModel, first && { provider: first.provider, modelId: first.id }].find(usable);
	if (pick?.provider !== PROVIDER_ID) return undefined;
	const level =
		thinkingLevel(start.cliThinking) ??
		(resumed
			? (recordedLevel(start.branch) ?? thinkingLevel(start.defaultThinking))
			: thinkingLevel(start.thinkingFor(pick))) ??
		PI_DEFAULT_THINKING;
	return { modelId: pick.modelId, thinkingLevel: level };
}

/** The last thinking level a branch recorded that Pi knows (`thinking_level_change`), whatever model it names. */
export function recordedLevel(branch: readonly unknown[]): ModelThinkingLevel | undefined {
	let level: ModelThinkingLevel | undefined;
	for (const entry of branch) {
		if (isRecord(entry) && entry.type === "thinking_level_change") level = thinkingLevel(entry.thinkingLevel) ?? level;
	}
	return level;
}
