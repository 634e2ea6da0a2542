// dist/index.js carries the bundled fallback catalog prebuilt, as JSON (build/bundle.ts): what a Pi start parses must
// be the rows and row metadata the catalog code builds, and the catalog must use it only where it applies (also when
// the catalog cached from Cursor is the bundled one).
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CatalogCache } from "../../src/catalog/cache.ts";
import { FALLBACK_CONTEXT_WINDOWS } from "../../src/catalog/context-windows.generated.ts";
import { buildFallbackCatalog } from "../../src/catalog/fallback-built.ts";
import { FALLBACK_MODELS } from "../../src/catalog/fallback-models.generated.ts";
import { sanitizeCatalog } from "../../src/catalog/sanitize.ts";
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

test("a cached catalog that is the bundled one reads back as the bundled catalog, rows and all", async () => {
	// The shortcut skips sanitizing: it is only right because the bundled catalog is already what sanitizing yields.
	expect(sanitizeCatalog(FALLBACK_MODELS)).toEqual([...FALLBACK_MODELS]);
	const dir = mkdtempSync(join(tmpdir(), "catalog-cache-"));
	try {
		const cache = new CatalogCache(dir);
		await cache.write("key_a", { fetchedAt: 1, items: JSON.parse(JSON.stringify(FALLBACK_MODELS)) });
		expect(cache.read("key_a")?.items).toBe(FALLBACK_MODELS); // the same object: its rows are prebuilt

		const changed = JSON.parse(JSON.stringify(FALLBACK_MODELS));
		changed[0].displayName = "Renamed by Cursor";
		await cache.write("key_b", { fetchedAt: 1, items: changed });
		const read = cache.read("key_b")?.items;
		expect(read).not.toBe(FALLBACK_MODELS);
		expect(read?.[0]?.displayName).toBe("Renamed by Cursor");
		const state = new CatalogState(FALLBACK_CONTEXT_WINDOWS);
		state.replace(read ?? [], "cache");
		expect(state.models.some((model) => model.name.startsWith("Renamed by Cursor"))).toBe(true);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test("replacing the catalog with the one it shows keeps its rows and only changes where it comes from", () => {
	const state = new CatalogState(FALLBACK_CONTEXT_WINDOWS);
	const rows = state.models;
	state.replace(FALLBACK_MODELS, "cache");
	expect(state.models).toBe(rows);
	expect(state.source).toBe("cache");
	state.replace([...FALLBACK_MODELS], "live"); // another array: rebuilt
	expect(state.models).not.toBe(rows);
	expect(state.models).toEqual(rows);
	expect(state.source).toBe("live");
});
