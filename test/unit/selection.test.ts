import { describe, expect, test } from "bun:test";
import type { ModelThinkingLevel } from "@earendil-works/pi-ai";
import { FALLBACK_CONTEXT_WINDOWS } from "../../src/catalog/context-windows.generated.ts";
import { FALLBACK_MODELS } from "../../src/catalog/fallback-models.generated.ts";
import { buildCatalog } from "../../src/catalog/rows.ts";
import type { CatalogItem, ContextWindowTable } from "../../src/catalog/types.ts";
import { buildModelSelection } from "../../src/selection.ts";
import { catalogItem, levelMap, type ParamShape, parameters, variants } from "../support/catalog-builders.ts";

// Hand-written expectations from the spec's "Detailed Examples", "Claude Behavior", the Gemini 3.8 note and
// "Grok 4.7 Default-context Compatibility". Where the captured catalog differs from the spec's prose (opus 4.8's
// default effort, its `cyber`/`fast` params) the spec-shaped model is tested as a synthetic item and the captured
// model is tested with its captured params.

type Level = ModelThinkingLevel | undefined;

function selector(items: readonly CatalogItem[], windows: ContextWindowTable = {}) {
	const { rows, meta } = buildCatalog(items, windows);
	return {
		rows,
		meta,
		select(id: string, level: Level, fast?: boolean): string {
			const rowMeta = meta.get(id);
			if (rowMeta === undefined) throw new Error(`no row ${id}`);
			const item = items.find((candidate) => candidate.id === rowMeta.baseId) as CatalogItem;
			const selection = buildModelSelection(rowMeta, item, level, fast);
			return `${selection.id} ${selection.params.map((param) => `${param.id}=${param.value}`).join("; ")}`.trim();
		},
		row(id: string) {
			return rows.find((row) => row.id === id);
		},
	};
}

/** Claude as the spec shapes it: a thinking toggle, two contexts, and an effort parameter under `effort`'s name. */
const claudeShape = (effort: string): ParamShape => [
	["thinking", ["false", "true"]],
	["context", ["300k", "1m"]],
	[effort, ["low", "medium", "high", "xhigh", "max"]],
];

const bundled = selector(FALLBACK_MODELS, FALLBACK_CONTEXT_WINDOWS);

describe("Composer 2 / 2.5", () => {
	test("initial Cursor default: fast=true, no thinking control", () => {
		expect(bundled.select("composer-2-5", undefined)).toBe("composer-2-5 fast=true");
		expect(bundled.row("composer-2-5")?.reasoning).toBe(false);
		expect(bundled.meta.get("composer-2-5")?.capabilities.fast).toBe(true);
	});

	test("toggle fast sends fast=false", () => {
		expect(bundled.select("composer-2-5", undefined, false)).toBe("composer-2-5 fast=false");
		expect(bundled.select("composer-2.5", undefined, false)).toBe("composer-2.5 fast=false");
		expect(bundled.select("composer-2", undefined, false)).toBe("composer-2 fast=false");
	});

	test("shift+tab is a no-op: any level leaves the params alone", () => {
		expect(bundled.select("composer-2-5", "high")).toBe("composer-2-5 fast=true");
		expect(bundled.select("composer-2-5", "low", false)).toBe("composer-2-5 fast=false");
	});

	test(":fast and :slow force fast over the extension state", () => {
		expect(bundled.select("composer-2-5:fast", undefined, false)).toBe("composer-2-5 fast=true");
		expect(bundled.select("composer-2-5:slow", undefined, true)).toBe("composer-2-5 fast=false");
		expect(bundled.select("composer-2-5:slow", undefined)).toBe("composer-2-5 fast=false");
	});
});

