// dist/index.js carries the bundled fallback catalog prebuilt, as JSON (build/bundle.ts): what a Pi start parses must
// be the rows and row metadata the catalog code builds, and the catalog must use it only where it applies.
import { expect, test } from "bun:test";
import { FALLBACK_CONTEXT_WINDOWS } from "../../src/catalog/context-windows.generated.ts";
import { buildFallbackCatalog } from "../../src/catalog/fallback-built.ts";
import { FALLBACK_MODELS } from "../../src/catalog/fallback-models.generated.ts";
import { CatalogState } from "../../src/catalog/state.ts";

test("the fallback catalog survives JSON as the bundle stores it: same rows, same metadata", () => {
	const built = buildFallbackCatalog();
	const parsed = JSON.parse(JSON.stringify({ rows: built.rows, meta: [...built.meta] }));
	expect(built.rows.length).toBeGreaterThan(200);
	expect(parsed.rows).toEqual(built.rows);
	expect(new Map(parsed.meta)).toEqual(new Map(built.meta));
});

test("a learned window still changes the fallback rows it applies to", () => {
	const item = FALLBACK_MODELS.find((model) => !model.parameters?.some((param) => param.id === "context"));
	if (!item) throw new Error("the fallback catalog has no model without a context parameter");
	const plain = new CatalogState(FALLBACK_CONTEXT_WINDOWS).models.find((model) => model.id === item.id);
	const learned = new CatalogState(FALLBACK_CONTEXT_WINDOWS, { [item.id]: 777_000 }).models.find(
		(model) => model.id === item.id,
	);
	expect(plain?.contextWindow).not.toBe(777_000);
	expect(learned?.contextWindow).toBe(777_000);
});
