// Contract of src/process/mcp-timeouts.ts with the pinned @cursor/sdk on disk. When this fails after an SDK upgrade, the
// override would silently stop working: re-check how the new SDK's MCP client arms its request timers, adapt
// MCP_CLIENT_SHAPE / classifyMcpTimer, then add the version to VERIFIED_SDK_VERSIONS.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { hasMcpClientShape, installedSdkVersion, VERIFIED_SDK_VERSIONS } from "../../src/process/mcp-timeouts.ts";
import { REPO_ROOT } from "../support/toolchain.ts";

const SDK_DIST = join(REPO_ROOT, "node_modules", "@cursor", "sdk", "dist");

/** The files of one SDK build that define the MCP client's request timer. */
function mcpClientFiles(build: string): { file: string; source: string }[] {
	const dir = join(SDK_DIST, build);
	return readdirSync(dir)
		.filter((name) => name.endsWith(".js"))
		.map((name) => ({ file: name, source: readFileSync(join(dir, name), "utf8") }))
		.filter(({ source }) => /_setupTimeout\([^)]*\)\s*\{/.test(source));
}

test("the installed @cursor/sdk is a version whose MCP client was checked", () => {
	const version = installedSdkVersion(new URL("../../src/index.ts", import.meta.url).href);
	expect(version).toBeDefined();
	expect(VERIFIED_SDK_VERSIONS).toContain(version ?? "");
});

// esm and cjs are the webpack builds Node loads; bundled is the flat build Bun (compiled Pi) loads.
test.each(["esm", "cjs", "bundled"])(
	"the %s build has exactly one MCP client with the shape the override relies on",
	(build) => {
		const files = mcpClientFiles(build);
		expect(files.map((f) => f.file)).toHaveLength(1);
		const source = files[0]?.source ?? "";
		expect(source.match(/_setupTimeout\([^)]*\)\s*\{/g)).toHaveLength(1);
		expect(hasMcpClientShape(source)).toBe(true);
	},
);

test.each([
	["a different default timeout", (s: string) => s.replace(/timeout\?\?(6e4|[A-Za-z_$][\w$]*)/, "timeout??3e4")],
	[
		"callTool no longer going through request",
		(s: string) => s.replace(/method:"tools\/call"/g, 'method:"tools/invoke"'),
	],
	["a timer armed another way", (s: string) => s.replace(/timeoutId:setTimeout\(/g, "timeoutId:schedule(")],
])("the shape check catches %s", (_name, mutate) => {
	for (const build of ["esm", "bundled"]) {
		const source = mcpClientFiles(build)[0]?.source ?? "";
		expect(hasMcpClientShape(mutate(source))).toBe(false);
	}
});