describe("gpt-5.5", () => {
	test("initial Cursor default on @1m", () => {
		expect(bundled.select("gpt-5.5@1m", "medium")).toBe("gpt-5.5 context=1m; reasoning=medium; fast=false");
		expect(bundled.meta.get("gpt-5.5@1m")?.defaultThinkingLevel).toBe("medium");
	});

	test("after selecting the 272k variant", () => {
		expect(bundled.select("gpt-5.5@272k", "medium")).toBe("gpt-5.5 context=272k; reasoning=medium; fast=false");
		expect(bundled.row("gpt-5.5@272k")?.contextWindow).toBe(272000);
	});

	test("after fast toggle", () => {
		expect(bundled.select("gpt-5.5@272k", "medium", true)).toBe("gpt-5.5 context=272k; reasoning=medium; fast=true");
	});

	test("after shift+tab to xhigh: extra-high", () => {
		expect(bundled.select("gpt-5.5@272k", "xhigh", true)).toBe("gpt-5.5 context=272k; reasoning=extra-high; fast=true");
	});

	test("off sends reasoning=none", () => {
		expect(bundled.select("gpt-5.5@272k", undefined)).toBe("gpt-5.5 context=272k; reasoning=none; fast=false");
		expect(bundled.select("gpt-5.5@272k", "off")).toBe("gpt-5.5 context=272k; reasoning=none; fast=false");
	});

	test("max has no Cursor value: the catalog default stays", () => {
		expect(bundled.row("gpt-5.5@272k")?.thinkingLevelMap?.max).toBeNull();
		expect(bundled.select("gpt-5.5@272k", "max")).toBe("gpt-5.5 context=272k; reasoning=medium; fast=false");
	});

	test("@1m offers no fast=true: fast state falls back to fast=false and keeps the context", () => {
		expect(bundled.select("gpt-5.5@1m", "high", true)).toBe("gpt-5.5 context=1m; reasoning=high; fast=false");
		expect(bundled.meta.get("gpt-5.5@1m")?.capabilities.fast).toBe(false);
		expect(bundled.meta.has("gpt-5.5@1m:fast")).toBe(false);
		expect(bundled.meta.has("gpt-5.5@272k:fast")).toBe(true);
	});

	test("the alias row sends the alias", () => {
		expect(bundled.select("gpt-5-5@272k:fast", "low")).toBe("gpt-5-5 context=272k; reasoning=low; fast=true");
	});
});

describe("gpt-5.3-codex", () => {
	test("initial Cursor default", () => {
		expect(bundled.select("gpt-5.3-codex", "high")).toBe("gpt-5.3-codex reasoning=high; fast=true");
		expect(bundled.meta.get("gpt-5.3-codex")?.defaultThinkingLevel).toBe("high");
	});

	test("after shift+tab to low", () => {
		expect(bundled.select("gpt-5.3-codex", "low")).toBe("gpt-5.3-codex reasoning=low; fast=true");
	});

	test("xhigh maps to extra-high", () => {
		expect(bundled.select("gpt-5.3-codex", "xhigh")).toBe("gpt-5.3-codex reasoning=extra-high; fast=true");
	});

	test("no context variant", () => {
		expect(bundled.meta.get("gpt-5.3-codex")?.context).toBeUndefined();
		expect(bundled.rows.filter((row) => row.id.startsWith("gpt-5.3-codex@"))).toEqual([]);
	});
});

describe("claude-opus-4-8 as the spec describes it (thinking, context, effort; default effort=xhigh)", () => {
	const specOpus = catalogItem("claude-opus-4-8", "Claude Opus 4.8", claudeShape("effort"), {
		thinking: "true",
		context: "1m",
		effort: "xhigh",
	});
	const spec = selector([specOpus]);

	test("initial Cursor default", () => {
		expect(spec.select("claude-opus-4-8@1m", "xhigh")).toBe("claude-opus-4-8 thinking=true; context=1m; effort=xhigh");
		expect(spec.meta.get("claude-opus-4-8@1m")?.defaultThinkingLevel).toBe("xhigh");
	});

	test("after selecting the 300k variant", () => {
		expect(spec.select("claude-opus-4-8@300k", "xhigh")).toBe(
			"claude-opus-4-8 thinking=true; context=300k; effort=xhigh",
		);
		expect(spec.row("claude-opus-4-8@300k")?.contextWindow).toBe(300000);
	});

	test("after shift+tab to high", () => {
		expect(spec.select("claude-opus-4-8@300k", "high")).toBe(
			"claude-opus-4-8 thinking=true; context=300k; effort=high",
		);
	});

	test("after shift+tab to off: thinking=false, effort omitted", () => {
		expect(spec.select("claude-opus-4-8@300k", undefined)).toBe("claude-opus-4-8 thinking=false; context=300k");
	});
});

