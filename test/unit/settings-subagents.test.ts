// Custom subagents from cursor-sdk.json: which entries are usable, what the SDK receives, and the digest that
// decides whether the pooled agent can be kept.
import { describe, expect, test } from "bun:test";
import { CatalogState } from "../../src/catalog/state.ts";
import {
	buildSubagentDefinitions,
	catalogSubagentResolver,
	definitionsDigest,
	effectiveSubagents,
	parseSubagents,
	subagentsWarning,
} from "../../src/settings/subagents.ts";

const noModels = () => undefined;

describe("parseSubagents", () => {
	test("keeps valid entries (trimmed, unknown fields dropped) and names every skipped one with its reason", () => {
		const set = parseSubagents({
			reviewer: { description: "  Reviews diffs ", prompt: "\tBe strict.\n", color: "red", tools: ["read"] },
			"bad name": { description: "d", prompt: "p" },
			blank: { description: "   ", prompt: "p" },
			noPrompt: { description: "d" },
			wrongFast: { description: "d", prompt: "p", fast: "yes" },
			wrongThinking: { description: "d", prompt: "p", thinking: "extreme" },
			wrongModel: { description: "d", prompt: "p", model: 5 },
			notObject: "just a string",
		});
		expect(set.entries).toEqual([{ name: "reviewer", description: "Reviews diffs", prompt: "Be strict." }]);
		expect(set.skipped.map((s) => s.name).sort()).toEqual(
			["bad name", "blank", "noPrompt", "notObject", "wrongFast", "wrongModel", "wrongThinking"].sort(),
		);
		expect(set.skipped.find((s) => s.name === "blank")?.reason).toContain("description");
		expect(set.skipped.find((s) => s.name === "noPrompt")?.reason).toContain("prompt");
	});

	test("names follow the policy: a letter first, up to 64 of letters, digits, . _ -", () => {
		const ok = ["a", "Z.9_x-y", `a${"b".repeat(63)}`];
		const bad = ["1abc", "-a", "_a", `a${"b".repeat(64)}`, "a b", "a/b", "ä"];
		const raw = Object.fromEntries([...ok, ...bad].map((name) => [name, { description: "d", prompt: "p" }]));
		const set = parseSubagents(raw);
		expect(set.entries.map((e) => e.name).sort()).toEqual([...ok].sort());
		expect(set.skipped.map((s) => s.name).sort()).toEqual([...bad].sort());
	});

	test("optional model (trimmed; blank = absent), thinking level and fast are kept", () => {
		const set = parseSubagents({
			a: { description: "d", prompt: "p", model: " composer-2 ", thinking: "high", fast: false },
			b: { description: "d", prompt: "p", model: "   " },
			c: { description: "d", prompt: "p", model: "inherit" },
		});
		expect(set.entries).toEqual([
			{ name: "a", description: "d", prompt: "p", model: "composer-2", thinking: "high", fast: false },
			{ name: "b", description: "d", prompt: "p" },
			{ name: "c", description: "d", prompt: "p", model: "inherit" },
		]);
	});

	test("names like constructor or toString stay plain data, end to end; __proto__ is not a valid name", () => {
		const raw = JSON.parse(
			'{"constructor": {"description": "d1", "prompt": "p1"}, "toString": {"description": "d2", "prompt": "p2"}, "__proto__": {"description": "d3", "prompt": "p3"}}',
		);
		const set = parseSubagents(raw);
		expect(set.entries.map((e) => e.name)).toEqual(["constructor", "toString"]);
		expect(set.skipped.map((s) => s.name)).toEqual(["__proto__"]);
		const definitions = buildSubagentDefinitions(set, noModels);
		expect(Object.keys(definitions)).toEqual(["constructor", "toString"]);
		expect(definitions["constructor" as string]).toEqual({ description: "d1", prompt: "p1" });
		expect(Object.getPrototypeOf(definitions)).toBe(null);
	});

	test("anything but an object gives no entries and nothing skipped", () => {
		for (const raw of [undefined, null, [], "x", 3]) expect(parseSubagents(raw)).toEqual({ entries: [], skipped: [] });
	});
});

