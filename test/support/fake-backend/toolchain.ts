// Paths of the runtimes used to run the fake backend (Bun) and the real SDK (Node 24), resolved like
// build/toolchain.mjs: PI_CURSOR_BUN / PI_CURSOR_NODE first, then the repo's node_modules / .toolchain.

import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const FAKE_BACKEND_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(FAKE_BACKEND_DIR, "..", "..", "..");

const exe = process.platform === "win32" ? ".exe" : "";

export function bunPath(): string {
	const fromEnv = process.env.PI_CURSOR_BUN;
	if (fromEnv && existsSync(fromEnv)) return fromEnv;
	if (process.versions.bun) return process.execPath;
	const arch = process.arch === "arm64" ? "aarch64" : process.arch;
	const platformBin = join(REPO_ROOT, "node_modules", "@oven", `bun-${process.platform}-${arch}`, "bin", `bun${exe}`);
	if (existsSync(platformBin)) return platformBin;
	return join(REPO_ROOT, "node_modules", "bun", "bin", "bun.exe");
}

/** Node ≥ 22.19 (the SDK's default store needs node:sqlite): PI_CURSOR_NODE, then .toolchain/node24. */
export function node24Path(): string {
	const fromEnv = process.env.PI_CURSOR_NODE;
	if (fromEnv && existsSync(fromEnv)) return fromEnv;
	const pkg = `node-${process.platform}-${process.arch}`;
	const cached = join(REPO_ROOT, ".toolchain", "node24", "node_modules", pkg, "bin", `node${exe}`);
	if (existsSync(cached)) return cached;
	if (!process.versions.bun) {
		const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
		if (major > 22 || (major === 22 && minor >= 19)) return process.execPath;
	}
	throw new Error("Node 24 not found: run `node build/toolchain.mjs ensure node24` or set PI_CURSOR_NODE");
}
