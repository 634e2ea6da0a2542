// Builds dist/index.js: one ESM file with our code and the MCP/Hono bridge runtime inlined. `@cursor/sdk` stays
// external (its webpack chunks and native platform package must stay on disk), and so do Pi's host packages and
// typebox (Pi maps them to its own copies; a second copy would create duplicate classes).
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";

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
rmSync(outdir, { recursive: true, force: true });

const result = await Bun.build({
	entrypoints: [join(root, "src", "index.ts")],
	outdir,
	naming: "index.js",
	target: "node",
	format: "esm",
	external: EXTERNALS,
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
