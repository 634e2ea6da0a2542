// Acceptance of the foundation: the built bundle loads in every supported Pi host, registers cursor rows, and
// repairs the SDK's native lookup with absolute, existing paths (explicit values win).
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { HomeRegistry, parseModelTable, piHosts, runPi } from "../support/pi.ts";
import { BUNDLE, REPO_ROOT } from "../support/toolchain.ts";

const PROBE = join(REPO_ROOT, "test", "fixtures", "env-probe-extension.ts");
const homes = new HomeRegistry();
const home = () => homes.create();
afterAll(() => {
	homes.removeAll();
});

function probeReport(stderr: string): { vendor: string | null; ripgrep: string | null; bun: boolean } {
	const line = stderr.split("\n").find((l) => l.startsWith("ENV-PROBE "));
	if (!line) throw new Error(`no probe output in stderr:\n${stderr}`);
	return JSON.parse(line.slice("ENV-PROBE ".length));
}

test("the bundle statically imports @cursor/sdk and inlines nothing of it", () => {
	const bundle = readFileSync(BUNDLE, "utf8");
	expect(bundle).toMatch(/\bimport ?\{[^}]*\} ?from ?"@cursor\/sdk";/); // the bundle is minified
	expect(bundle).not.toContain("import(");
	expect(statSync(BUNDLE).size).toBeLessThan(2 * 1024 * 1024);
});

for (const host of piHosts()) {
	describe(host.name, () => {
		test("--list-models cursor prints cursor rows", async () => {
			const result = await runPi(["--list-models", "cursor"], {
				host,
				home: home(),
				env: { CURSOR_API_KEY: "key_test_list" },
			});
			expect(result.code).toBe(0);
			const rows = parseModelTable(result.stdout);
			expect(rows.length).toBeGreaterThan(0);
			for (const row of rows) expect(row.provider).toBe("cursor");
			expect(result.stderr).not.toContain("Failed to load extension");
		});

		test("native SDK paths are set to absolute, existing files", async () => {
			const result = await runPi(["--list-models", "cursor"], {
				host,
				home: home(),
				env: { CURSOR_API_KEY: "key_test_list" },
				extensions: [BUNDLE, PROBE],
			});
			expect(result.code).toBe(0);
			const report = probeReport(result.stderr);
			expect(report.bun).toBe(host.name.startsWith("compiled"));
			for (const path of [report.vendor, report.ripgrep]) {
				expect(path).not.toBeNull();
				expect(isAbsolute(path ?? "")).toBe(true);
				expect(existsSync(path ?? "")).toBe(true);
			}
			expect(existsSync(join(report.vendor ?? "", "tree-sitter", "index.js"))).toBe(true);
			expect(existsSync(join(report.vendor ?? "", "tree-sitter-bash", "index.js"))).toBe(true);
		});

		test("explicit native env values are left untouched", async () => {
			const result = await runPi(["--list-models", "cursor"], {
				host,
				home: home(),
				env: {
					CURSOR_API_KEY: "key_test_list",
					CURSOR_TREE_SITTER_VENDOR_DIR: "/opt/user/vendor",
					CURSOR_RIPGREP_PATH: "/opt/user/rg",
				},
				extensions: [BUNDLE, PROBE],
			});
			expect(probeReport(result.stderr)).toMatchObject({ vendor: "/opt/user/vendor", ripgrep: "/opt/user/rg" });
		});
	});
}

test("a bundle that cannot resolve @cursor/sdk fails to load visibly (the load checks above can fail)", async () => {
	const h = home();
	const isolated = join(h.dir, "isolated");
	mkdirSync(isolated);
	copyFileSync(BUNDLE, join(isolated, "index.js"));
	const result = await runPi(["--list-models", "cursor"], {
		home: h,
		env: { CURSOR_API_KEY: "key_test_list" },
		extensions: [join(isolated, "index.js")],
	});
	expect(result.stdout).not.toContain("cursor ");
	expect(result.stderr).toContain("@cursor/sdk");
});
