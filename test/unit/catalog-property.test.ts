// Generated catalog payloads (`GET /v1/models` through the SDK, and the cached file): nothing throws past the catalog,
// the registered rows stay unique, selectable ids, and a bad entry drops that entry only.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CatalogCache, keyFingerprint } from "../../src/catalog/cache.ts";
import { discoverModels, REFRESH_ERROR_PREFIX } from "../../src/catalog/discovery.ts";
import { sanitizeCatalog } from "../../src/catalog/sanitize.ts";
import { CatalogState } from "../../src/catalog/state.ts";
import type { CatalogItem } from "../../src/catalog/types.ts";
import type { CursorSdk } from "../../src/sdk/cursor-sdk.ts";
import { anyJson, fc, nastyString, PropertyTarget, wrongTyped } from "../support/property.ts";

const target = new PropertyTarget("catalog-payloads");
const dir = mkdtempSync(join(tmpdir(), "pi-cursor-catalog-property-"));
afterAll(() => {
	target.report();
	rmSync(dir, { recursive: true, force: true });
});

/** What Pi can carry as a model id after `cursor/`: no whitespace or control characters, no `@`/`:` of our suffixes. */
const ROW_ID = /^[^\s@:\p{Cc}]+(@[^\s@:\p{Cc}]+)?(:fast|:slow)?$/u;
const KEY = "key_property_catalog_0123456789abcdef";

const idText = fc.stringMatching(/^[a-z][a-z0-9.-]{0,11}$/);
const paramValue = fc.oneof(fc.constantFrom("true", "false", "low", "medium", "high", "1m", "272k", "none"), idText);
const paramId = fc.constantFrom("context", "fast", "thinking", "reasoning", "effort", "reasoning_effort", "other");

/** A well-formed catalog item (the SDK's `ModelListItem` shape). */
const validItem = fc
	.record({
		id: idText,
		displayName: fc.string({ maxLength: 20 }),
		description: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
		aliases: fc.option(fc.array(idText, { maxLength: 3 }), { nil: undefined }),
		parameters: fc.option(
			fc.array(
				fc.record({
					id: paramId,
					values: fc.array(fc.record({ value: paramValue }), { maxLength: 4 }),
				}),
				{ maxLength: 4 },
			),
			{ nil: undefined },
		),
		variants: fc.option(
			fc.array(
				fc.record({
					params: fc.array(fc.record({ id: paramId, value: paramValue }), { maxLength: 4 }),
					displayName: fc.string({ maxLength: 10 }),
					isDefault: fc.option(fc.boolean(), { nil: undefined }),
				}),
				{ maxLength: 4 },
			),
			{ nil: undefined },
		),
	})
	.map((item) => JSON.parse(JSON.stringify(item)) as Record<string, unknown>);

/** An entry no catalog may keep: not an object, no usable id, or an id Pi cannot select. */
const junkItem = fc.oneof(
	fc.oneof(fc.constant(null), fc.integer(), fc.boolean(), fc.string(), fc.array(anyJson, { maxLength: 2 })),
	fc.record({ displayName: fc.string() }),
	fc.record({ id: wrongTyped.filter((v) => typeof v !== "string" || v === ""), displayName: fc.string() }),
	fc.record({
		id: fc.tuple(idText, fc.constantFrom(" ", "\n", "@", ":", "\u0000", "\t"), idText).map((p) => p.join("")),
		displayName: fc.string(),
	}),
	// Longer than any id a user could pick: 257 to 10,000 characters of otherwise valid id text.
	fc.record({
		id: fc
			.tuple(idText, fc.integer({ min: 257, max: 10_000 }))
			.map(([id, n]) => id.repeat(Math.ceil(n / id.length)).slice(0, n)),
		displayName: fc.string(),
	}),
);

/** Valid items with junk mixed in, and valid items whose optional fields were replaced by wrongly typed values. */
const payload = fc.array(
	fc.oneof(
		{ weight: 3, arbitrary: validItem.map((item) => ({ item, valid: true })) },
		{ weight: 2, arbitrary: junkItem.map((item) => ({ item: item as unknown, valid: false })) },
		// No display name (missing, blank or wrongly typed): shown under its id, never dropped.
		{
			weight: 1,
			arbitrary: fc
				.tuple(
					idText,
					fc.oneof(
						wrongTyped.filter((v) => typeof v !== "string"),
						fc.constantFrom("", " \n"),
					),
				)
				.map(([id, displayName]) => ({ item: { id, displayName } as unknown, valid: true, nameless: true })),
		},
		{
			weight: 2,
			arbitrary: fc
				.tuple(validItem, fc.constantFrom("description", "aliases", "parameters", "variants"), wrongTyped)
				.map(([item, key, value]) => ({ item: { ...item, [key]: value }, valid: true })),
		},
	),
	{ maxLength: 12 },
);

const state = new CatalogState({ default: 200_000 });

