/**
 * Pure precedence rules for Cursor-only settings (fast, SDK mode, local HTTP/1.1 transport, runtime) and the footer
 * status.
 *
 * A start flag (`--cursor-mode`, `--cursor-fast`/`--cursor-no-fast`, `--cursor-runtime`) sets where a run starts, as
 * Pi's `--model` does: it wins over what the session recorded before this run, and a command typed during the run
 * (`/cursor-mode`, `/cursor-plan build`, `/cursor-fast`, `/cursor-runtime`) wins over it for the rest of the run. A
 * flag is never recorded; a command records its session entry, so the next run without the flag starts there.
 *
 * The caller gathers everything into one plain {@link EffectiveSettingsInput} object from Pi (selected model,
 * `pi.getFlag`, restored session state, user config, the parsed environment) and gets plain values back.
 */

import type { Checked } from "./checked.ts";
import type { CursorSdkUserConfig } from "./config-schema.ts";
import type { CursorEnv } from "./env.ts";
import { parseBooleanSetting } from "./env-parse.ts";
import { type RuntimeResolution, resolveRuntime } from "./runtime.ts";
import { resolveSafety } from "./safety.ts";
import { CURSOR_MODES, type CursorMode, type CursorSessionState, isCursorMode } from "./session-state.ts";

/** What the extension knows about the selected model. */
export interface CursorModelInput {
	/** True when the active Pi model belongs to the `cursor` provider. */
	readonly isCursor: boolean;
	/** Selected SDK model id or alias (sent as `ModelSelection.id`; no `@context`, no `:fast`/`:slow`). */
	readonly selectionKey: string;
	/** Underlying catalog base id (older fast defaults may be keyed by it). */
	readonly baseId: string;
	/** True when the catalog exposes a boolean `fast` parameter for this model. */
	readonly fastCapable: boolean;
	/** `fast` value of the model's default catalog variant (`false` when omitted). */
	readonly catalogFastDefault?: boolean;
	/** `true` for a `:fast` virtual alias, `false` for `:slow`, `undefined` for the unsuffixed model. */
	readonly aliasForcedFast?: boolean;
}

/** Raw `pi.getFlag(...)` values (boolean flags are `true` when given). */
export interface CursorFlagsInput {
	/** `--cursor-fast` */
	readonly fast?: unknown;
	/** `--cursor-no-fast` */
	readonly noFast?: unknown;
	/** `--cursor-mode <agent|plan>` */
	readonly mode?: unknown;
	/** `--cursor-auto-review` */
	readonly autoReview?: unknown;
	/** `--cursor-sandbox` */
	readonly sandbox?: unknown;
	/** `--cursor-runtime <local|cloud>` */
	readonly runtime?: unknown;
}

/** The environment variables these rules read. */
export type EffectiveEnv = Pick<CursorEnv, "useHttp1" | "footer" | "autoReview" | "sandbox" | "runtime">;

export interface EffectiveSettingsInput {
	/** The active model; `undefined` or `isCursor: false` for non-Cursor models. */
	readonly model: CursorModelInput | undefined;
	readonly flags?: CursorFlagsInput;
	/** State restored from the current branch (see `restoreSessionState`), with this run's commands applied. */
	readonly session?: Partial<CursorSessionState>;
	/** What commands chose during this run (the session's entries since the run started): wins over the flags. */
	readonly run?: Partial<CursorSessionState>;
	/** The USER-level `cursor-sdk.json` settings (project config never takes part in the fast/mode/HTTP rules). */
	readonly config?: CursorSdkUserConfig;
	/** The trusted project `.pi/cursor-sdk.json` (the local safety controls and `runtime` read it). */
	readonly projectConfig?: CursorSdkUserConfig;
	/** The environment's settings (see `readEnv`); absent means every variable unset. */
	readonly env?: EffectiveEnv;
}

// ---------------------------------------------------------------------------------------------------------------
// Fast
// ---------------------------------------------------------------------------------------------------------------

export type FastSource = "alias" | "flag" | "session" | "global" | "global-base" | "catalog";

export interface FastValue {
	readonly kind: "value";
	readonly fast: boolean;
	readonly source: FastSource;
}

export type FastResolution =
	| FastValue
	| { readonly kind: "n/a" }
	/** Conflicting force flags. `fallback` is the value the flags would not have changed (used for status). */
	| { readonly kind: "error"; readonly message: string; readonly fallback: FastValue };

export type FastForceFlags =
	| { readonly ok: true; readonly force: boolean | undefined }
	| { readonly ok: false; readonly error: string };

