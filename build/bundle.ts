// Builds dist/index.js: one ESM file with our code and the MCP/Hono bridge runtime inlined. `@cursor/sdk` stays
// external (its webpack chunks and native platform package must stay on disk), and so do Pi's host packages and
// typebox (Pi maps them to its own copies; a second copy would create duplicate classes).
//
// Every Pi start reads, hashes, compiles and evaluates this file through Pi's loader (jiti), and the first start
// after an install or upgrade also transpiles it (Babel, seconds for a large file). So the build keeps that small:
// - the MCP SDK carries one zod and no Ajv (`shrinkMcp`);
// - the bridge's third-party half (src/bridge/mcp-vendor.ts) is evaluated on the first bridged run, not at every
//   start (`lazyMcpVendor`);
// - the bundled fallback catalog's rows are built here, not at every start (`prebuiltFallbackCatalog`);
// - the output is minified except for names, so stack traces keep our function names;
// - the output is ASCII (`asciiOnly`), so Node reads it as a one-byte string that Pi's loader hashes, scans and
//   compiles faster than the two-byte string a single `…` in a message would make of the whole file.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, resolve } from "node:path";
import type { BunPlugin } from "bun";
import type { BuiltCatalog } from "../src/catalog/types.ts";

export const EXTERNALS = [
	"@cursor/sdk",
	"@cursor/sdk/*",
	"@earendil-works/*",
	"@mariozechner/*",
	"typebox",
	"typebox/*",
];

const root = resolve(import.meta.dir, "..");
const outdir = join(root, "dist");
const MCP_VENDOR = join(root, "src", "bridge", "mcp-vendor.ts");
const MINIFY = { whitespace: true, syntax: true, identifiers: false };

const isExternal = (specifier: string) =>
	EXTERNALS.some((pattern) =>
		pattern.endsWith("*") ? specifier.startsWith(pattern.slice(0, -1)) : specifier === pattern,
	);

/**
 * Without devDependencies (Pi's `npm install --omit=dev` of a git install) the packages the bundle inlines are not in
 * node_modules: build/toolchain.mjs installs them into another folder and names it in PI_CURSOR_BUNDLE_INPUTS. Our
 * own imports of them resolve there, as ES modules like from node_modules (NODE_PATH would pick their CommonJS
 * builds); their own imports then resolve beside them.
 */
const inputs = process.env.PI_CURSOR_BUNDLE_INPUTS;
function bundleInputs(dir: string | undefined): BunPlugin[] {
	if (!dir) return [];
	const src = join(root, "src");
	return [
		{
			name: "bundle-inputs",
			setup(build) {
				build.onResolve({ filter: /^[^./]/ }, ({ path, importer }) =>
					path.startsWith("node:") || isExternal(path) || !importer.startsWith(src)
						? undefined
						: { path: Bun.resolveSync(path, dir) },
				);
			},
		},
	];
}

/**
 * The MCP SDK without what the bridge never uses:
 * - one zod: `@modelcontextprotocol/core` and `/server` may each carry their own copy of the same zod version;
 * - no Ajv: the server's JSON Schema validator is replaced by build/mcp-shims.ts.
 */
const shrinkMcp: BunPlugin = {
	name: "shrink-mcp",
	setup(build) {
		const server = dirname(Bun.resolveSync("@modelcontextprotocol/server/package.json", inputs ?? root));
		const zodVersion = (from: string) =>
			JSON.parse(readFileSync(Bun.resolveSync("zod/package.json", from), "utf8")).version as string;
		build.onResolve({ filter: /^zod(\/|$)/ }, (args) => {
			if (!args.importer.includes("/@modelcontextprotocol/")) return undefined;
			const wanted = zodVersion(dirname(args.importer));
			if (wanted !== zodVersion(server)) {
				throw new Error(`${args.importer} wants zod ${wanted}, @modelcontextprotocol/server has ${zodVersion(server)}`);
			}
			return { path: Bun.resolveSync(args.path, server) };
		});
		build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({
			path: join(root, "build", "mcp-shims.ts"),
		}));
	},
};

function fail(logs: readonly unknown[]): never {
	for (const log of logs) console.error(log);
	process.exit(1);
}

/** src/bridge/mcp-vendor.ts and everything it imports as one CommonJS module that requires only Node built-ins. */
async function buildMcpVendor(): Promise<string> {
	const result = await Bun.build({
		entrypoints: [MCP_VENDOR],
		target: "node",
		format: "cjs",
		plugins: [...bundleInputs(inputs), shrinkMcp],
		minify: { ...MINIFY, identifiers: true }, // third-party names: none of ours, none in our stack traces
		sourcemap: "none",
	});
	const [output] = result.outputs;
	if (!result.success || !output || result.outputs.length !== 1) fail(result.logs);
	const code = await output.text();
	for (const [call, id = ""] of code.matchAll(/\brequire\(["']([^"']+)["']\)/g)) {
		if (!builtinModules.includes(id.replace(/^node:/, ""))) fail([`src/bridge/mcp-vendor.ts needs ${call}`]);
	}
	return code;
}

