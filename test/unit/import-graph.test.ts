import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { checkImportGraph } from "../support/import-graph.ts";
import { REPO_ROOT } from "../support/toolchain.ts";

function sourceFiles(dir: string): Map<string, string> {
	const files = new Map<string, string>();
	for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
		if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
		const path = join(entry.parentPath, entry.name);
		files.set(relative(REPO_ROOT, path), readFileSync(path, "utf8"));
	}
	return files;
}

test("src/ follows the import rules: one static SDK importer, no runtime package imports, Pi root specifiers", () => {
	const files = sourceFiles(join(REPO_ROOT, "src"));
	expect(files.size).toBeGreaterThan(3);
	expect(checkImportGraph(files)).toEqual([]);
});

const CLEAN_SDK_MODULE = `import { Agent } from "@cursor/sdk";\nexport const a = Agent;\n`;

test.each([
	[
		"a second module value-importing the SDK",
		{ "b.ts": `import { Cursor } from "@cursor/sdk";\nCursor.configure({});\n` },
		"one-sdk-importer",
	],
	[
		"a runtime import() of a bare package",
		{ "b.ts": `const m = await import("@cursor/sdk");\n` },
		"no-runtime-import-of-packages",
	],
	[
		"a computed runtime import()",
		{ "b.ts": `const name = "hono";\nawait import(name);\n` },
		"no-runtime-import-of-packages",
	],
	["a require() of a package", { "b.ts": `const h = require("hono");\n` }, "no-runtime-import-of-packages"],
	[
		"a deep Pi import",
		{ "b.ts": `import { x } from "@earendil-works/pi-ai/dist/utils/event-stream.js";\n` },
		"pi-root-specifiers-only",
	],
	[
		"a legacy-scope deep Pi import",
		{ "b.ts": `export { y } from "@mariozechner/pi-ai/models";\n` },
		"pi-root-specifiers-only",
	],
	[
		"an SDK internal path",
		{ "b.ts": `import type { X } from "@cursor/sdk/dist/esm/agent.js";\n` },
		"sdk-public-entries-only",
	],
	[
		"a second module importing the SDK's SQLite entry",
		{ "b.ts": `import { S } from "@cursor/sdk/sqlite";\n` },
		"one-sdk-importer",
	],
	[
		"an import cycle through a type-only import",
		{ "b.ts": `import type { C } from "./c.ts";\nexport type B = 1;\n`, "c.ts": `import type { B } from "./b.ts";\n` },
		"no-import-cycles",
	],
	[
		"a cycle across folders",
		{ "x/b.ts": `import { c } from "../y/c.ts";\n`, "y/c.ts": `import { b } from "../x/b.ts";\n` },
		"no-import-cycles",
	],
])("the checker catches %s", (_name, planted, rule) => {
	const files = new Map<string, string>([["a.ts", CLEAN_SDK_MODULE], ...Object.entries(planted)]);
	expect(checkImportGraph(files).map((v) => v.rule)).toContain(rule);
});

test("type-only SDK imports and relative dynamic imports are allowed", () => {
	const files = new Map([
		["a.ts", CLEAN_SDK_MODULE],
		[
			"b.ts",
			`import type { SDKAgent } from "@cursor/sdk";\nimport { type Run } from "@cursor/sdk";\nconst m = await import("./local.ts");\n`,
		],
	]);
	expect(checkImportGraph(files)).toEqual([]);
});
