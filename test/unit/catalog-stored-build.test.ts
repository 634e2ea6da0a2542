// Every start after a live refresh reads the model cache. When Cursor's catalog differs from the bundled one, building
// its rows again would be most of our startup, so a refresh stores the built rows beside the items, with the key of
// what they were built from. These tests hold what a user relies on: the stored rows serve only for exactly the
// catalog and context windows they were built from, and nothing in the file (stale, partial, hand-edited) can crash
// a start or show rows without their metadata.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { CatalogCache, MODEL_CACHE_FILENAME } from "../../src/catalog/cache.ts";
import { FALLBACK_CONTEXT_WINDOWS } from "../../src/catalog/context-windows.generated.ts";
import { FALLBACK_MODELS } from "../../src/catalog/fallback-models.generated.ts";
import { CatalogState, type StoredBuild } from "../../src/catalog/state.ts";
import type { CatalogItem } from "../../src/catalog/types.ts";

const dirs: string[] = [];
afterAll(() => {
	for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function agentDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "stored-build-"));
	dirs.push(dir);
	return dir;
}

/** The bundled catalog as Cursor serves it a few weeks later: one model renamed. */
function laterCatalog(): CatalogItem[] {
	const items: CatalogItem[] = JSON.parse(JSON.stringify(FALLBACK_MODELS));
	const [first] = items;
	if (first) items[0] = { ...first, displayName: `${first.displayName} (new)` };
	return items;
}

/** What a live refresh shows and stores. */
function refreshed(items: readonly CatalogItem[], learned = {}): { state: CatalogState; stored: StoredBuild } {
	const state = new CatalogState(FALLBACK_CONTEXT_WINDOWS, learned);
	state.replace(items, "live");
	const stored = state.storable;
	if (!stored) throw new Error("a changed catalog has rows to store");
	return { state, stored: JSON.parse(JSON.stringify(stored)) };
}

/** A stored build whose first row says it came from the store (a context window no build gives). */
function marked(stored: StoredBuild): StoredBuild {
	const [row, ...rows] = stored.rows;
	if (!row) throw new Error("no rows");
	return { ...stored, rows: [{ ...row, contextWindow: 4_321 }, ...rows] };
}

const windowOf = (state: CatalogState, id: string) => state.models.find((model) => model.id === id)?.contextWindow;

test("after a refresh the cache keeps the built rows; the next start shows them as they were built", async () => {
	const items = laterCatalog();
	const { state: live } = refreshed(items);
	const cache = new CatalogCache(agentDir());
	await cache.write("key_a", { fetchedAt: 1, items, built: live.storable });

	const cached = cache.read("key_a");
	expect(cached?.built).toBeDefined();
	const next = new CatalogState(FALLBACK_CONTEXT_WINDOWS);
	next.replace(cached?.items ?? [], "cache", cached?.built);
	expect(next.models).toEqual(live.models);
	for (const model of live.models) expect(next.resolve(model.id)).toEqual(live.resolve(model.id));
	expect(next.storable).toEqual(JSON.parse(JSON.stringify(live.storable)));
});

test("the stored rows serve for the same catalog and windows, and are built again for any other", () => {
	const items = laterCatalog();
	const { stored } = refreshed(items);
	const id = stored.rows[0]?.id ?? "";
	const show = (catalog: readonly CatalogItem[], learned = {}) => {
		const state = new CatalogState(FALLBACK_CONTEXT_WINDOWS, learned);
		state.replace(catalog, "cache", marked(stored));
		return windowOf(state, id);
	};
	expect(show(items)).toBe(4_321); // the same catalog: not built, the stored rows as they are
	const renamedAgain = laterCatalog();
	renamedAgain[1] = { ...(renamedAgain[1] as CatalogItem), displayName: "Renamed again" };
	expect(show(renamedAgain)).not.toBe(4_321);
	const plain = items.find((item) => item.id === id && !item.parameters?.some((param) => param.id === "context"));
	if (plain) expect(show(items, { [id]: 900_000 })).toBe(900_000); // a window learned since: built again
	expect(show(items, { "some-other-model": 900_000 })).toBe(4_321);
});

test("the bundled catalog stores no rows: dist/index.js carries them", async () => {
	expect(new CatalogState(FALLBACK_CONTEXT_WINDOWS).storable).toBeUndefined();
	const { stored } = refreshed(JSON.parse(JSON.stringify(FALLBACK_MODELS))); // Cursor serves the bundled catalog
	const cache = new CatalogCache(agentDir());
	await cache.write("key_a", { fetchedAt: 1, items: JSON.parse(JSON.stringify(FALLBACK_MODELS)), built: stored });
	expect(readFileSync(cache.path, "utf8")).not.toContain('"built"');
	expect(cache.read("key_a")?.built).toBeUndefined();
});

test("whatever the file holds beside the items, a start shows every row with its metadata, or builds them", () => {
	const items = laterCatalog();
	const { state: scratch, stored } = refreshed(items);
	const mutation = fc.oneof(
		fc.anything(),
		fc.constant({ ...stored, key: `${stored.key.slice(1)}0` }),
		fc.nat({ max: stored.rows.length - 1 }).map((i) => ({ ...stored, rows: stored.rows.filter((_, j) => j !== i) })),
		fc.nat({ max: stored.meta.length - 1 }).map((i) => ({ ...stored, meta: stored.meta.filter((_, j) => j !== i) })),
		fc
			.tuple(fc.nat({ max: stored.rows.length - 1 }), fc.anything())
			.map(([i, junk]) => ({ ...stored, rows: stored.rows.map((row, j) => (j === i ? junk : row)) })),
		fc
			.tuple(fc.nat({ max: stored.meta.length - 1 }), fc.anything())
			.map(([i, junk]) => ({ ...stored, meta: stored.meta.map((entry, j) => (j === i ? junk : entry)) })),
	);
	fc.assert(
		fc.property(mutation, (value) => {
			const state = new CatalogState(FALLBACK_CONTEXT_WINDOWS);
			state.replace(items, "cache", value);
			for (const model of state.models) expect(state.resolve(model.id)?.meta.id).toBe(model.id);
			expect(state.models).toEqual(scratch.models);
		}),
		{ numRuns: 300 },
	);
});

test("an unreadable stored build in the file costs nothing but a build: the items still come back", async () => {
	const dir = agentDir();
	const items = laterCatalog();
	const cache = new CatalogCache(dir);
	await cache.write("key_a", { fetchedAt: 1, items, built: refreshed(items).stored });
	const document = JSON.parse(readFileSync(join(dir, MODEL_CACHE_FILENAME), "utf8"));
	for (const entry of Object.values(document.entries) as { built: unknown }[]) entry.built = "garbage";
	writeFileSync(join(dir, MODEL_CACHE_FILENAME), JSON.stringify(document));
	const cached = cache.read("key_a");
	expect(cached?.items).toEqual(items);
	const state = new CatalogState(FALLBACK_CONTEXT_WINDOWS);
	state.replace(cached?.items ?? [], "cache", cached?.built);
	expect(state.models).toEqual(refreshed(items).state.models);
});