/**
 * In dist/index.js, src/bridge/mcp-vendor.ts becomes its CommonJS build (plain code, bundled like any other) inside
 * the body of `mcpVendor()`: the first call evaluates it, later calls return the same modules. This is what a bundler
 * does for a module it wraps (esbuild's and Bun's `__commonJS`), decided here for a module whose evaluation a Pi
 * start does not need. Nothing is resolved, read or compiled at run time.
 */
function lazyMcpVendor(code: string): BunPlugin {
	return {
		name: "lazy-mcp-vendor",
		setup(build) {
			build.onLoad({ filter: /[\\/]src[\\/]bridge[\\/]mcp-vendor\.ts$/ }, () => ({
				contents: [
					"let vendor;",
					"export function mcpVendor() {",
					"  if (vendor === undefined) {",
					"    const module = { exports: {} };",
					"    (function (module, exports, require) {",
					code,
					"    })(module, module.exports, (id) => process.getBuiltinModule(id));",
					"    vendor = module.exports.mcpVendor();",
					"  }",
					"  return vendor;",
					"}",
				].join("\n"),
				loader: "js",
			}));
		},
	};
}

/**
 * src/catalog/fallback-built.ts as the catalog it builds, serialized now: `buildFallbackCatalog()` then only parses
 * JSON (its `meta` map as entries). JSON drops `undefined` properties; nothing reads rows or metadata by key presence.
 * Its `CATALOG_BUILD_ID` becomes a digest of src/catalog: rows the model cache kept from another version of that code
 * are built again.
 */
async function prebuiltFallbackCatalog(): Promise<BunPlugin> {
	const catalogDir = join(root, "src", "catalog");
	const { buildFallbackCatalog } = await import(join(catalogDir, "fallback-built.ts"));
	const built: BuiltCatalog = buildFallbackCatalog();
	const json = JSON.stringify({ rows: built.rows, meta: [...built.meta] });
	const digest = createHash("sha256");
	for (const file of readdirSync(catalogDir).sort())
		digest.update(`${file}\n`).update(readFileSync(join(catalogDir, file)));
	const buildId = digest.digest("hex").slice(0, 16);
	return {
		name: "prebuilt-fallback-catalog",
		setup(build) {
			build.onLoad({ filter: /[\\/]src[\\/]catalog[\\/]fallback-built\.ts$/ }, () => ({
				contents: [
					`export const CATALOG_BUILD_ID = ${JSON.stringify(buildId)};`,
					"export function buildFallbackCatalog() {",
					`  const { rows, meta } = JSON.parse(${JSON.stringify(json)});`,
					"  return { rows, meta: new Map(meta) };",
					"}",
				].join("\n"),
				loader: "js",
			}));
		},
	};
}

/**
 * `text` with every non-ASCII UTF-16 unit written as a `\uXXXX` escape (the output has them only in string,
 * template and regex literals, where the escape means the same, unless in a `String.raw` template).
 */
function asciiOnly(text: string): string {
	for (const [raw] of text.matchAll(/String\.raw`[^`]*`/g)) {
		if (/[\u0080-\uffff]/.test(raw)) fail([`dist/index.js has a non-ASCII String.raw template: ${raw}`]);
	}
	return text.replace(/[\u0080-\uffff]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

// Built in memory and renamed into place: test files running side by side (and `npm pack`'s build in one of them)
// read dist/index.js while it is rebuilt, and must see the old file or the new one, never a missing or half one.
const result = await Bun.build({
	entrypoints: [join(root, "src", "index.ts")],
	naming: "index.js",
	target: "node",
	format: "esm",
	external: EXTERNALS,
	plugins: [...bundleInputs(inputs), lazyMcpVendor(await buildMcpVendor()), await prebuiltFallbackCatalog()],
	minify: MINIFY,
	sourcemap: "none",
});
if (!result.success) fail(result.logs);
if (result.outputs.length !== 1) {
	fail([`expected one output file, got ${result.outputs.map((o) => o.path).join(", ")}`]);
}
const [artifact] = result.outputs;
const text = asciiOnly(await (artifact as Blob).text());
mkdirSync(outdir, { recursive: true });
for (const name of readdirSync(outdir))
	if (name !== "index.js") rmSync(join(outdir, name), { recursive: true, force: true });
const output = join(outdir, "index.js");
const temporary = `${output}.${process.pid}.tmp`;
writeFileSync(temporary, text);
renameSync(temporary, output);
console.error(`built dist/index.js (${(text.length / 1024).toFixed(1)} KiB)`);
