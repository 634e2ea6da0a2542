import { describe, expect, test } from "bun:test";
import { Type } from "typebox";
import {
	assignMcpNames,
	buildBridgeSurface,
	buildToolManifestText,
	jsonSchemaOf,
	MAX_MCP_NAME_LENGTH,
	mcpDescription,
	type PiToolInfo,
} from "../../src/bridge/snapshot.ts";

const tool = (name: string, extra: Partial<PiToolInfo> = {}): PiToolInfo => ({
	name,
	description: `${name} does things`,
	parameters: Type.Object({ q: Type.String() }),
	exposure: "direct",
	...extra,
});

const BUILTINS = ["read", "bash", "write", "edit", "grep", "find", "ls"];

describe("which tools Cursor can call", () => {
	test.each([
		{
			name: "active extension tools are exposed, Pi's built-ins are not",
			active: [...BUILTINS, "web_search"],
			all: [...BUILTINS, "web_search"].map((n) => tool(n)),
			options: {},
			exposed: ["web_search"],
			reasons: { read: "builtin", bash: "builtin", ls: "builtin", web_search: "exposed" },
		},
		{
			name: "PI_CURSOR_EXPOSE_BUILTIN_TOOLS=1 exposes the built-ins too",
			active: ["read", "bash", "web_search"],
			all: ["read", "bash", "web_search"].map((n) => tool(n)),
			options: { exposeBuiltins: true },
			exposed: ["read", "bash", "web_search"],
			reasons: { read: "exposed" },
		},
		{
			name: "our replay tools are dropped even when active",
			active: ["cursor", "web_search"],
			all: [tool("cursor"), tool("web_search")],
			options: { replayNames: ["cursor"] },
			exposed: ["web_search"],
			reasons: { cursor: "replay" },
		},
		{
			name: "registered but inactive tools are not exposed",
			active: ["a"],
			all: [tool("a"), tool("b", { exposure: "deferred" })],
			options: {},
			exposed: ["a"],
			reasons: { b: "inactive" },
		},
		{
			name: "hidden tools stay hidden even if listed as active",
			active: ["a", "secret"],
			all: [tool("a"), tool("secret", { exposure: "hidden" })],
			options: {},
			exposed: ["a"],
			reasons: { secret: "hidden" },
		},
		{
			name: "Pi 0.87.1 tool info without exposure",
			active: ["a"],
			all: [{ name: "a", description: "A", parameters: Type.Object({}) }],
			options: {},
			exposed: ["a"],
			reasons: { a: "exposed" },
		},
		{
			name: "an active name with no registered tool is ignored; duplicates count once",
			active: ["ghost", "a"],
			all: [tool("a"), tool("a")],
			options: {},
			exposed: ["a"],
			reasons: { a: "exposed" },
		},
		{ name: "nothing active, nothing exposed", active: [], all: [tool("a")], options: {}, exposed: [], reasons: {} },
	])("$name", ({ active, all, options, exposed, reasons }) => {
		const surface = buildBridgeSurface(active, all, options);
		expect(surface.tools.map((t) => t.piName)).toEqual([...exposed]);
		const decided = Object.fromEntries(surface.decisions.map((d) => [d.piName, d.reason]));
		expect(decided).toMatchObject(reasons);
		expect(surface.decisions.map((d) => d.piName)).toEqual([...new Set(all.map((t) => t.name))]);
	});
});

describe("MCP names", () => {
	test.each([
		[["web_search"], { web_search: "pi__web_search" }],
		[["sem-reindex", "A1"], { "sem-reindex": "pi__sem-reindex", A1: "pi__A1" }],
		[["my.tool"], { "my.tool": "pi__my_tool" }],
		[["ask question!"], { "ask question!": "pi__ask_question_" }],
		[["ünïcode"], { ünïcode: "pi___n_code" }],
	])("%j → %j", (names, expected) => {
		expect(Object.fromEntries(assignMcpNames(names))).toEqual(expected);
	});

	test("names that collide after sanitizing stay unique; the exactly spelled one keeps the plain name", () => {
		const names = assignMcpNames(["a.b", "a_b", "a b"]);
		expect(names.get("a_b")).toBe("pi__a_b");
		const others = [names.get("a.b"), names.get("a b")];
		for (const name of others) expect(name).toMatch(/^pi__a_b_[0-9a-f]{8}$/);
		expect(new Set(names.values()).size).toBe(3);
	});

	test("assignment does not depend on registration order", () => {
		const input = ["x.y", "x-y", "x y", "x_y", "long".repeat(30), "tool"];
		const forward = assignMcpNames(input);
		const backward = assignMcpNames([...input].reverse());
		for (const name of input) expect(backward.get(name)).toBe(forward.get(name) ?? "");
	});

	test("every name is MCP- and model-safe and fits next to the server name", () => {
		const input = ["a".repeat(200), `${"b".repeat(60)}1`, `${"b".repeat(60)}2`, "x/y:z", "", "  "];
		const names = assignMcpNames(input);
		expect(new Set(names.values()).size).toBe(input.length);
		for (const name of names.values()) {
			expect(name).toMatch(/^pi__[A-Za-z0-9_-]*$/);
			expect(name.length).toBeLessThanOrEqual(MAX_MCP_NAME_LENGTH);
		}
	});
});

