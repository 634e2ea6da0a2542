import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { applyNativePaths, locateNativePaths } from "../../src/process/native-paths.ts";

const root = mkdtempSync(join(tmpdir(), "native-paths-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** An extension install: `<dir>/index.js` with `@cursor/sdk` and (optionally) its platform package beside it. */
function install(name: string, files: { parsers: boolean; ripgrep: boolean; platformPackage?: boolean }): string {
	const dir = join(root, name);
	const sdk = join(dir, "node_modules", "@cursor", "sdk");
	mkdirSync(sdk, { recursive: true });
	writeFileSync(join(sdk, "package.json"), JSON.stringify({ name: "@cursor/sdk", main: "index.js" }));
	writeFileSync(join(sdk, "index.js"), "");
	const platform = join(dir, "node_modules", "@cursor", "sdk-testos-testarch");
	if (files.platformPackage !== false) {
		mkdirSync(platform, { recursive: true });
		writeFileSync(join(platform, "package.json"), JSON.stringify({ name: "@cursor/sdk-testos-testarch" }));
	}
	if (files.parsers) {
		for (const parser of ["tree-sitter", "tree-sitter-bash"]) {
			mkdirSync(join(platform, "vendor", parser), { recursive: true });
			writeFileSync(join(platform, "vendor", parser, "index.js"), "");
		}
	}
	if (files.ripgrep) {
		mkdirSync(join(platform, "bin"), { recursive: true });
		writeFileSync(join(platform, "bin", "rg"), "");
		chmodSync(join(platform, "bin", "rg"), 0o755);
	}
	writeFileSync(join(dir, "index.js"), "");
	return dir;
}

const locate = (dir: string) => locateNativePaths(pathToFileURL(join(dir, "index.js")).href, "testos", "testarch");

test("finds the platform package next to the installed SDK, with absolute paths", () => {
	const dir = install("full", { parsers: true, ripgrep: true });
	const platform = join(dir, "node_modules", "@cursor", "sdk-testos-testarch");
	expect(locate(dir)).toEqual({
		treeSitterVendorDir: join(platform, "vendor"),
		ripgrepPath: join(platform, "bin", "rg"),
	});
});

test("leaves out a native whose files are missing", () => {
	expect(locate(install("no-parsers", { parsers: false, ripgrep: true })).treeSitterVendorDir).toBeUndefined();
	expect(locate(install("no-rg", { parsers: true, ripgrep: false })).ripgrepPath).toBeUndefined();
	expect(locate(install("no-platform", { parsers: false, ripgrep: false, platformPackage: false }))).toEqual({});
});

test("sets only unset variables; explicit values win", () => {
	const paths = { treeSitterVendorDir: "/found/vendor", ripgrepPath: "/found/rg" };
	const unset: NodeJS.ProcessEnv = {};
	applyNativePaths(unset, paths);
	expect(unset).toEqual({ CURSOR_TREE_SITTER_VENDOR_DIR: "/found/vendor", CURSOR_RIPGREP_PATH: "/found/rg" });
	const explicit: NodeJS.ProcessEnv = { CURSOR_TREE_SITTER_VENDOR_DIR: "/mine", CURSOR_RIPGREP_PATH: "/my/rg" };
	applyNativePaths(explicit, paths);
	expect(explicit).toEqual({ CURSOR_TREE_SITTER_VENDOR_DIR: "/mine", CURSOR_RIPGREP_PATH: "/my/rg" });
	const partial: NodeJS.ProcessEnv = {};
	applyNativePaths(partial, { ripgrepPath: "/found/rg" });
	expect(partial).toEqual({ CURSOR_RIPGREP_PATH: "/found/rg" });
});
