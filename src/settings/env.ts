/**
 * Environment-variable parsing for pi-cursor-sdk settings.
 *
 * Every function takes the environment as an argument (normally `process.env`, passed in by the caller) so the
 * parsing stays pure and testable. Nothing here reads `process.env` directly.
 */

import { redactSecrets } from "../sdk/errors.ts";

/** A read-only view of an environment (`process.env` satisfies it). */
export type EnvRecord = Readonly<Record<string, string | undefined>>;

export const ENV_HTTP_1_1 = "PI_CURSOR_HTTP_1_1";
export const ENV_FOOTER = "PI_CURSOR_FOOTER";
export const ENV_SETTING_SOURCES = "PI_CURSOR_SETTING_SOURCES";
export const ENV_HIDE_MODELS_WHEN_LOGGED_OUT = "PI_CURSOR_HIDE_MODELS_WHEN_LOGGED_OUT";
export const ENV_DISABLE_MODEL_CACHE = "PI_CURSOR_SDK_DISABLE_MODEL_CACHE";
export const ENV_MODEL_CACHE_TTL_MS = "PI_CURSOR_SDK_MODEL_CACHE_TTL_MS";

/** Default catalog cache TTL (24 hours). */
export const DEFAULT_MODEL_CACHE_TTL_MS = 86_400_000;
export const ENV_MODEL_REFRESH_TIMEOUT_MS = "PI_CURSOR_SDK_MODEL_REFRESH_TIMEOUT_MS";
export const DEFAULT_MODEL_REFRESH_TIMEOUT_MS = 15_000;
export const ENV_FIRST_RESPONSE_TIMEOUT_MS = "PI_CURSOR_FIRST_RESPONSE_TIMEOUT_MS";
export const DEFAULT_FIRST_RESPONSE_TIMEOUT_MS = 45_000;
export const ENV_STREAM_IDLE_TIMEOUT_MS = "PI_CURSOR_STREAM_IDLE_TIMEOUT_MS";
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 300_000;
export const ENV_LIVE_RUN_IDLE_DISPOSE_MS = "PI_CURSOR_LIVE_RUN_IDLE_DISPOSE_MS";
export const DEFAULT_LIVE_RUN_IDLE_DISPOSE_MS = 300_000;
/** The longest delay a timer takes (2^31 − 1 ms). */
const MAX_TIMER_MS = 2_147_483_647;

const FALSE_WORDS: ReadonlySet<string> = new Set(["0", "false", "off", "none", "no", "disabled"]);
const TRUE_WORDS: ReadonlySet<string> = new Set(["1", "true", "on", "yes", "enabled"]);

/**
 * Parses the shared boolean vocabulary: `0/false/off/none/no/disabled` → false, `1/true/on/yes/enabled` → true
 * (case-insensitive, surrounding whitespace ignored). Unset, blank or unrecognized values → `undefined`.
 */
export function parseBooleanSetting(value: string | undefined): boolean | undefined {
	if (value === undefined) return undefined;
	const word = value.trim().toLowerCase();
	if (word === "") return undefined;
	if (TRUE_WORDS.has(word)) return true;
	if (FALSE_WORDS.has(word)) return false;
	return undefined;
}

/** Reads a boolean environment variable with the shared vocabulary; unset/blank/unrecognized → `defaultValue`. */
export function readBooleanEnv(env: EnvRecord, name: string, defaultValue: boolean): boolean {
	return parseBooleanSetting(env[name]) ?? defaultValue;
}

/** Individual Cursor setting sources accepted by `local.settingSources`. */
export const SETTING_SOURCE_NAMES = ["project", "user", "team", "mdm", "plugins"] as const;
export type SettingSourceName = (typeof SETTING_SOURCE_NAMES)[number];
/** The value passed to the SDK: `["all"]`, `[]` (none) or a list of individual sources. */
export type SettingSources = readonly ["all"] | readonly SettingSourceName[];

export type SettingSourcesResult =
	| { readonly ok: true; readonly sources: SettingSources; readonly isDefault: boolean }
	| { readonly ok: false; readonly error: string; readonly raw: string };

const SETTING_SOURCE_SET: ReadonlySet<string> = new Set(SETTING_SOURCE_NAMES);

/**
 * Parses `PI_CURSOR_SETTING_SOURCES`. Unset/blank → `["all"]` (default); `all` → `["all"]`; `none` → `[]`;
 * otherwise a comma list of `project,user,team,mdm,plugins` (case-insensitive, deduplicated, order kept, empty
 * items ignored). `all`/`none` mixed with other values, or unknown names, return an error value (never throws).
 */
