import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join } from "node:path";
import { ENV_VARS, readEnvVar } from "../settings/env.ts";

/** What the SDK's native locator needs; it only searches upward from argv[1]/execPath, which misses extensions. */
export interface NativePaths {
	treeSitterVendorDir?: string;
	ripgrepPath?: string;
}

/**
 * Finds `@cursor/sdk-<platform>-<arch>` relative to the installed `@cursor/sdk` and returns absolute paths to its
 * natives; a native whose files are missing is left out (the SDK then degrades that feature).
 */
export function locateNativePaths(
	fromUrl: string = import.meta.url,
	platform: string = process.platform,
	arch: string = process.arch,
): NativePaths {
	try {
		const sdkEntry = createRequire(fromUrl).resolve("@cursor/sdk");
		const platformManifest = createRequire(sdkEntry).resolve(`@cursor/sdk-${platform}-${arch}/package.json`);
		const root = dirname(platformManifest);
		const treeSitterVendorDir = join(root, "vendor");
		const ripgrepPath = join(root, "bin", platform === "win32" ? "rg.exe" : "rg");
		if (!isAbsolute(root)) return {};
		const parsersPresent =
			existsSync(join(treeSitterVendorDir, "tree-sitter", "index.js")) &&
			existsSync(join(treeSitterVendorDir, "tree-sitter-bash", "index.js"));
		return {
			...(parsersPresent ? { treeSitterVendorDir } : {}),
			...(existsSync(ripgrepPath) ? { ripgrepPath } : {}),
		};
	} catch {
		return {}; // platform package not installed: shell analysis and search degrade, runs still work
	}
}

/**
 * Sets `CURSOR_TREE_SITTER_VENDOR_DIR` and `CURSOR_RIPGREP_PATH` (process-wide, inherited by child shells) when they
 * are unset. Explicit values always win, even stale ones: they belong to the user.
 */
export function applyNativePaths(env: NodeJS.ProcessEnv, paths: NativePaths): void {
	for (const key of ["treeSitterVendorDir", "ripgrepPath"] as const) {
		const path = paths[key];
		if (!readEnvVar(env, key) && path) env[ENV_VARS[key].name] = path;
	}
}
