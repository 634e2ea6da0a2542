// The checkout as a Pi package, for `npm start` and `npm run demo`.
//
// Pi's startup header names an extension loaded from a local path after the last folder of its path, dropping a
// final `index.js` (only npm:/git: sources are named from package.json). Loaded straight from the checkout, the
// bundle would show as "dist". So the built bundle is staged as `.toolchain/start/<package name>/index.js`, beside a
// manifest that lists it, and Pi loads that folder as a package. The folder stays inside the checkout, so the bundle
// still resolves `@cursor/sdk` (and its native platform package) from the checkout's node_modules. Like the project's
// own manifest, the staged one has no `"type": "module"`: with it, Pi's loader (jiti) would import the bundle natively
// and Node would load a second copy of Pi's libraries from node_modules instead of the host's own modules.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The pinned Pi's CLI (the devDependency). */
export const PI_CLI = join(ROOT, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");

/** Stages the built bundle as a package folder named after the package; returns that folder. */
export function stageCheckoutPackage() {
	const built = join(ROOT, "dist", "index.js");
	if (!existsSync(built)) throw new Error("dist/index.js is missing: run `npm run build` first");
	const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
	const dir = join(ROOT, ".toolchain", "start", manifest.name);
	mkdirSync(dir, { recursive: true });
	copyFileSync(built, join(dir, "index.js"));
	const staged = {
		name: manifest.name,
		version: manifest.version,
		private: true,
		pi: { extensions: ["./index.js"] },
	};
	writeFileSync(join(dir, "package.json"), `${JSON.stringify(staged, null, "\t")}\n`);
	return dir;
}
