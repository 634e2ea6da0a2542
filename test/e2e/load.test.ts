// Acceptance of the foundation: the built bundle loads in every supported Pi host, registers cursor rows, and
// repairs the SDK's native lookup with absolute, existing paths (explicit values win).
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { HomeRegistry, type PiResult, parseModelTable, piHosts, runPi } from "../support/pi.ts";
import { BUNDLE, CHECKOUT_ID, REPO_ROOT, sharedFolder } from "../support/toolchain.ts";

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
		// One start serves the first two tests: the probe, loaded after our bundle, only reports on stderr what our
		// factory set, and a bundle that failed to load would print no cursor rows.
		let listed: Promise<PiResult> | undefined;
		const listWithProbe = () =>
			(listed ??= runPi(["--list-models", "cursor"], {
				host,
				home: home(),
				env: { CURSOR_API_KEY: "key_test_list" },
				extensions: [BUNDLE, PROBE],
			}));

		test("--list-models cursor prints cursor rows", async () => {
			const result = await listWithProbe();
			expect(result.code).toBe(0);
			const rows = parseModelTable(result.stdout);
			expect(rows.length).toBeGreaterThan(0);
			for (const row of rows) expect(row.provider).toBe("cursor");
			expect(result.stderr).not.toContain("Failed to load extension");
		});

		test("native SDK paths are set to absolute, existing files", async () => {
			const result = await listWithProbe();
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

/**
 * A copy of the bundle where `@cursor/sdk` cannot be resolved: outside the checkout and its installed copy, at a path
 * named after the bundle's bytes, so Pi's extension loader transpiles it once per build (its cache is keyed by path),
 * not on every run (~6 CPU-s for the ~1 MB bundle).
 */
function isolatedBundle(): string {
	const bytes = readFileSync(BUNDLE);
	const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 12);
	const prefix = `pi-cursor-isolated-${CHECKOUT_ID}-`;
	const folder = sharedFolder(
		join(tmpdir(), `${prefix}${hash}`),
		(dir) => writeFileSync(join(dir, "index.js"), bytes),
		prefix,
	);
	return join(folder, "index.js");
}

test("a bundle that cannot resolve @cursor/sdk fails to load visibly (the load checks above can fail)", async () => {
	const result = await runPi(["--list-models", "cursor"], {
		home: home(),
		env: { CURSOR_API_KEY: "key_test_list" },
		extensions: [isolatedBundle()],
	});
	expect(result.stdout).not.toContain("cursor ");
	expect(result.stderr).toContain("@cursor/sdk");
});
