import { describe, expect, test } from "bun:test";
import { rowCapabilities } from "../../src/catalog/capabilities.ts";
import {
	conservativeMaxTokens,
	groupObservations,
	parseContextLabel,
	resolveContextWindow,
} from "../../src/catalog/context.ts";
import { buildCatalog } from "../../src/catalog/rows.ts";
import { buildThinkingLevelMap, isPiControllable } from "../../src/catalog/thinking-map.ts";
import type { CatalogItem, ContextWindowTable } from "../../src/catalog/types.ts";
import { variant } from "../support/catalog-builders.ts";

function withParams(params: Record<string, string[]>, variants?: CatalogItem["variants"]): CatalogItem {
	return {
		id: "m",
		displayName: "M",
		parameters: Object.entries(params).map(([id, values]) => ({ id, values: values.map((value) => ({ value })) })),
		...(variants === undefined ? {} : { variants }),
	};
}

const mapOf = (params: Record<string, string[]>) =>
	buildThinkingLevelMap(rowCapabilities(withParams(params), undefined));

describe("thinkingLevelMap from discovered params", () => {
	test.each([
		[
			"reasoning with none and extra-high",
			{ reasoning: ["none", "low", "medium", "high", "extra-high"] },
			{ off: "none", minimal: null, low: "low", medium: "medium", high: "high", xhigh: "extra-high", max: null },
		],
		[
			"reasoning with off",
			{ reasoning: ["off", "high"] },
			{ off: "off", minimal: null, low: null, medium: null, high: "high", xhigh: null, max: null },
		],
		[
			"effort with minimal, xhigh and max",
			{ effort: ["minimal", "low", "medium", "high", "xhigh", "max"] },
			{ off: null, minimal: "minimal", low: "low", medium: "medium", high: "high", xhigh: "xhigh", max: "max" },
		],
		[
			"reasoning_effort",
			{ reasoning_effort: ["low", "medium", "high"] },
			{ off: null, minimal: null, low: "low", medium: "medium", high: "high", xhigh: null, max: null },
		],
		[
			"boolean thinking plus effort",
			{ thinking: ["false", "true"], effort: ["low", "high", "max"] },
			{ off: "false", minimal: null, low: "low", medium: null, high: "high", xhigh: null, max: "max" },
		],
		[
			"boolean-only thinking",
			{ thinking: ["false", "true"] },
			{ off: "false", minimal: null, low: null, medium: null, high: "true", xhigh: null, max: null },
		],
	])("%s", (_name, params, expected) => {
		expect(mapOf(params)).toEqual(expected);
	});

	test("no controllable param means no Pi thinking control", () => {
		expect(isPiControllable(rowCapabilities(withParams({ optimize_for: ["cost", "balanced"] }), undefined))).toBe(
			false,
		);
		expect(isPiControllable(rowCapabilities(withParams({ fast: ["false", "true"] }), undefined))).toBe(false);
		expect(isPiControllable(rowCapabilities(withParams({ thinking: ["true"] }), undefined))).toBe(false);
		expect(isPiControllable(rowCapabilities(withParams({ reasoning: ["high"] }), undefined))).toBe(false);
		expect(isPiControllable(rowCapabilities(withParams({ reasoning: ["low", "high"] }), undefined))).toBe(true);
	});

	test("a context row only advertises values its own variants offer", () => {
		const item = withParams({ context: ["small", "big"], reasoning: ["low", "high", "max"], fast: ["false", "true"] }, [
			variant({ context: "small", reasoning: "low", fast: "false" }),
			variant({ context: "small", reasoning: "high", fast: "true" }),
			variant({ context: "big", reasoning: "max", fast: "false" }),
		]);
		const small = rowCapabilities(item, "small");
		const big = rowCapabilities(item, "big");
		expect(small.supportedValues.reasoning).toEqual(["low", "high"]);
		expect(small.fast).toBe(true);
		expect(big.supportedValues.reasoning).toEqual(["max"]);
		expect(big.fast).toBe(false);
		expect(small.contextValues).toEqual(["small", "big"]);
	});

	test("declared context values no variant carries are not registered", () => {
		const item = withParams({ context: ["200k", "2m"] }, [
			{ params: [{ id: "context", value: "200k" }], displayName: "M" },
		]);
		expect(buildCatalog([item], {}).rows.map((row) => row.id)).toEqual(["m@200k"]);
	});
});

describe("context windows", () => {
	test.each([
		["272k", 272_000],
		["1m", 1_000_000],
		["1M", 1_000_000],
		["300K", 300_000],
		["1.5m", 1_500_000],
		["max", undefined],
		["0k", undefined],
		["", undefined],
	])("parseContextLabel(%p) → %p", (label, expected) => {
		expect(parseContextLabel(label)).toBe(expected);
	});

	test("maxTokens is a quarter of the window, capped at 32000", () => {
		expect(conservativeMaxTokens(200_000)).toBe(32_000);
		expect(conservativeMaxTokens(64_000)).toBe(16_000);
	});

	const selectables = [
		{ id: "m@1m", baseId: "m", context: "1m" },
		{ id: "alias@1m", baseId: "m", context: "1m" },
		{ id: "alias@1m:slow", baseId: "m", context: "1m" },
		{ id: "m@300k", baseId: "m", context: "300k" },
		{ id: "m@odd", baseId: "m", context: "odd" },
		{ id: "plain", baseId: "plain", context: undefined },
		{ id: "plain:slow", baseId: "plain", context: undefined },
	];
	const resolve = (table: ContextWindowTable, id: string) => {
		const row = selectables.find((selectable) => selectable.id === id);
		if (row === undefined) throw new Error(id);
		return resolveContextWindow(table, groupObservations(table, selectables), row);
	};

	test("order: exact id, equivalent selection, context label, base id, default", () => {
		const table = { default: 100_000, "alias@1m": 400_000, "alias@1m:slow": 350_000, m: 123_000 };
		expect(resolve(table, "alias@1m")).toBe(400_000);
		expect(resolve(table, "m@1m")).toBe(350_000);
		expect(resolve(table, "m@300k")).toBe(300_000);
		expect(resolve(table, "m@odd")).toBe(123_000);
		expect(resolve(table, "plain")).toBe(100_000);
		expect(resolve({ "plain:slow": 90_000 }, "plain")).toBe(90_000);
		expect(resolve({}, "plain")).toBe(200_000);
	});

	test("an observation below the label wins (default/non-Max limit)", () => {
		expect(resolve({ "m@1m": 300_000 }, "m@1m")).toBe(300_000);
	});

	test("rows use the table end to end, :fast/:slow rows included", () => {
		const item = withParams({ context: ["256k", "500k"], fast: ["false", "true"] }, [
			variant({ context: "256k", fast: "false" }),
			variant({ context: "256k", fast: "true" }),
			variant({ context: "500k", fast: "false" }),
			variant({ context: "500k", fast: "true" }, { isDefault: true }),
		]);
		const { rows } = buildCatalog([item], { "m@500k:slow": 256_000 });
		expect(Object.fromEntries(rows.map((row) => [row.id, row.contextWindow]))).toEqual({
			"m@256k": 256_000,
			"m@256k:fast": 256_000,
			"m@256k:slow": 256_000,
			"m@500k": 256_000,
			"m@500k:fast": 256_000,
			"m@500k:slow": 256_000,
		});
	});
});