describe("schemas and descriptions", () => {
	test("a TypeBox schema becomes plain JSON Schema (symbol keys dropped)", () => {
		const schema = Type.Object({ path: Type.String({ description: "file" }), n: Type.Optional(Type.Number()) });
		const json = jsonSchemaOf(schema);
		expect(json).toEqual({
			type: "object",
			properties: { path: { type: "string", description: "file" }, n: { type: "number" } },
			required: ["path"],
		});
		expect(Object.getOwnPropertySymbols(json)).toEqual([]);
	});

	test.each([
		["a missing schema", undefined],
		["a string schema", Type.String()],
		["an array", []],
		[
			"a cyclic object",
			(() => {
				const o: Record<string, unknown> = { type: "object" };
				o.self = o;
				return o;
			})(),
		],
	])("%s becomes a permissive object", (_name, parameters) => {
		expect(jsonSchemaOf(parameters)).toEqual({ type: "object", properties: {}, additionalProperties: true });
	});

	test("Pi's prompt guidelines are carried into the MCP description", () => {
		const description = mcpDescription(
			tool("web_search", {
				description: "Search the web.",
				promptGuidelines: ["Prefer recent sources.", " ", "Cite URLs."],
			}),
		);
		expect(description).toContain("Search the web.");
		expect(description).toContain("- Prefer recent sources.\n- Cite URLs.");
		expect(description).toContain(`Pi's "web_search" tool`);
		expect(description).not.toContain("- \n");
	});

	test("a tool without a description still gets one", () => {
		expect(mcpDescription({ name: "x" })).toStartWith("Pi tool x.");
	});
});

describe("fingerprint", () => {
	const base = [tool("a"), tool("b")];
	const fp = (active: string[], all: PiToolInfo[], exposeBuiltins = false) =>
		buildBridgeSurface(active, all, { exposeBuiltins }).fingerprint;

	test("stable for the same surface, whatever the order or schema key order", () => {
		const reordered = [
			tool("b"),
			{ ...tool("a"), parameters: { required: ["q"], properties: { q: { type: "string" } }, type: "object" } },
		];
		expect(fp(["a", "b"], base)).toBe(fp(["b", "a"], reordered));
	});

	test.each([
		["a tool added", ["a", "b", "c"], [...base, tool("c")]],
		["a tool deactivated", ["a"], base],
		["a description changed", ["a", "b"], [tool("a", { description: "new" }), tool("b")]],
		["a schema changed", ["a", "b"], [tool("a", { parameters: Type.Object({ r: Type.Number() }) }), tool("b")]],
		["guidelines changed", ["a", "b"], [tool("a", { promptGuidelines: ["x"] }), tool("b")]],
	])("changes when %s", (_name, active, all) => {
		expect(fp(active, all)).not.toBe(fp(["a", "b"], base));
	});

	test("changes when built-ins become exposed", () => {
		expect(fp(["read", "a"], [tool("read"), tool("a")], true)).not.toBe(fp(["read", "a"], [tool("read"), tool("a")]));
	});
});

describe("manifest", () => {
	test("lists each MCP name with the Pi tool it runs and its first description line", () => {
		const surface = buildBridgeSurface(
			["web_search", "my.tool", "read"],
			[tool("web_search", { description: "Search the web.\nMore detail." }), tool("my.tool"), tool("read")],
		);
		const text = buildToolManifestText(surface);
		expect(text).toContain('"pi_tools"');
		expect(text).toContain('- pi__web_search → Pi tool "web_search": Search the web.');
		expect(text).toContain('- pi__my_tool → Pi tool "my.tool": my.tool does things');
		expect(text).not.toContain("More detail.");
		expect(text).not.toContain("pi__read");
		expect(text).toMatch(/never by the Pi name/);
	});

	test("long descriptions are shortened", () => {
		const surface = buildBridgeSurface(["a"], [tool("a", { description: "x".repeat(500) })]);
		const line = buildToolManifestText(surface).split("\n").at(-1) ?? "";
		expect(line.length).toBeLessThan(220);
		expect(line).toEndWith("…");
	});

	test("empty when nothing is bridged", () => {
		expect(buildToolManifestText(buildBridgeSurface(["read"], [tool("read")]))).toBe("");
	});
});
