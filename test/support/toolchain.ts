// Test-side access to the project's toolchain (build/toolchain.mjs): Node >= 22.19, Bun, Pi versions, compiled Pi.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const REPO_ROOT = resolve(import.meta.dir, "..", "..");

/**
 * The built bundle as users get it: `node_modules/pi-cursor-sdk/dist/index.js` beside its runtime dependencies
 * (`@cursor/sdk` and its platform package) and WITHOUT the Pi packages, which are our devDependencies. Tests load it
 * from there; `test/e2e/one-copy.test.ts` also loads it from the checkout, where Pi's packages sit beside it.
 */
function stageInstalledBundle(): string {
	const built = join(REPO_ROOT, "dist", "index.js");
	// Outside the checkout: Node would otherwise find the Pi packages in the checkout's node_modules, up the tree.
	const id = createHash("sha256").update(REPO_ROOT).digest("hex").slice(0, 12);
	const modules = join(tmpdir(), `pi-cursor-sdk-installed-${id}`, "node_modules");
	const pkg = join(modules, "pi-cursor-sdk");
	mkdirSync(join(pkg, "dist"), { recursive: true });
	copyFileSync(join(REPO_ROOT, "package.json"), join(pkg, "package.json"));
	if (existsSync(built)) copyFileSync(built, join(pkg, "dist", "index.js"));
	const cursor = join(modules, "@cursor");
	if (!existsSync(cursor)) symlinkSync(join(REPO_ROOT, "node_modules", "@cursor"), cursor, "dir");
	return join(pkg, "dist", "index.js");
}

export const BUNDLE = stageInstalledBundle();

/** Absolute path of a toolchain item (installing it into `.toolchain/` once when missing). */
export function ensureTool(tool: string): string {
	return execFileSync("node", [join(REPO_ROOT, "build", "toolchain.mjs"), "ensure", tool], {
		stdio: ["ignore", "pipe", "inherit"],
	})
		.toString()
		.trim();
}
