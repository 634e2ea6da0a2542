import { isModelIdText } from "./sanitize.ts";
import type {
	CatalogItem,
	CatalogParameter,
	CatalogParamValue,
	CatalogVariant,
	LevelParamId,
	ModelCapabilities,
} from "./types.ts";

/** Level params in no particular precedence: the first one the model declares wins. */
const LEVEL_PARAM_IDS: readonly LevelParamId[] = ["reasoning", "effort", "reasoning_effort"];

/** The catalog default variant: `isDefault`, else the first; undefined when the model has no variants. */
export function defaultVariant(item: CatalogItem): CatalogVariant | undefined {
	const variants = item.variants ?? [];
	return variants.find((variant) => variant.isDefault === true) ?? variants[0];
}

export function paramValue(params: readonly CatalogParamValue[], id: string): string | undefined {
	return params.find((param) => param.id === id)?.value;
}

/**
 * Selectable `context` values in SDK (declaration) order. A declared value that no variant carries is dropped,
 * unless no variant carries a context at all (then the declaration is all we have); so is a value that cannot be part
 * of a Pi model id (`id@<context>`).
 */
export function contextValues(item: CatalogItem): readonly string[] {
	const param = (item.parameters ?? []).find((entry) => entry.id === "context");
	return param ? narrowedValues(param, item.variants ?? []).filter(isModelIdText) : [];
}

/**
 * What one selectable row can control. With a `context`, value sets come from the variants of that context only, so
 * a row never advertises a value (or a fast toggle) that Cursor offers only under another context.
 */
export function rowCapabilities(
	item: CatalogItem,
	context: string | undefined,
	contexts: readonly string[] = contextValues(item),
): ModelCapabilities {
	const variants = item.variants ?? [];
	const scoped =
		context === undefined ? variants : variants.filter((variant) => paramValue(variant.params, "context") === context);
	const values = supportedValues(item, scoped);
	const levelParam = (item.parameters ?? []).map((param) => param.id).find(isLevelParamId);
	return {
		levelParam,
		thinkingToggle: isBoolean(values.thinking),
		contextValues: contexts,
		fast: isBoolean(values.fast),
		supportedValues: values,
	};
}

/** Declared values per parameter (first declaration of an id wins), narrowed to values the given variants carry. */
function supportedValues(item: CatalogItem, variants: readonly CatalogVariant[]): Record<string, readonly string[]> {
	const result: Record<string, readonly string[]> = {};
	for (const param of item.parameters ?? []) {
		if (!Object.hasOwn(result, param.id)) result[param.id] = narrowedValues(param, variants);
	}
	return result;
}

/** A parameter's declared values that the variants carry; all of them when no variant carries the parameter. */
function narrowedValues(param: CatalogParameter, variants: readonly CatalogVariant[]): readonly string[] {
	const declared = [...new Set(param.values.map((entry) => entry.value))];
	const carried = new Set(
		variants.map((variant) => paramValue(variant.params, param.id)).filter((value) => value !== undefined),
	);
	return carried.size === 0 ? declared : declared.filter((value) => carried.has(value));
}

function isLevelParamId(id: string): id is LevelParamId {
	return (LEVEL_PARAM_IDS as readonly string[]).includes(id);
}

function isBoolean(values: readonly string[] = []): boolean {
	return values.includes("true") && values.includes("false");
}