describe("which set applies", () => {
	const user = parseSubagents({ u: { description: "d", prompt: "p" } });
	test("a usable project set replaces the whole user set", () => {
		const project = parseSubagents({ p: { description: "d", prompt: "p" } });
		expect(effectiveSubagents(project, user).entries.map((e) => e.name)).toEqual(["p"]);
	});
	test("an empty or all-invalid project set, or none, leaves the user set", () => {
		expect(effectiveSubagents(parseSubagents({}), user)).toBe(user);
		expect(effectiveSubagents(parseSubagents({ x: { prompt: "p" } }), user)).toBe(user);
		expect(effectiveSubagents(undefined, user)).toBe(user);
	});
});

describe("warning", () => {
	test("one warning naming the file and each skipped entry; none when all are usable", () => {
		const set = parseSubagents({ good: { description: "d", prompt: "p" }, broken: { description: "d" } });
		const warning = subagentsWarning(set, "/home/u/.pi/agent/cursor-sdk.json");
		expect(warning).toContain("/home/u/.pi/agent/cursor-sdk.json");
		expect(warning).toContain('"broken"');
		expect(warning).not.toContain('"good"');
		expect(subagentsWarning(parseSubagents({ good: { description: "d", prompt: "p" } }), "f")).toBeUndefined();
	});
});

describe("definitions for the SDK", () => {
	const catalog = new CatalogState();
	const resolve = catalogSubagentResolver(catalog);

	test("omitted model stays absent, inherit stays literal (thinking/fast cannot override inheritance)", () => {
		const set = parseSubagents({
			a: { description: "d", prompt: "p", thinking: "high", fast: true },
			b: { description: "d", prompt: "p", model: "inherit", thinking: "high" },
		});
		const definitions = buildSubagentDefinitions(set, resolve);
		expect({ ...definitions }).toEqual({
			a: { description: "d", prompt: "p" },
			b: { description: "d", prompt: "p", model: "inherit" },
		});
	});

	test("catalog models resolve through the selection builder; a :slow row beats the entry's fast", () => {
		const withFast = catalog.models.find((m) => m.id.endsWith(":slow"));
		expect(withFast).toBeDefined();
		const slowId = withFast?.id ?? "";
		const set = parseSubagents({
			plain: { description: "d", prompt: "p", model: `cursor/${slowId.replace(/:slow$/, "")}`, fast: true },
			slow: { description: "d", prompt: "p", model: slowId, fast: true },
		});
		const definitions = buildSubagentDefinitions(set, resolve);
		const fastOf = (name: string) => {
			const model = definitions[name]?.model;
			return typeof model === "object" ? model.params?.find((p) => p.id === "fast")?.value : undefined;
		};
		expect(fastOf("plain")).toBe("true");
		expect(fastOf("slow")).toBe("false");
	});

	test("an id the catalog does not know is sent as the bare id", () => {
		const definitions = buildSubagentDefinitions(
			parseSubagents({ a: { description: "d", prompt: "p", model: "future-model-9" } }),
			resolve,
		);
		expect(definitions.a?.model).toEqual({ id: "future-model-9" });
	});
});

describe("definitionsDigest", () => {
	const def = (
		prompt: string,
		params = [
			{ id: "fast", value: "true" },
			{ id: "context", value: "1m" },
		],
	) => ({
		b: { description: "d", prompt, model: { id: "gpt", params } },
		a: { description: "d", prompt: "p", model: "inherit" as const },
	});

	test("no definitions → no digest (the pool key stays as it was)", () => {
		expect(definitionsDigest({})).toBeUndefined();
	});

	test("independent of entry, property and param order", () => {
		const one = def("x");
		const two = {
			a: { model: "inherit" as const, prompt: "p", description: "d" },
			b: {
				model: {
					params: [
						{ value: "1m", id: "context" },
						{ id: "fast", value: "true" },
					],
					id: "gpt",
				},
				prompt: "x",
				description: "d",
			},
		};
		expect(definitionsDigest(two)).toBe(definitionsDigest(one) as string);
	});

	test("changes with the prompt, the model params, an added or a removed entry", () => {
		const base = definitionsDigest(def("x"));
		expect(definitionsDigest(def("y"))).not.toBe(base as string);
		expect(definitionsDigest(def("x", [{ id: "fast", value: "false" }]))).not.toBe(base as string);
		const { a: _removed, ...onlyB } = def("x");
		expect(definitionsDigest(onlyB)).not.toBe(base as string);
		expect(definitionsDigest({ ...def("x"), c: { description: "d", prompt: "p" } })).not.toBe(base as string);
	});
});