describe("claude-opus-4-8 as captured (undeclared cyber and fast carried from the variant)", () => {
	test("captured default effort is high", () => {
		expect(bundled.select("claude-opus-4-8@1m", "high")).toBe(
			"claude-opus-4-8 cyber=false; thinking=true; context=1m; effort=high; fast=false",
		);
		expect(bundled.meta.get("claude-opus-4-8@1m")?.defaultThinkingLevel).toBe("high");
	});

	test("xhigh on 300k", () => {
		expect(bundled.select("claude-opus-4-8@300k", "xhigh")).toBe(
			"claude-opus-4-8 cyber=false; thinking=true; context=300k; effort=xhigh; fast=false",
		);
	});

	test("off on 300k", () => {
		expect(bundled.select("claude-opus-4-8@300k", undefined)).toBe(
			"claude-opus-4-8 cyber=false; thinking=false; context=300k; fast=false",
		);
	});

	test("max is distinct from xhigh", () => {
		expect(bundled.select("opus-4.8@1m:fast", "max")).toBe(
			"opus-4.8 cyber=false; thinking=true; context=1m; effort=max; fast=true",
		);
	});

	test("minimal has no Cursor value: the catalog default stays", () => {
		expect(bundled.select("claude-opus-4-8@300k", "minimal")).toBe(
			"claude-opus-4-8 cyber=false; thinking=true; context=300k; effort=high; fast=false",
		);
	});

	test("claude-opus-5 off without xhigh/max variants under thinking=false still omits effort", () => {
		expect(bundled.select("claude-opus-5@300k:fast", "off")).toBe(
			"claude-opus-5 cyber=false; thinking=false; context=300k; fast=true",
		);
	});
});

describe("grok-4.5", () => {
	test("registers one plain row plus :fast/:slow, no context variants", () => {
		expect(bundled.rows.filter((row) => row.id.startsWith("grok-4.5")).map((row) => row.id)).toEqual([
			"grok-4.5",
			"grok-4.5:fast",
			"grok-4.5:slow",
		]);
	});

	test("low, medium and high map to effort", () => {
		expect(bundled.select("grok-4.5", "low")).toBe("grok-4.5 effort=low; fast=true");
		expect(bundled.select("grok-4.5", "medium")).toBe("grok-4.5 effort=medium; fast=true");
		expect(bundled.select("grok-4.5", "high")).toBe("grok-4.5 effort=high; fast=true");
	});

	test("levels without a catalog value do not invent one", () => {
		expect(bundled.row("grok-4.5")?.thinkingLevelMap).toEqual(levelMap({ low: "low", medium: "medium", high: "high" }));
		expect(bundled.select("grok-4.5", "xhigh")).toBe("grok-4.5 effort=high; fast=true");
		expect(bundled.select("grok-4.5", "max")).toBe("grok-4.5 effort=high; fast=true");
		expect(bundled.select("grok-4.5", undefined)).toBe("grok-4.5 effort=high; fast=true");
	});

	test("fast toggle maps to the fast param", () => {
		expect(bundled.select("grok-4.5", "low", false)).toBe("grok-4.5 effort=low; fast=false");
	});
});

describe("grok-4.6", () => {
	test("rows", () => {
		expect(bundled.rows.filter((row) => row.id.startsWith("grok-4.6")).map((row) => row.id)).toEqual([
			"grok-4.6",
			"grok-4.6:fast",
			"grok-4.6:slow",
		]);
	});

	test("default variant: effort=high, fast=true", () => {
		expect(bundled.select("grok-4.6", "high")).toBe("grok-4.6 effort=high; fast=true");
		expect(bundled.meta.get("grok-4.6")?.defaultThinkingLevel).toBe("high");
	});

	test("--cursor-no-fast and :slow send fast=false", () => {
		expect(bundled.select("grok-4.6", "high", false)).toBe("grok-4.6 effort=high; fast=false");
		expect(bundled.select("grok-4.6:slow", "high")).toBe("grok-4.6 effort=high; fast=false");
		expect(bundled.select("grok-4.6:slow", "high", true)).toBe("grok-4.6 effort=high; fast=false");
		expect(bundled.select("grok-4.6:fast", "low", false)).toBe("grok-4.6 effort=low; fast=true");
	});

	test("low, medium, high and xhigh map to effort; max does not invent a value", () => {
		expect(bundled.select("grok-4.6", "low")).toBe("grok-4.6 effort=low; fast=true");
		expect(bundled.select("grok-4.6", "medium")).toBe("grok-4.6 effort=medium; fast=true");
		expect(bundled.select("grok-4.6", "xhigh")).toBe("grok-4.6 effort=xhigh; fast=true");
		expect(bundled.select("grok-4.6", "max")).toBe("grok-4.6 effort=high; fast=true");
	});
});

