// Builds dist/index.js: one ESM file with our code and the MCP/Hono bridge runtime inlined. `@cursor/sdk` stays
// external (its webpack chunks and native platform package must stay on disk), and so do Pi's host packages and
// typebox (Pi maps them to its own copies; a second copy would create duplicate classes).
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { BunPlugin } from "bun";

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
rmSync(outdir, { recursive: true, force: true });

const result = await Bun.build({
	entrypoints: [join(root, "src", "index.ts")],
	outdir,
	naming: "index.js",
	target: "node",
	format: "esm",
	external: EXTERNALS,
	plugins: bundleInputs(process.env.PI_CURSOR_BUNDLE_INPUTS),
	minify: false,
	sourcemap: "none",
});
if (!result.success) {
	for (const log of result.logs) console.error(log);
	process.exit(1);
}
if (result.outputs.length !== 1) {
	console.error(`expected one output file, got ${result.outputs.map((o) => o.path).join(", ")}`);
	process.exit(1);
}
const size = result.outputs[0]?.size ?? 0;
console.error(`built dist/index.js (${(size / 1024).toFixed(1)} KiB)`);