export function parseSettingSources(value: string | undefined): SettingSourcesResult {
	if (value === undefined || value.trim() === "") return { ok: true, sources: ["all"], isDefault: true };
	const items = value
		.split(",")
		.map((item) => item.trim().toLowerCase())
		.filter((item) => item !== "");
	const valid = `Use "all", "none", or a comma-separated list of ${SETTING_SOURCE_NAMES.join(", ")}.`;
	if (items.length === 0) {
		return { ok: false, raw: value, error: `${ENV_SETTING_SOURCES}="${value}" names no setting source. ${valid}` };
	}
	const unknown = items.filter((item) => item !== "all" && item !== "none" && !SETTING_SOURCE_SET.has(item));
	if (unknown.length > 0) {
		const list = redactSecrets([...new Set(unknown)].map((item) => `"${item}"`).join(", "));
		return {
			ok: false,
			raw: value,
			error: `${ENV_SETTING_SOURCES} has unknown setting source ${list}. ${valid}`,
		};
	}
	const unique = [...new Set(items)];
	for (const keyword of ["all", "none"] as const) {
		if (unique.includes(keyword)) {
			if (unique.length > 1) {
				return {
					ok: false,
					raw: value,
					error: `${ENV_SETTING_SOURCES} cannot combine "${keyword}" with other values. ${valid}`,
				};
			}
			return { ok: true, sources: keyword === "all" ? ["all"] : [], isDefault: false };
		}
	}
	return { ok: true, sources: unique as SettingSourceName[], isDefault: false };
}

/**
 * Parses `PI_CURSOR_SDK_MODEL_CACHE_TTL_MS`: decimal digits only (no sign, no whitespace) up to
 * `Number.MAX_SAFE_INTEGER`; `0` is allowed (always stale). Unset/blank/malformed → the 24 h default.
 */
export function parseModelCacheTtlMs(value: string | undefined): number {
	return parseMilliseconds(value, DEFAULT_MODEL_CACHE_TTL_MS, 0);
}

/** Decimal digits only, at least `min`, up to `Number.MAX_SAFE_INTEGER`; anything else → `fallback`. */
function parseMilliseconds(value: string | undefined, fallback: number, min: number): number {
	if (value === undefined || !/^\d+$/.test(value)) return fallback;
	const parsed = Number(value);
	return Number.isSafeInteger(parsed) && parsed >= min ? parsed : fallback;
}

/** A timer duration: decimal milliseconds from 1 to 2^31 − 1; anything else → `fallback`. */
export function parseTimerMs(value: string | undefined, fallback: number): number {
	const parsed = parseMilliseconds(value, fallback, 1);
	return parsed <= MAX_TIMER_MS ? parsed : fallback;
}

/** The environment-derived settings this package needs today. */
export interface CursorEnvSettings {
	/** `PI_CURSOR_HTTP_1_1`: explicit true/false, or `undefined` when unset/blank/unrecognized. */
	readonly useHttp1: boolean | undefined;
	/** `PI_CURSOR_FOOTER`: default on; a false word hides the Cursor status. */
	readonly footer: boolean;
	/** `PI_CURSOR_SETTING_SOURCES`: parsed list or an error value. */
	readonly settingSources: SettingSourcesResult;
	/** `PI_CURSOR_HIDE_MODELS_WHEN_LOGGED_OUT`: default off. */
	readonly hideModelsWhenLoggedOut: boolean;
	/** `PI_CURSOR_SDK_DISABLE_MODEL_CACHE`: default off. */
	readonly disableModelCache: boolean;
	/** `PI_CURSOR_SDK_MODEL_CACHE_TTL_MS`: default 86 400 000. */
	readonly modelCacheTtlMs: number;
	/** `PI_CURSOR_SDK_MODEL_REFRESH_TIMEOUT_MS`: bound of one live catalog request, default 15 000. */
	readonly modelRefreshTimeoutMs: number;
	/** `PI_CURSOR_FIRST_RESPONSE_TIMEOUT_MS`: how long a turn waits for Cursor's first event, default 45 000. */
	readonly firstResponseTimeoutMs: number;
	/** `PI_CURSOR_STREAM_IDLE_TIMEOUT_MS`: how long a running stream may stay silent, default 300 000. */
	readonly streamIdleTimeoutMs: number;
	/** `PI_CURSOR_LIVE_RUN_IDLE_DISPOSE_MS`: how long a run waiting for Pi's tool results is kept, default 300 000. */
	readonly liveRunIdleDisposeMs: number;
}

/** Reads every environment setting above from `env`. */
export function readCursorEnv(env: EnvRecord): CursorEnvSettings {
	return {
		useHttp1: parseBooleanSetting(env[ENV_HTTP_1_1]),
		footer: readBooleanEnv(env, ENV_FOOTER, true),
		settingSources: parseSettingSources(env[ENV_SETTING_SOURCES]),
		hideModelsWhenLoggedOut: readBooleanEnv(env, ENV_HIDE_MODELS_WHEN_LOGGED_OUT, false),
		disableModelCache: readBooleanEnv(env, ENV_DISABLE_MODEL_CACHE, false),
		modelCacheTtlMs: parseModelCacheTtlMs(env[ENV_MODEL_CACHE_TTL_MS]),
		modelRefreshTimeoutMs: parseMilliseconds(env[ENV_MODEL_REFRESH_TIMEOUT_MS], DEFAULT_MODEL_REFRESH_TIMEOUT_MS, 1),
		firstResponseTimeoutMs: parseTimerMs(env[ENV_FIRST_RESPONSE_TIMEOUT_MS], DEFAULT_FIRST_RESPONSE_TIMEOUT_MS),
		streamIdleTimeoutMs: parseTimerMs(env[ENV_STREAM_IDLE_TIMEOUT_MS], DEFAULT_STREAM_IDLE_TIMEOUT_MS),
		liveRunIdleDisposeMs: parseTimerMs(env[ENV_LIVE_RUN_IDLE_DISPOSE_MS], DEFAULT_LIVE_RUN_IDLE_DISPOSE_MS),
	};
}