describe("Haiku 5.5 (reasoning_effort with a thinking toggle, spec-shaped)", () => {
	const haiku = catalogItem("claude-haiku-5-5", "Claude Haiku 5.5", claudeShape("reasoning_effort"), {
		thinking: "true",
		context: "1m",
		reasoning_effort: "high",
	});
	const spec = selector([haiku]);

	test("20 variants", () => {
		expect(haiku.variants?.length).toBe(20);
	});

	test.each(["claude-haiku-5-5@300k", "claude-haiku-5-5@1m"])("%s exposes off, low, medium, high, xhigh, max", (id) => {
		expect(spec.row(id)?.thinkingLevelMap).toEqual(
			levelMap({ off: "false", low: "low", medium: "medium", high: "high", xhigh: "xhigh", max: "max" }),
		);
	});

	test("minimal keeps thinking=true, reasoning_effort=high and the selected context", () => {
		expect(spec.select("claude-haiku-5-5@300k", "minimal")).toBe(
			"claude-haiku-5-5 thinking=true; context=300k; reasoning_effort=high",
		);
		expect(spec.select("claude-haiku-5-5@1m", "minimal")).toBe(
			"claude-haiku-5-5 thinking=true; context=1m; reasoning_effort=high",
		);
	});

	test("off sends thinking=false and omits reasoning_effort", () => {
		expect(spec.select("claude-haiku-5-5@300k", undefined)).toBe("claude-haiku-5-5 thinking=false; context=300k");
	});

	test("enabled levels send thinking=true and the native value", () => {
		expect(spec.select("claude-haiku-5-5@300k", "low")).toBe(
			"claude-haiku-5-5 thinking=true; context=300k; reasoning_effort=low",
		);
		expect(spec.select("claude-haiku-5-5@1m", "xhigh")).toBe(
			"claude-haiku-5-5 thinking=true; context=1m; reasoning_effort=xhigh",
		);
		expect(spec.select("claude-haiku-5-5@1m", "max")).toBe(
			"claude-haiku-5-5 thinking=true; context=1m; reasoning_effort=max",
		);
	});
});

describe("Gemini 3.8 Flash", () => {
	test("low, medium and high map to reasoning_effort; the rest are unsupported", () => {
		expect(bundled.row("gemini-3.8-flash")?.thinkingLevelMap).toEqual(
			levelMap({ low: "low", medium: "medium", high: "high" }),
		);
		expect(bundled.select("gemini-3.8-flash", "low")).toBe("gemini-3.8-flash reasoning_effort=low");
		expect(bundled.select("gemini-3.8-flash", "medium")).toBe("gemini-3.8-flash reasoning_effort=medium");
	});

	test.each([undefined, "off", "minimal", "xhigh", "max"] as const)(
		"direct %s keeps the SDK's high default",
		(level) => {
			expect(bundled.select("gemini-3.8-flash", level)).toBe("gemini-3.8-flash reasoning_effort=high");
		},
	);
});

describe("Grok 4.7 default-context compatibility", () => {
	test("the default context (500k) is omitted; effort and fast stay explicit", () => {
		expect(bundled.select("grok-4.7@500k", "high")).toBe("grok-4.7 reasoning_effort=high; fast=true");
		expect(bundled.select("grok-4.7@500k", "medium", false)).toBe("grok-4.7 reasoning_effort=medium; fast=false");
	});

	test("the non-default context stays explicit", () => {
		expect(bundled.select("grok-4.7@256k", "high")).toBe("grok-4.7 context=256k; reasoning_effort=high; fast=true");
		expect(bundled.select("grok-4.7@256k:slow", "xhigh")).toBe(
			"grok-4.7 context=256k; reasoning_effort=xhigh; fast=false",
		);
	});

	test(":fast and :slow rows omit it too", () => {
		expect(bundled.select("grok-4.7@500k:slow", "high")).toBe("grok-4.7 reasoning_effort=high; fast=false");
		expect(bundled.select("grok-4.7@500k:fast", "low", false)).toBe("grok-4.7 reasoning_effort=low; fast=true");
	});

	test("row metadata keeps the selected context and its observed window", () => {
		expect(bundled.meta.get("grok-4.7@500k")?.context).toBe("500k");
		expect(bundled.row("grok-4.7@500k")?.contextWindow).toBe(256000);
	});

	const shape = [
		["context", ["256k", "500k"]],
		["reasoning_effort", ["low", "high"]],
	] as const;

	test("unambiguous aliases omit it too", () => {
		const grok: CatalogItem = {
			id: "grok-4.7",
			displayName: "Grok 4.7",
			aliases: ["grok-next"],
			parameters: parameters(shape),
			variants: variants("Grok 4.7", shape, { context: "500k", reasoning_effort: "high" }),
		};
		const spec = selector([grok]);
		expect(spec.select("grok-next@500k", "low")).toBe("grok-next reasoning_effort=low");
		expect(spec.select("grok-next@256k", "low")).toBe("grok-next context=256k; reasoning_effort=low");
	});

	test("the baseline is the first variant when none is marked default", () => {
		const grok: CatalogItem = {
			id: "grok-4.7",
			displayName: "Grok 4.7",
			parameters: parameters(shape),
			variants: variants("Grok 4.7", shape, {}),
		};
		const spec = selector([grok]);
		expect(spec.select("grok-4.7@256k", "high")).toBe("grok-4.7 reasoning_effort=high");
		expect(spec.select("grok-4.7@500k", "high")).toBe("grok-4.7 context=500k; reasoning_effort=high");
	});

	test("no default context means nothing is omitted", () => {
		const grok: CatalogItem = {
			id: "grok-4.7",
			displayName: "Grok 4.7",
			parameters: parameters(shape),
			variants: [
				{ params: [{ id: "reasoning_effort", value: "high" }], displayName: "Grok 4.7", isDefault: true },
				...variants("Grok 4.7", shape, {}),
			],
		};
		const spec = selector([grok]);
		expect(spec.select("grok-4.7@500k", "low")).toBe("grok-4.7 context=500k; reasoning_effort=low");
	});

	test("other models keep their complete selection, default context included", () => {
		expect(bundled.select("gpt-5.5@1m", "medium")).toBe("gpt-5.5 context=1m; reasoning=medium; fast=false");
		expect(bundled.select("muse-spark-1.3@1m", "high")).toBe("muse-spark-1.3 context=1m; effort=high");
	});
});