function checkCatalog(items: readonly CatalogItem[]): void {
	state.replace(items, "live");
	const ids = state.models.map((model) => model.id);
	expect(new Set(ids).size).toBe(ids.length);
	for (const model of state.models) {
		expect(model.id).toMatch(ROW_ID);
		expect(model.id.split(/[@:]/)[0]?.length).toBeLessThanOrEqual(256);
		expect(model.contextWindow).toBeGreaterThan(0);
		expect(model.maxTokens).toBeGreaterThan(0);
		const row = state.resolve(model.id);
		expect(row?.item.id).toBe(row?.meta.baseId as string);
	}
	// Every kept model is selectable under its own id (alone, or with a context suffix).
	for (const item of items) expect(ids.some((id) => id === item.id || id.startsWith(`${item.id}@`))).toBe(true);
}

test("live /v1/models payloads: a bad entry drops that entry only; the rows are unique, selectable ids", async () => {
	await target.check(
		fc.asyncProperty(payload, async (entries) => {
			const raw = entries.map((e) => e.item);
			const sdk = { listModels: async () => raw } as unknown as CursorSdk;
			let items: Awaited<ReturnType<typeof discoverModels>> = [];
			try {
				items = await discoverModels(sdk, KEY, new AbortController().signal, 5_000);
			} catch (error) {
				// Only an all-bad payload may fail the refresh, and it says so.
				expect((error as Error).message).toBe(`${REFRESH_ERROR_PREFIX} Cursor returned no usable models.`);
			}
			const expectedIds = [...new Set(entries.filter((e) => e.valid).map((e) => (e.item as { id: string }).id))];
			expect(items.map((item) => item.id)).toEqual(expectedIds.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
			for (const entry of entries) {
				if (!("nameless" in entry)) continue;
				const id = (entry.item as { id: string }).id;
				const kept = items.find((item) => item.id === id);
				const first = entries.find((e) => e.valid && (e.item as { id: string }).id === id);
				if (first === entry) expect(kept?.displayName).toBe(id);
			}
			checkCatalog(items);
		}),
		1500,
	);
});

test("whatever the SDK resolves with or throws, a refresh fails only with a scrubbed, prefixed message", async () => {
	const outcome = fc.oneof(
		anyJson.map((value) => ({ value })),
		fc.oneof(nastyString, anyJson).map((error) => ({ error })),
		nastyString.map((message) => ({ error: new Error(`${message} ${KEY}`) })),
	);
	await target.check(
		fc.asyncProperty(outcome, async (result) => {
			const sdk = {
				listModels: async () => {
					if ("error" in result) throw result.error;
					return result.value;
				},
			} as unknown as CursorSdk;
			try {
				checkCatalog(await discoverModels(sdk, KEY, new AbortController().signal, 5_000));
			} catch (error) {
				expect(error).toBeInstanceOf(Error);
				expect((error as Error).message.startsWith(REFRESH_ERROR_PREFIX)).toBe(true);
				expect((error as Error).message).not.toContain(KEY);
			}
		}),
		1000,
	);
});

test("the cached catalog file: any bytes read back as a usable catalog or none, and writes keep other keys' entries", async () => {
	const otherKey = "key_other_catalog_fedcba9876543210";
	const fileText = fc.oneof(
		fc.string({ unit: "binary", maxLength: 200 }),
		anyJson.map((value) => JSON.stringify(value)),
		fc
			.record({
				version: fc.oneof(fc.constant(1), wrongTyped),
				entries: fc.oneof(
					fc.dictionary(
						fc.oneof(fc.constantFrom(keyFingerprint(KEY), keyFingerprint(otherKey)), fc.string()),
						fc.record({ fetchedAt: fc.oneof(fc.integer(), wrongTyped), items: fc.oneof(payload, wrongTyped) }),
					),
					wrongTyped,
				),
			})
			.map((doc) =>
				JSON.stringify(doc, (_key, value) =>
					value && typeof value === "object" && "valid" in value && "item" in value ? value.item : value,
				),
			),
	);
	let n = 0;
	await target.check(
		fc.asyncProperty(fileText, payload, async (text, fresh) => {
			const agentDir = join(dir, `case-${n++}`);
			const cache = new CatalogCache(agentDir);
			mkdirSync(agentDir, { recursive: true });
			writeFileSync(cache.path, text);
			const cached = cache.read(KEY);
			if (cached) {
				expect(cached.items.length).toBeGreaterThan(0);
				checkCatalog(cached.items);
			}
			const before = cache.read(otherKey);
			const items = sanitizeCatalog(fresh.map((e) => e.item));
			await cache.write(KEY, { fetchedAt: 1_700_000_000_000, items });
			// Our entry round-trips; another key's usable entry survives the write.
			expect(cache.read(KEY)?.items ?? []).toEqual(items);
			expect(cache.read(otherKey)).toEqual(before);
			expect(readFileSync(cache.path, "utf8")).not.toContain(KEY);
			rmSync(agentDir, { recursive: true, force: true });
		}),
		400,
	);
});