export const FAST_FLAG_CONFLICT_MESSAGE = "--cursor-fast and --cursor-no-fast cannot be used together; pass only one.";

/** Validates `--cursor-fast` / `--cursor-no-fast`: one → forced value, none → `undefined`, both → error. */
export function parseFastForceFlags(flags: CursorFlagsInput | undefined): FastForceFlags {
	const fast = flags?.fast === true;
	const noFast = flags?.noFast === true;
	if (fast && noFast) return { ok: false, error: FAST_FLAG_CONFLICT_MESSAGE };
	return { ok: true, force: fast ? true : noFast ? false : undefined };
}

function ownBoolean(record: Readonly<Record<string, boolean>> | undefined, key: string): boolean | undefined {
	if (record === undefined || !Object.hasOwn(record, key)) return undefined;
	const value = record[key];
	return typeof value === "boolean" ? value : undefined;
}

/** Saved (non-forced) fast value: session for the selected key > global selected key > global base id > catalog. */
function savedFast(model: CursorModelInput, input: EffectiveSettingsInput): FastValue {
	const session = ownBoolean(input.session?.fast, model.selectionKey);
	if (session !== undefined) return { kind: "value", fast: session, source: "session" };
	const defaults = input.config?.fastDefaults;
	const global = ownBoolean(defaults, model.selectionKey);
	if (global !== undefined) return { kind: "value", fast: global, source: "global" };
	if (model.baseId !== model.selectionKey) {
		const base = ownBoolean(defaults, model.baseId);
		if (base !== undefined) return { kind: "value", fast: base, source: "global-base" };
	}
	return { kind: "value", fast: model.catalogFastDefault === true, source: "catalog" };
}

/**
 * Effective Cursor `fast`: `:fast`/`:slow` alias > this run's `/cursor-fast` for the selected key >
 * `--cursor-fast`/`--cursor-no-fast` > session state for the selected key > `fastDefaults[selectionKey]` >
 * `fastDefaults[baseId]` > catalog default. `n/a` for non-Cursor models and models without a `fast` parameter;
 * conflicting force flags give an error value.
 */
export function resolveFast(input: EffectiveSettingsInput): FastResolution {
	const model = input.model;
	if (model === undefined || !model.isCursor || !model.fastCapable) return { kind: "n/a" };
	const unforced: FastValue =
		model.aliasForcedFast === undefined
			? savedFast(model, input)
			: { kind: "value", fast: model.aliasForcedFast, source: "alias" };
	const flags = parseFastForceFlags(input.flags);
	if (!flags.ok) return { kind: "error", message: flags.error, fallback: unforced };
	if (unforced.source === "alias" || flags.force === undefined) return unforced;
	const chosen = ownBoolean(input.run?.fast, model.selectionKey);
	if (chosen !== undefined) return { kind: "value", fast: chosen, source: "session" };
	return { kind: "value", fast: flags.force, source: "flag" };
}

// ---------------------------------------------------------------------------------------------------------------
// Mode
// ---------------------------------------------------------------------------------------------------------------

export type ModeSource = "flag" | "session" | "default";

export interface ModeValue {
	readonly ok: true;
	readonly mode: CursorMode;
	readonly source: ModeSource;
}

/** An invalid `--cursor-mode` is an error; its `fallback` ignores the invalid override. */
export type ModeResolution = Checked<ModeValue>;

const VALID_MODES_TEXT = CURSOR_MODES.join(", ");

/** Validates `--cursor-mode`: unset/blank → `undefined`; exactly `agent`/`plan` (trimmed) → mode; else an error. */
export function parseCursorModeFlag(
	value: unknown,
): { readonly ok: true; readonly mode: CursorMode | undefined } | { readonly ok: false; readonly error: string } {
	if (value === undefined || value === null || value === false) return { ok: true, mode: undefined };
	if (typeof value === "string") {
		const trimmed = value.trim();
		if (trimmed === "") return { ok: true, mode: undefined };
		if (isCursorMode(trimmed)) return { ok: true, mode: trimmed };
		return { ok: false, error: `Invalid --cursor-mode value "${value}". Valid values: ${VALID_MODES_TEXT}.` };
	}
	return { ok: false, error: `Invalid --cursor-mode value. Valid values: ${VALID_MODES_TEXT}.` };
}

/**
 * Effective SDK mode: this run's `/cursor-mode` (or `/cursor-plan build`) > `--cursor-mode` > the session's mode >
 * `agent`. A command's choice also stands in for an invalid flag.
 */