describe("level mapping rules", () => {
	test("boolean-only thinking: off → false, high → true, other levels keep the default", () => {
		expect(bundled.row("claude-sonnet-4@200k")?.thinkingLevelMap).toEqual(levelMap({ off: "false", high: "true" }));
		expect(bundled.select("claude-sonnet-4@200k", undefined)).toBe("claude-sonnet-4 thinking=false; context=200k");
		expect(bundled.select("claude-sonnet-4@200k", "high")).toBe("claude-sonnet-4 thinking=true; context=200k");
		expect(bundled.select("claude-sonnet-4@200k", "medium")).toBe("claude-sonnet-4 thinking=false; context=200k");
		expect(bundled.select("claude-haiku-4-5", "medium")).toBe("claude-haiku-4-5 thinking=true");
	});

	test("xhigh prefers xhigh over extra-high", () => {
		const item: CatalogItem = {
			id: "both",
			displayName: "Both",
			parameters: parameters([["reasoning", ["low", "extra-high", "xhigh"]]]),
			variants: variants("Both", [["reasoning", ["low", "extra-high", "xhigh"]]], { reasoning: "low" }),
		};
		const spec = selector([item]);
		expect(spec.row("both")?.thinkingLevelMap?.xhigh).toBe("xhigh");
		expect(spec.select("both", "xhigh")).toBe("both reasoning=xhigh");
	});

	test("max maps only to max, never to xhigh or extra-high", () => {
		expect(bundled.select("gpt-5.6-sol@272k", "max")).toBe("gpt-5.6-sol context=272k; reasoning=max; fast=false");
		expect(bundled.select("gpt-5.6-sol@272k", "xhigh")).toBe("gpt-5.6-sol context=272k; reasoning=xhigh; fast=false");
		expect(bundled.select("gpt-5.2", "max")).toBe("gpt-5.2 reasoning=high; fast=true");
	});

	test("minimal maps to a native minimal value", () => {
		expect(bundled.select("gemini-3.6-flash", "minimal")).toBe("gemini-3.6-flash effort=minimal");
		expect(bundled.select("muse@300k", "minimal")).toBe("muse context=300k; effort=minimal");
	});

	test("models without controls send their default variant", () => {
		expect(bundled.select("auto-smart", "high")).toBe("auto-smart optimize_for=balanced");
		expect(bundled.select("default", undefined)).toBe("default");
		expect(bundled.select("auto", undefined)).toBe("auto");
	});

	test("a mismatched catalog item is rejected", () => {
		const rowMeta = bundled.meta.get("grok-4.5");
		const other = FALLBACK_MODELS.find((item) => item.id === "grok-4.6") as CatalogItem;
		expect(() => buildModelSelection(rowMeta as NonNullable<typeof rowMeta>, other, "high", undefined)).toThrow();
	});

	test("a model without variants sends only declared requested values", () => {
		const item: CatalogItem = {
			id: "bare",
			displayName: "Bare",
			parameters: parameters([
				["context", ["100k"]],
				["effort", ["low", "high"]],
				["fast", ["false", "true"]],
			]),
		};
		const spec = selector([item]);
		expect(spec.select("bare@100k", "low", true)).toBe("bare context=100k; effort=low; fast=true");
		expect(spec.select("bare@100k:slow", "medium")).toBe("bare context=100k; fast=false");
	});
});
