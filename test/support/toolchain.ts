// Test-side access to the project's toolchain (build/toolchain.mjs): Node >= 22.19, Bun, Pi versions, compiled Pi.
import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";

export const REPO_ROOT = resolve(import.meta.dir, "..", "..");
export const BUNDLE = join(REPO_ROOT, "dist", "index.js");

/** Absolute path of a toolchain item (installing it into `.toolchain/` once when missing). */
export function ensureTool(tool: string): string {
	return execFileSync("node", [join(REPO_ROOT, "build", "toolchain.mjs"), "ensure", tool], {
		stdio: ["ignore", "pipe", "inherit"],
	})
		.toString()
		.trim();
}
