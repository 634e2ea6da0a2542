import { describe, expect, test } from "bun:test";
import { buildCatalog } from "../../src/catalog/rows.ts";
import type { CatalogItem } from "../../src/catalog/types.ts";
import { variant } from "../support/catalog-builders.ts";

const FAST = { id: "fast", values: [{ value: "false" }, { value: "true" }] };

function model(id: string, aliases: string[], extra: Partial<CatalogItem> = {}): CatalogItem {
	return { id, displayName: id.toUpperCase(), aliases, ...extra };
}

function ids(items: readonly CatalogItem[]): string[] {
	return buildCatalog(items, {}).rows.map((row) => row.id);
}

function selectionIds(items: readonly CatalogItem[]): Record<string, string | undefined> {
	const { rows, meta } = buildCatalog(items, {});
	return Object.fromEntries(rows.map((row) => [row.id, meta.get(row.id)?.selectionId]));
}

describe("SDK aliases", () => {
	test("an unambiguous alias gets its own row that sends the alias", () => {
		expect(selectionIds([model("m-1", ["m-latest"])])).toEqual({ "m-1": "m-1", "m-latest": "m-latest" });
	});

	test("an alias equal to another model's base id is skipped", () => {
		expect(ids([model("a", ["b"]), model("b", [])])).toEqual(["a", "b"]);
		expect(selectionIds([model("a", ["b"]), model("b", [])])).toEqual({ a: "a", b: "b" });
	});

	test("an alias equal to the model's own id adds nothing", () => {
		expect(ids([model("a", ["a", "a-alias"])])).toEqual(["a", "a-alias"]);
	});

	test("an alias shared by several base models is skipped for all of them", () => {
		expect(ids([model("a", ["family", "a-1"]), model("b", ["family"]), model("c", [])])).toEqual([
			"a",
			"a-1",
			"b",
			"c",
		]);
	});

	test("a shared alias is skipped even when listed twice by one of its owners", () => {
		expect(ids([model("a", ["family", "family"]), model("b", ["family"])])).toEqual(["a", "b"]);
	});

	test("duplicate aliases on one model give one row", () => {
		expect(ids([model("fable-x", ["fable", "fable", "fable-x-alias", "fable"])])).toEqual([
			"fable-x",
			"fable",
			"fable-x-alias",
		]);
	});

	test("aliases that would read as a context or suffix, or contain whitespace, are skipped", () => {
		expect(ids([model("a", ["a@1m", "a:fast", "with space", "", "ok"])])).toEqual(["a", "ok"]);
	});

	test("alias rows follow their base row within each context, with :fast/:slow after each", () => {
		const item = model("m", ["m-alias"], {
			parameters: [{ id: "context", values: [{ value: "200k" }, { value: "1m" }] }, FAST],
			variants: [
				variant({ context: "200k", fast: "false" }),
				variant({ context: "200k", fast: "true" }),
				variant({ context: "1m", fast: "false" }, { isDefault: true }),
			],
		});
		expect(ids([item])).toEqual([
			"m@200k",
			"m@200k:fast",
			"m@200k:slow",
			"m-alias@200k",
			"m-alias@200k:fast",
			"m-alias@200k:slow",
			"m@1m",
			"m-alias@1m",
		]);
	});

	test("the result does not depend on catalog order", () => {
		const items = [model("b", ["shared", "b-1"]), model("a", ["shared", "a-1"]), model("c", ["a"])];
		expect(ids(items)).toEqual(["a", "a-1", "b", "b-1", "c"]);
		expect(ids([...items].reverse())).toEqual(ids(items));
	});

	test("a duplicated base id keeps the first model only", () => {
		const { rows } = buildCatalog([model("a", ["first"]), model("a", ["second"])], {});
		expect(rows.map((row) => row.id)).toEqual(["a", "first"]);
	});
});
