// The value vocabularies of pi-cursor-sdk's environment variables: booleans, durations, setting sources. Each parser
// reads one raw value and says what it means; src/settings/env.ts says which variable uses which. Pure.

import { redactSecrets } from "../sdk/errors.ts";

/** What a raw value means: a value, nothing (the default applies), or a problem to report (the default applies). */
export type Parsed<T> = { readonly value: T; readonly problem?: string } | { readonly problem?: string };

/** `(raw value, variable name) → meaning`; the name is only for problem messages. */
export type Parser<T> = (raw: string, name: string) => Parsed<T>;

/** The longest delay a timer takes (2^31 − 1 ms; a larger one fires at once). */
export const MAX_TIMER_MS = 2_147_483_647;

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

/** A boolean word; anything else keeps the default, silently. */
export const booleanWord: Parser<boolean> = (raw): Parsed<boolean> => {
	const value = parseBooleanSetting(raw);
	return value === undefined ? {} : { value };
};

/** The raw text as it is (even empty). */
export const rawText: Parser<string> = (raw) => ({ value: raw });

/** Non-empty text; an empty value counts as unset. */
export const nonEmptyText: Parser<string> = (raw): Parsed<string> => (raw === "" ? {} : { value: raw });

/** Trimmed text; a blank value counts as unset. */
export const trimmedText: Parser<string> = (raw): Parsed<string> => {
	const value = raw.trim();
	return value === "" ? {} : { value };
};

/**
 * Decimal milliseconds, digits only (no sign, no whitespace), from `min` to `max`; anything else keeps the default,
 * silently.
 */
export function decimalMs(min: number, max = Number.MAX_SAFE_INTEGER): Parser<number> {
	return (raw): Parsed<number> => {
		if (!/^\d+$/.test(raw)) return {};
		const value = Number(raw);
		return Number.isSafeInteger(value) && value >= min && value <= max ? { value } : {};
	};
}

/**
 * A positive whole number of `unitMs` (surrounding whitespace ignored), in milliseconds and at most `maxMs`. Blank
 * counts as unset; anything else is reported as `<name>="<raw>" <complaint>`.
 */
export function positiveWholeNumber(unitMs: number, maxMs: number, complaint: string): Parser<number> {
	return (raw, name) => {
		const text = raw.trim();
		if (text === "") return {};
		const value = /^\d+$/.test(text) ? Number(text) * unitMs : Number.NaN;
		if (Number.isSafeInteger(value) && value > 0) return { value: Math.min(value, maxMs) };
		return { problem: `${name}="${redactSecrets(raw)}" ${complaint}` };
	};
}

/** Individual Cursor setting sources accepted by `local.settingSources`. */
export const SETTING_SOURCE_NAMES = ["project", "user", "team", "mdm", "plugins"] as const;
export type SettingSourceName = (typeof SETTING_SOURCE_NAMES)[number];
/** The value passed to the SDK: `["all"]`, `[]` (none) or a list of individual sources. */
export type SettingSources = readonly ["all"] | readonly SettingSourceName[];

export type SettingSourcesResult =
	| { readonly ok: true; readonly sources: SettingSources; readonly isDefault: boolean }
	| { readonly ok: false; readonly error: string; readonly raw: string };

export const DEFAULT_SETTING_SOURCES: SettingSourcesResult = { ok: true, sources: ["all"], isDefault: true };

const SETTING_SOURCE_SET: ReadonlySet<string> = new Set(SETTING_SOURCE_NAMES);

/**
 * Parses a setting-sources list (`name` is the variable, for messages). Blank → `["all"]` (default); `all` →
 * `["all"]`; `none` → `[]`; otherwise a comma list of `project,user,team,mdm,plugins` (case-insensitive,
 * deduplicated, order kept, empty items ignored). `all`/`none` mixed with other values, or unknown names, give an
 * error value (never throws).
 */
function parseSettingSources(value: string, name: string): SettingSourcesResult {
	if (value.trim() === "") return DEFAULT_SETTING_SOURCES;
	const items = value
		.split(",")
		.map((item) => item.trim().toLowerCase())
		.filter((item) => item !== "");
	const valid = `Use "all", "none", or a comma-separated list of ${SETTING_SOURCE_NAMES.join(", ")}.`;
	if (items.length === 0) {
		return { ok: false, raw: value, error: `${name}="${redactSecrets(value)}" names no setting source. ${valid}` };
	}
	const unknown = items.filter((item) => item !== "all" && item !== "none" && !SETTING_SOURCE_SET.has(item));
	if (unknown.length > 0) {
		const list = redactSecrets([...new Set(unknown)].map((item) => `"${item}"`).join(", "));
		return { ok: false, raw: value, error: `${name} has unknown setting source ${list}. ${valid}` };
	}
	const unique = [...new Set(items)];
	for (const keyword of ["all", "none"] as const) {
		if (unique.includes(keyword)) {
			if (unique.length > 1) {
				return { ok: false, raw: value, error: `${name} cannot combine "${keyword}" with other values. ${valid}` };
			}
			return { ok: true, sources: keyword === "all" ? ["all"] : [], isDefault: false };
		}
	}
	return { ok: true, sources: unique as SettingSourceName[], isDefault: false };
}

/** A setting-sources list; an unusable one is both the value (the turn fails with it) and a problem. */
export const settingSourcesList: Parser<SettingSourcesResult> = (raw, name) => {
	const value = parseSettingSources(raw, name);
	return value.ok ? { value } : { value, problem: value.error };
};
