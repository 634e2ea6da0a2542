// The provider entry's pure step: one request (model row, Pi's options, the effective settings, the environment)
// becomes one immutable turn setup, or the reason the turn cannot run. Nothing here reads a file or the environment.
import type { SimpleStreamOptions } from "@earendil-works/pi-ai";
import type { ResolvedRow } from "../catalog/state.ts";
import type { CursorError } from "../sdk/errors.ts";
import { buildModelSelection } from "../selection.ts";
import { type EffectiveSettingsInput, parseFastForceFlags, resolveEffectiveSettings } from "../settings/effective.ts";
import type { CursorEnv } from "../settings/env.ts";
import { resolveSafety, safetyAgentOptions } from "../settings/safety.ts";
import type { TurnSetup } from "./types.ts";

export interface TurnSetupInput {
	/** Pi's model id (`cursor/<id>` without the provider). */
	readonly modelId: string;
	/** The catalog row of `modelId`; undefined for an id the catalog does not know. */
	readonly row: ResolvedRow | undefined;
	readonly options: Pick<SimpleStreamOptions, "apiKey" | "reasoning"> | undefined;
	/** Everything the precedence rules read (model, flags, session state, user and project config, env). */
	readonly settings: EffectiveSettingsInput;
	readonly env: CursorEnv;
	readonly subagents: TurnSetup["subagents"];
	readonly summary: boolean;
}

const configuration = (message: string): CursorError => ({ kind: "configuration", message });

/**
 * A cloud agent works on Cursor's machines and may be quiet for many minutes (cloning, builds, long tests): the local
 * first-response and idle deadlines do not apply. Its send request gets a minute to be accepted; after that, Cursor
 * may stay silent for up to a little over the SDK's own 2 h wait.
 */
export const CLOUD_BOUNDS = {
	sendMs: 60_000,
	timeouts: { firstResponseMs: 2 * 60 * 60_000 + 5 * 60_000, idleMs: 2 * 60 * 60_000 + 5 * 60_000 },
} as const;

/** The first invalid `--cursor-*` flag (or runtime setting), as a message naming the valid values. */
export function flagError(settings: EffectiveSettingsInput): string | undefined {
	const fastFlags = parseFastForceFlags(settings.flags);
	if (!fastFlags.ok) return fastFlags.error;
	const { mode, runtime } = resolveEffectiveSettings(settings);
	if (!mode.ok) return mode.error;
	return runtime.ok ? undefined : runtime.error;
}

/**
 * A cloud turn's selection: Cursor Cloud has no fast control (the footer says `fast:n/a`), so neither a forced value,
 * a `:fast`/`:slow` row nor the catalog variant's own `fast` is sent.
 */
function withoutFast(row: ResolvedRow, level: SimpleStreamOptions["reasoning"]): TurnSetup["selection"] {
	const built = buildModelSelection({ ...row.meta, forcedFast: undefined }, row.item, level, undefined);
	return { ...built, params: built.params?.filter((param) => param.id !== "fast") };
}

export function resolveTurnSetup(input: TurnSetupInput): TurnSetup | CursorError {
	const { row, settings, env } = input;
	if (!row) {
		return configuration(
			`Unknown Cursor model "cursor/${input.modelId}". Run \`pi --list-models cursor\` to list valid ids, or /cursor-refresh-models to update the catalog.`,
		);
	}
	const apiKey = input.options?.apiKey?.trim();
	if (!apiKey) {
		return {
			kind: "auth",
			message: "No Cursor API key: set CURSOR_API_KEY or run /login → Cursor (account sign-in or API key).",
		};
	}
	const invalidFlag = flagError(settings);
	if (invalidFlag) return configuration(invalidFlag);
	if (!env.settingSources.ok) return configuration(env.settingSources.error);
	const effective = resolveEffectiveSettings(settings);
	const fast = effective.fast.kind === "value" ? effective.fast.fast : undefined;
	const safety = resolveSafety({ ...settings, user: settings.config, project: settings.projectConfig });
	const runtime = effective.runtime.ok && !input.summary ? effective.runtime.runtime : "local";
	const local = { firstResponseMs: env.firstResponseTimeoutMs, idleMs: env.streamIdleTimeoutMs };
	return {
		apiKey,
		runtime,
		baseModelId: row.meta.baseId,
		selection:
			runtime === "cloud"
				? withoutFast(row, input.options?.reasoning)
				: buildModelSelection(row.meta, row.item, input.options?.reasoning, fast),
		mode: effective.mode.ok ? effective.mode.mode : "agent",
		...(runtime === "cloud" ? CLOUD_BOUNDS : { timeouts: local }),
		liveRunIdleMs: env.liveRunIdleDisposeMs,
		settingSources: env.settingSources.sources,
		http1: effective.http.useHttp1,
		safety: safetyAgentOptions(safety),
		subagents: input.subagents,
		summary: input.summary,
		bridgeEnv: {
			piToolBridge: env.piToolBridge,
			exposeBuiltinTools: env.exposeBuiltinTools,
			exposeBuiltinToolsUnderSafety: env.exposeBuiltinToolsUnderSafety,
			toolManifest: env.toolManifest,
			bridgeDebug: env.bridgeDebug,
			bridgeCallTimeoutMs: env.bridgeCallTimeoutMs,
			problems: env.problems,
		},
		taskWording: env.taskPresentation,
	};
}
