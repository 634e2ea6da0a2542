// Builders for synthetic catalog models: parameters and variants from a compact shape instead of hand-written tables.
import type { ModelThinkingLevel } from "@earendil-works/pi-ai";
import type { CatalogItem, CatalogVariant } from "../../src/catalog/types.ts";

/** Parameter ids with their values, in catalog order (the first varies slowest across variants). */
export type ParamShape = readonly (readonly [string, readonly string[]])[];

export function parameters(shape: ParamShape): NonNullable<CatalogItem["parameters"]> {
	return shape.map(([id, values]) => ({ id, values: values.map((value) => ({ value })) }));
}

/** One variant with these parameter values (in this order), named "M" unless `extra` says otherwise. */
export function variant(params: Record<string, string>, extra: Partial<CatalogVariant> = {}): CatalogVariant {
	return { params: Object.entries(params).map(([id, value]) => ({ id, value })), displayName: "M", ...extra };
}

/** Every combination of the shape's values; the one matching `isDefault` is the default variant. */
export function variants(name: string, shape: ParamShape, isDefault: Record<string, string>): CatalogVariant[] {
	let combos: { id: string; value: string }[][] = [[]];
	for (const [id, values] of shape)
		combos = combos.flatMap((combo) => values.map((value) => [...combo, { id, value }]));
	return combos.map((combo) => ({
		params: combo,
		displayName: name,
		...(combo.every((param) => isDefault[param.id] === param.value) ? { isDefault: true } : {}),
	}));
}

/** A model with the shape's parameters and every combination as a variant. */
export function catalogItem(
	id: string,
	displayName: string,
	shape: ParamShape,
	isDefault: Record<string, string>,
): CatalogItem {
	return { id, displayName, parameters: parameters(shape), variants: variants(displayName, shape, isDefault) };
}

/** A row's thinking-level map as Pi sees it: the given levels' values, every other level `null` (unsupported). */
export function levelMap(
	values: Partial<Record<ModelThinkingLevel, string>>,
): Record<ModelThinkingLevel, string | null> {
	const levels: ModelThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];
	return Object.fromEntries(levels.map((level) => [level, values[level] ?? null])) as Record<
		ModelThinkingLevel,
		string | null
	>;
}
