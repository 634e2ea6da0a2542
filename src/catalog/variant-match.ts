import { paramValue } from "./capabilities.ts";
import type { CatalogParamValue, CatalogVariant } from "./types.ts";

/**
 * The catalog variant closest to a request, deterministically.
 *
 * Params are compared one at a time in `priority` order (then every other param in order of first appearance,
 * default variant first). For each param a variant scores 2 when it has the requested value (the default
 * variant's value when nothing was requested), 1 when it at least keeps the default variant's value, 0 otherwise.
 * The highest score on the first differing param wins; a full tie goes to the earliest variant in catalog order.
 * So an exact match always wins, and an unmet request gives up lower-priority params first, falling back to the
 * catalog default value for each param it cannot honour.
 */
export function closestVariant(
	variants: readonly CatalogVariant[],
	defaults: readonly CatalogParamValue[],
	requested: ReadonlyMap<string, string>,
	priority: readonly string[],
): CatalogVariant | undefined {
	const order = [
		...new Set([
			...priority,
			...defaults.map((param) => param.id),
			...variants.flatMap((variant) => variant.params.map((param) => param.id)),
		]),
	];
	let best: { variant: CatalogVariant; score: number[] } | undefined;
	for (const variant of variants) {
		const score = order.map((id) => {
			const value = paramValue(variant.params, id);
			const fallback = paramValue(defaults, id);
			const target = requested.has(id) ? requested.get(id) : fallback;
			if (value === target) return 2;
			return value === fallback ? 1 : 0;
		});
		if (best === undefined || compareScores(score, best.score) > 0) best = { variant, score };
	}
	return best?.variant;
}

function compareScores(a: readonly number[], b: readonly number[]): number {
	for (let index = 0; index < a.length; index++) {
		const difference = (a[index] ?? 0) - (b[index] ?? 0);
		if (difference !== 0) return difference;
	}
	return 0;
}
