import type { ModelThinkingLevel } from "@earendil-works/pi-ai";
import type { CatalogParamValue, ModelCapabilities, ThinkingLevelMap } from "./types.ts";

/** Pi's thinking levels, lowest first. */
export const PI_THINKING_LEVELS: readonly ModelThinkingLevel[] = [
	"off",
	"minimal",
	"low",
	"medium",
	"high",
	"xhigh",
	"max",
];

/** Spec preference table for enabled levels: the first value the level param offers wins. */
const ENABLED_LEVEL_VALUES: Readonly<Record<Exclude<ModelThinkingLevel, "off">, readonly string[]>> = {
	minimal: ["minimal"],
	low: ["low"],
	medium: ["medium"],
	high: ["high"],
	xhigh: ["xhigh", "extra-high"],
	max: ["max"],
};

/** `off` without a boolean `thinking` toggle: the level param's own off value. */
const OFF_LEVEL_VALUES: readonly string[] = ["none", "off"];

/** Cursor params one Pi level resolves to: values to set, and params to leave out of the selection. */
export interface LevelTarget {
	readonly set: readonly CatalogParamValue[];
	readonly omit: readonly string[];
	/** The value shown in `thinkingLevelMap`. */
	readonly display: string;
}

/**
 * Resolves a Pi level against a row's capabilities. `undefined` means Cursor has no value for the level: the
 * selection keeps the catalog default and the level is `null` in `thinkingLevelMap`.
 *
 * - `off`: with a boolean `thinking` toggle, `thinking=false` and the level param omitted (Claude rule); otherwise the
 *   level param's `none`, else `off`.
 * - enabled levels: the level param's value from the preference table (`xhigh` → `xhigh`, else `extra-high`; `max`
 *   only → `max`), plus `thinking=true` when the model also has the toggle.
 * - boolean-only thinking (no level param value maps to any Pi level): `high` → `thinking=true`.
 */
export function levelTarget(capabilities: ModelCapabilities, level: ModelThinkingLevel): LevelTarget | undefined {
	const { levelParam, thinkingToggle } = capabilities;
	const levelValues = levelParam === undefined ? [] : (capabilities.supportedValues[levelParam] ?? []);
	if (level === "off") {
		if (thinkingToggle) {
			return {
				set: [{ id: "thinking", value: "false" }],
				omit: levelParam === undefined ? [] : [levelParam],
				display: "false",
			};
		}
		const value = OFF_LEVEL_VALUES.find((candidate) => levelValues.includes(candidate));
		if (levelParam === undefined || value === undefined) return undefined;
		return { set: [{ id: levelParam, value }], omit: [], display: value };
	}
	const value = findLevelValue(levelValues, level);
	if (levelParam !== undefined && value !== undefined) {
		const thinking: CatalogParamValue[] = thinkingToggle ? [{ id: "thinking", value: "true" }] : [];
		return { set: [...thinking, { id: levelParam, value }], omit: [], display: value };
	}
	const booleanOnly =
		thinkingToggle && PI_THINKING_LEVELS.every((other) => findLevelValue(levelValues, other) === undefined);
	if (booleanOnly && level === "high") return { set: [{ id: "thinking", value: "true" }], omit: [], display: "true" };
	return undefined;
}

/** Every Pi level, explicitly: the mapped Cursor value, or `null` when Cursor offers nothing for it. */
export function buildThinkingLevelMap(capabilities: ModelCapabilities): ThinkingLevelMap {
	const map: ThinkingLevelMap = {};
	for (const level of PI_THINKING_LEVELS) map[level] = levelTarget(capabilities, level)?.display ?? null;
	return map;
}

/** Pi-controllable thinking needs at least two selectable levels; one level leaves nothing to control. */
export function isPiControllable(capabilities: ModelCapabilities): boolean {
	return PI_THINKING_LEVELS.filter((level) => levelTarget(capabilities, level) !== undefined).length >= 2;
}

/** The lowest Pi level whose target the given params already satisfy (the catalog default's Pi level). */
export function matchingThinkingLevel(
	capabilities: ModelCapabilities,
	params: readonly CatalogParamValue[],
): ModelThinkingLevel | undefined {
	return PI_THINKING_LEVELS.find((level) => {
		const target = levelTarget(capabilities, level);
		const satisfied = (wanted: CatalogParamValue) =>
			params.some((param) => param.id === wanted.id && param.value === wanted.value);
		return target?.set.every(satisfied) ?? false;
	});
}

function findLevelValue(values: readonly string[], level: ModelThinkingLevel): string | undefined {
	if (level === "off") return undefined;
	return ENABLED_LEVEL_VALUES[level].find((candidate) => values.includes(candidate));
}
