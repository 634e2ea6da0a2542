import { describe, expect, test } from "bun:test";
import type { ModelThinkingLevel } from "@earendil-works/pi-ai";
import { FALLBACK_CONTEXT_WINDOWS } from "../../src/catalog/context-windows.generated.ts";
import { FALLBACK_MODELS } from "../../src/catalog/fallback-models.generated.ts";
import { buildCatalog } from "../../src/catalog/rows.ts";
import { PI_THINKING_LEVELS } from "../../src/catalog/thinking-map.ts";
import type { CatalogItem, CatalogParamValue, RowMeta } from "../../src/catalog/types.ts";
import { buildModelSelection } from "../../src/selection.ts";

// For every captured model, registered id, Pi level and fast state, the selection is a real catalog variant.
// The only documented departures are omissions of a param the variant carries:
// - the level param (effort/reasoning/reasoning_effort) under thinking=false (spec "Claude Behavior");
// - Grok 4.7's default-variant context (spec "Grok 4.7 Default-context Compatibility").

const LEVELS: readonly (ModelThinkingLevel | undefined)[] = [undefined, ...PI_THINKING_LEVELS];
const FAST_STATES: readonly (boolean | undefined)[] = [true, false, undefined];

const { rows, meta } = buildCatalog(FALLBACK_MODELS, FALLBACK_CONTEXT_WINDOWS);
const itemById = new Map(FALLBACK_MODELS.map((item) => [item.id, item]));

const paramOf = (params: readonly CatalogParamValue[], id: string) => params.find((param) => param.id === id)?.value;
const same = (a: readonly CatalogParamValue[], b: readonly CatalogParamValue[]) =>
	a.length === b.length && a.every((param, index) => param.id === b[index]?.id && param.value === b[index]?.value);

/** Ids the selection may leave out of variant `params` for this row. */
function omissible(rowMeta: RowMeta, item: CatalogItem, params: readonly CatalogParamValue[]): Set<string> {
	const ids = new Set<string>();
	const { levelParam } = rowMeta.capabilities;
	if (levelParam !== undefined && paramOf(params, "thinking") === "false") ids.add(levelParam);
	const defaultContext = paramOf(
		(item.variants?.find((variant) => variant.isDefault) ?? item.variants?.[0])?.params ?? [],
		"context",
	);
	if (item.id === "grok-4.7" && paramOf(params, "context") === defaultContext) ids.add("context");
	return ids;
}

function matchesSomeVariant(rowMeta: RowMeta, item: CatalogItem, params: readonly CatalogParamValue[]): boolean {
	return (item.variants ?? []).some((variant) => {
		const allowed = omissible(rowMeta, item, variant.params);
		const kept = variant.params.filter((param) => !allowed.has(param.id) || params.some((p) => p.id === param.id));
		return same(kept, params);
	});
}

const cases = rows.map((row) => {
	const rowMeta = meta.get(row.id) as RowMeta;
	return [row.id, rowMeta, itemById.get(rowMeta.baseId) as CatalogItem] as const;
});

describe("every selection is an allowed catalog combination", () => {
	test("covers every registered row", () => {
		expect(cases.length).toBe(rows.length);
		expect(new Set(cases.map(([, rowMeta]) => rowMeta.baseId)).size).toBe(45);
	});

	test.each(cases)("%s", (_id, rowMeta, item) => {
		for (const level of LEVELS) {
			for (const fast of FAST_STATES) {
				const selection = buildModelSelection(rowMeta, item, level, fast);
				const label = `${rowMeta.id} level=${level} fast=${fast}: ${JSON.stringify(selection.params)}`;

				expect({ label, ok: matchesSomeVariant(rowMeta, item, selection.params) }).toEqual({ label, ok: true });
				expect(selection.id).toBe(rowMeta.selectionId);

				// The row's context is always the one selected (or omitted under the Grok 4.7 rule).
				const context = paramOf(selection.params, "context");
				if (rowMeta.context !== undefined) {
					expect([rowMeta.context, ...(item.id === "grok-4.7" ? [undefined] : [])]).toContain(context);
				}

				// Every value sent is one the catalog offers for that param.
				for (const param of selection.params) {
					const declared = rowMeta.capabilities.supportedValues[param.id];
					if (declared !== undefined) expect(declared).toContain(param.value);
				}

				// Forced or explicit fast is honoured whenever some variant of this context has it.
				const wantedFast = rowMeta.forcedFast ?? fast;
				if (wantedFast !== undefined && rowMeta.capabilities.fast) {
					expect({ label, fast: paramOf(selection.params, "fast") }).toEqual({ label, fast: String(wantedFast) });
				}

				// A mapped level is sent; an unmapped one leaves the catalog default's thinking params alone.
				const mapped = rowMeta.capabilities.levelParam;
				const levelName = level ?? "off";
				const mapValue = rows.find((candidate) => candidate.id === rowMeta.id)?.thinkingLevelMap?.[levelName];
				if (mapValue !== undefined && mapValue !== null) {
					if (mapValue === "false" || mapValue === "true") {
						expect(paramOf(selection.params, "thinking")).toBe(mapValue);
					} else if (mapped !== undefined) {
						expect(paramOf(selection.params, mapped)).toBe(mapValue);
					}
				}
				if (mapValue === null && mapped !== undefined) {
					expect(paramOf(selection.params, mapped)).toBe(paramOf(rowMeta.defaultParams, mapped));
				}
			}
		}
	});
});
