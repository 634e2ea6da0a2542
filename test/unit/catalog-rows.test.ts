import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FALLBACK_CONTEXT_WINDOWS } from "../../src/catalog/context-windows.generated.ts";
import { FALLBACK_CATALOG_MODEL_COUNT, FALLBACK_MODELS } from "../../src/catalog/fallback-models.generated.ts";
import { buildCatalog, CURSOR_API } from "../../src/catalog/rows.ts";
import type { CursorModelRow, RowMeta } from "../../src/catalog/types.ts";

// Golden rows for the bundled catalog, checked by hand against the spec before being recorded.
// After an intentional change: UPDATE_GOLDEN=1 bun test test/unit/catalog-rows.test.ts, then review the diff.
const GOLDEN_PATH = join(import.meta.dir, "..", "fixtures", "catalog-rows.golden.json");

interface GoldenRow {
	id: string;
	name: string;
	baseId: string;
	selectionId: string;
	context?: string;
	forcedFast?: boolean;
	reasoning: boolean;
	thinkingLevelMap?: Record<string, string | null>;
	contextWindow: number;
	maxTokens: number;
	defaultThinkingLevel?: string;
}

const { rows, meta } = buildCatalog(FALLBACK_MODELS, FALLBACK_CONTEXT_WINDOWS);

function summarize(row: CursorModelRow, rowMeta: RowMeta | undefined): GoldenRow {
	const summary = {
		id: row.id,
		name: row.name,
		baseId: rowMeta?.baseId,
		selectionId: rowMeta?.selectionId,
		context: rowMeta?.context,
		forcedFast: rowMeta?.forcedFast,
		reasoning: row.reasoning,
		thinkingLevelMap: row.thinkingLevelMap,
		contextWindow: row.contextWindow,
		maxTokens: row.maxTokens,
		defaultThinkingLevel: rowMeta?.defaultThinkingLevel,
	};
	return JSON.parse(JSON.stringify(summary)) as GoldenRow;
}

const actual = rows.map((row) => summarize(row, meta.get(row.id)));

if (process.env.UPDATE_GOLDEN === "1") {
	const about =
		"Pi rows built from src/catalog/fallback-models.generated.ts + context-windows.generated.ts. " +
		"Regenerate: UPDATE_GOLDEN=1 bun test test/unit/catalog-rows.test.ts, then review the diff.";
	writeFileSync(GOLDEN_PATH, `${JSON.stringify({ about, rows: actual }, null, "\t")}\n`);
}

const golden = (JSON.parse(readFileSync(GOLDEN_PATH, "utf8")) as { rows: GoldenRow[] }).rows;
const actualById = new Map(actual.map((row) => [row.id, row]));

describe("bundled catalog rows match the golden snapshot", () => {
	test("registered ids, in registration order", () => {
		expect(actual.map((row) => row.id)).toEqual(golden.map((row) => row.id));
	});

	test.each(golden.map((row) => [row.id, row] as const))("%s", (id, expected) => {
		expect(actualById.get(id)).toEqual(expected);
	});
});

describe("every captured model is registered", () => {
	test("the bundle holds all 45 captured models", () => {
		expect(FALLBACK_MODELS.length).toBe(45);
		expect(FALLBACK_CATALOG_MODEL_COUNT).toBe(45);
	});

	test.each(FALLBACK_MODELS.map((item) => [item.id, item] as const))("%s", (id, item) => {
		const contexts = item.parameters?.find((param) => param.id === "context")?.values.map((entry) => entry.value);
		const baseRows = rows.filter((row) => meta.get(row.id)?.baseId === id && meta.get(row.id)?.selectionId === id);
		const plainIds = baseRows.filter((row) => meta.get(row.id)?.forcedFast === undefined).map((row) => row.id);
		expect(plainIds).toEqual(contexts === undefined ? [id] : contexts.map((context) => `${id}@${context}`));
	});
});