export function resolveMode(input: EffectiveSettingsInput): ModeResolution {
	const chosen = input.run?.mode;
	if (isCursorMode(chosen)) return { ok: true, mode: chosen, source: "session" };
	const sessionMode = input.session?.mode;
	const fallback: ModeValue = isCursorMode(sessionMode)
		? { ok: true, mode: sessionMode, source: "session" }
		: { ok: true, mode: "agent", source: "default" };
	const flag = parseCursorModeFlag(input.flags?.mode);
	if (!flag.ok) return { ok: false, error: flag.error, fallback };
	return flag.mode === undefined ? fallback : { ok: true, mode: flag.mode, source: "flag" };
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP/1.1 transport
// ---------------------------------------------------------------------------------------------------------------

export type HttpSource = "session" | "env" | "user" | "default";

export interface HttpResolution {
	/** `true`/`false` are explicit choices; `undefined` means unset (make no `Cursor.configure()` call). */
	readonly useHttp1: boolean | undefined;
	readonly source: HttpSource;
}

/**
 * Effective local HTTP/1.1 transport: session > `PI_CURSOR_HTTP_1_1` > user `local.useHttp1ForAgent` > unset.
 * A cleared (`null`) session preference and an unrecognized env value fall through.
 */
export function resolveHttp1(input: EffectiveSettingsInput): HttpResolution {
	const session = input.session?.useHttp1;
	if (typeof session === "boolean") return { useHttp1: session, source: "session" };
	const env = input.env?.useHttp1;
	if (env !== undefined) return { useHttp1: env, source: "env" };
	const user = input.config?.local?.useHttp1ForAgent;
	if (typeof user === "boolean") return { useHttp1: user, source: "user" };
	return { useHttp1: undefined, source: "default" };
}

// ---------------------------------------------------------------------------------------------------------------
// Status
// ---------------------------------------------------------------------------------------------------------------

export const STATUS_KEY = "cursor";
const SEPARATOR = " · ";

export interface EffectiveSettings {
	readonly fast: FastResolution;
	readonly mode: ModeResolution;
	readonly http: HttpResolution;
	readonly runtime: RuntimeResolution;
	/** Text for `ctx.ui.setStatus("cursor", status)`; `undefined` clears it. */
	readonly status: string | undefined;
}

/** Whether `PI_CURSOR_FOOTER` allows the Cursor status (default on). */
export function isFooterEnabled(env: EffectiveEnv | undefined): boolean {
	return env?.footer ?? true;
}

/** The runtime rules (src/settings/runtime.ts) over this input. */
export function resolveRuntimeSetting(input: EffectiveSettingsInput): RuntimeResolution {
	return resolveRuntime({
		command: input.run?.runtime,
		flag: input.flags?.runtime,
		session: input.session?.runtime,
		env: input.env?.runtime,
		project: input.projectConfig?.runtime,
		user: input.config?.runtime,
	});
}

function statusText(
	input: EffectiveSettingsInput,
	fast: FastResolution,
	mode: ModeResolution,
	http: HttpResolution,
	runtimeSetting: RuntimeResolution,
) {
	if (input.model === undefined || !input.model.isCursor || !isFooterEnabled(input.env)) return undefined;
	const runtime = (runtimeSetting.ok ? runtimeSetting : runtimeSetting.fallback).runtime;
	const parts = [`cursor:${runtime}`];
	const fastValue = fast.kind === "error" ? fast.fallback : fast;
	parts.push(runtime === "local" && fastValue.kind === "value" ? `fast:${fastValue.fast ? "on" : "off"}` : "fast:n/a");
	if (runtime === "local" && http.useHttp1 === true) parts.push("http1");
	if (runtime === "local") {
		const safety = resolveSafety({
			flags: input.flags,
			env: input.env,
			project: input.projectConfig,
			user: input.config,
		});
		if (safety.autoReview) parts.push("review");
		if (safety.sandbox) parts.push("sandbox");
	}
	if ((mode.ok ? mode : mode.fallback).mode === "plan") parts.push("plan");
	return parts.join(SEPARATOR);
}

/**
 * Status text: `cursor:<local|cloud> · fast:<on|off|n/a>`, then ` · http1` (enabled local transport only), then
 * ` · review` / ` · sandbox` (enabled local safety controls), then ` · plan` (non-default mode only). Cloud always
 * shows `fast:n/a`. `undefined` for non-Cursor models or when `PI_CURSOR_FOOTER` is a false word.
 */
export function formatCursorStatus(input: EffectiveSettingsInput): string | undefined {
	return statusText(input, resolveFast(input), resolveMode(input), resolveHttp1(input), resolveRuntimeSetting(input));
}

/** Resolves fast, mode, HTTP/1.1, runtime and status in one call. */
export function resolveEffectiveSettings(input: EffectiveSettingsInput): EffectiveSettings {
	const fast = resolveFast(input);
	const mode = resolveMode(input);
	const http = resolveHttp1(input);
	const runtime = resolveRuntimeSetting(input);
	return { fast, mode, http, runtime, status: statusText(input, fast, mode, http, runtime) };
}

// ---------------------------------------------------------------------------------------------------------------
// Command planning helpers
// ---------------------------------------------------------------------------------------------------------------

export type FastTogglePlan =
	| { readonly kind: "not-cursor"; readonly message: string }
	| { readonly kind: "unsupported"; readonly message: string }
	| { readonly kind: "alias-selected"; readonly message: string }
	| { readonly kind: "invalid"; readonly message: string }
	| {
			readonly kind: "toggle";
			/** Key for the session entry and `fastDefaults` (the selected SDK model id/alias). */
			readonly modelKey: string;
			readonly fast: boolean;
			readonly message: string;
	  };

export const FAST_USAGE = "Usage: /cursor-fast [on|off|toggle]";

/**
 * Plans `/cursor-fast [on|off|toggle]` for the selected unsuffixed model: `on`/`off` set fast, blank or `toggle` flips
 * the value this run uses (a start flag's included). The result is this run's value from then on (see
 * {@link resolveFast}). No-op plans carry a short notice; a selected `:fast`/`:slow` alias never persists a default.
 */
export function planFastToggle(input: EffectiveSettingsInput, args = ""): FastTogglePlan {
	const model = input.model;
	if (model === undefined || !model.isCursor) {
		return { kind: "not-cursor", message: "Fast mode applies only to Cursor models." };
	}
	if (!model.fastCapable) return { kind: "unsupported", message: `Fast mode not supported by ${model.selectionKey}` };
	if (model.aliasForcedFast !== undefined) {
		const suffix = model.aliasForcedFast ? ":fast" : ":slow";
		return {
			kind: "alias-selected",
			message: `Fast is fixed to ${model.aliasForcedFast ? "on" : "off"} by the selected ${model.selectionKey}${suffix} model; select the unsuffixed model to change the saved default.`,
		};
	}
	const value = args.trim().toLowerCase();
	const wanted = value === "" || value === "toggle" ? undefined : parseBooleanSetting(value);
	if (wanted === undefined && value !== "" && value !== "toggle") {
		return { kind: "invalid", message: `Unknown value "${args.trim()}". ${FAST_USAGE}` };
	}
	const current = resolveFast(input);
	const now = current.kind === "value" ? current.fast : current.kind === "error" ? current.fallback.fast : false;
	const fast = wanted ?? !now;
	return {
		kind: "toggle",
		modelKey: model.selectionKey,
		fast,
		message: `Cursor fast ${fast ? "on" : "off"} for ${model.selectionKey}.`,
	};
}

export type ModeCommandPlan =
	| { readonly kind: "report" }
	| { readonly kind: "set"; readonly mode: CursorMode }
	| { readonly kind: "invalid"; readonly message: string };

export const MODE_USAGE = "Usage: /cursor-mode [agent|plan]";

/** Parses `/cursor-mode [agent|plan]` arguments (blank → report current mode). */
export function parseModeCommand(args: string): ModeCommandPlan {
	const value = args.trim();
	if (value === "") return { kind: "report" };
	if (isCursorMode(value)) return { kind: "set", mode: value };
	return { kind: "invalid", message: `Unknown Cursor mode "${value}". ${MODE_USAGE}` };
}

export type HttpCommandPlan =
	| { readonly kind: "report" }
	| { readonly kind: "set"; readonly useHttp1: boolean }
	| { readonly kind: "invalid"; readonly message: string };

export const HTTP_USAGE = "Usage: /cursor-http [on|off|toggle]";

/**
 * Parses `/cursor-http [on|off|toggle]` (blank → report). `toggle` flips the current effective value, treating unset
 * as off. `on`/`off` also accept the shared boolean vocabulary.
 */
export function parseHttpCommand(args: string, current: HttpResolution): HttpCommandPlan {
	const value = args.trim().toLowerCase();
	if (value === "") return { kind: "report" };
	if (value === "toggle") return { kind: "set", useHttp1: current.useHttp1 !== true };
	const parsed = parseBooleanSetting(value);
	if (parsed === undefined) return { kind: "invalid", message: `Unknown value "${args.trim()}". ${HTTP_USAGE}` };
	return { kind: "set", useHttp1: parsed };
}