describe("row invariants", () => {
	test("ids are unique and every row has metadata keyed by its id", () => {
		expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
		expect([...meta.keys()]).toEqual(rows.map((row) => row.id));
		for (const row of rows) expect(meta.get(row.id)?.id).toBe(row.id);
	});

	test("rows carry only Pi fields: api, text+image input, zero cost", () => {
		for (const row of rows) {
			const keys = Object.keys(row).sort();
			const expectedKeys = ["api", "contextWindow", "cost", "id", "input", "maxTokens", "name", "reasoning"];
			if (row.reasoning) expectedKeys.push("thinkingLevelMap");
			expect(keys).toEqual(expectedKeys.sort());
			expect(row.api).toBe(CURSOR_API);
			expect(row.input).toEqual(["text", "image"]);
			expect(row.cost).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
		}
	});

	test("reasoning rows spell out every Pi level, null when unsupported", () => {
		for (const row of rows.filter((candidate) => candidate.reasoning)) {
			expect(Object.keys(row.thinkingLevelMap ?? {})).toEqual([
				"off",
				"minimal",
				"low",
				"medium",
				"high",
				"xhigh",
				"max",
			]);
		}
	});

	test("maxTokens is conservative: min(32000, contextWindow / 4)", () => {
		for (const row of rows) expect(row.maxTokens).toBe(Math.min(32_000, Math.floor(row.contextWindow / 4)));
	});

	test(":fast and :slow rows copy the metadata of the row they suffix and force fast", () => {
		const virtual = rows.filter((row) => meta.get(row.id)?.forcedFast !== undefined);
		expect(virtual.length).toBeGreaterThan(0);
		for (const row of virtual) {
			const parentId = row.id.replace(/:(fast|slow)$/, "");
			const parent = rows.find((candidate) => candidate.id === parentId);
			const parentMeta = meta.get(parentId);
			const rowMeta = meta.get(row.id) as RowMeta;
			expect(parent).toBeDefined();
			expect({ ...row, id: parentId, name: parent?.name }).toEqual(parent as CursorModelRow);
			expect(rowMeta.forcedFast).toBe(row.id.endsWith(":fast"));
			const unforced: RowMeta = { ...rowMeta, id: parentId, forcedFast: undefined };
			expect(unforced).toEqual(parentMeta as RowMeta);
			expect(rowMeta.capabilities.fast).toBe(true);
		}
	});

	test("alias rows share the base row's metadata and send the alias", () => {
		const aliasRows = rows.filter((row) => meta.get(row.id)?.selectionId !== meta.get(row.id)?.baseId);
		expect(aliasRows.length).toBeGreaterThan(0);
		for (const row of aliasRows) {
			const rowMeta = meta.get(row.id) as RowMeta;
			const baseId = row.id.replace(rowMeta.selectionId, rowMeta.baseId);
			const base = rows.find((candidate) => candidate.id === baseId);
			expect({ ...row, id: baseId }).toEqual(base as CursorModelRow);
			expect({ ...rowMeta, id: baseId, selectionId: rowMeta.baseId }).toEqual(meta.get(baseId) as RowMeta);
		}
	});

	test("registration is sorted by base id, then context in SDK order", () => {
		const order = rows.map((row) => meta.get(row.id) as RowMeta);
		const baseIds = order.map((entry) => entry.baseId);
		expect(baseIds).toEqual([...baseIds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
		expect(rows.map((row) => row.id).filter((id) => id.startsWith("gpt-5.5@"))).toEqual([
			"gpt-5.5@272k",
			"gpt-5.5@272k:fast",
			"gpt-5.5@272k:slow",
			"gpt-5.5@1m",
		]);
	});

	test("input order does not change the result", () => {
		const reversed = buildCatalog([...FALLBACK_MODELS].reverse(), FALLBACK_CONTEXT_WINDOWS);
		expect(reversed.rows).toEqual(rows);
		expect([...reversed.meta.entries()]).toEqual([...meta.entries()]);
	});
});

describe("context windows for the spec's examples", () => {
	const windowOf = (id: string) => rows.find((row) => row.id === id)?.contextWindow;

	test.each([
		["gpt-5.5@272k", 272_000],
		["gpt-5.5@1m", 1_000_000],
		["claude-opus-4-8@300k", 300_000],
		["claude-opus-4-8@1m", 300_000],
		["opus-4-8@1m", 300_000],
		["grok-4.7@500k", 256_000],
		["grok-4.7@500k:slow", 256_000],
		["gpt-5-mini", 272_000],
		["auto-smart", 200_000],
	])("%s → %d", (id, expected) => {
		expect(windowOf(id)).toBe(expected);
	});
});
