// `pi install git:<url>` as Pi does it: a fresh clone of the committed HEAD, then exactly Pi's
// `npm install --omit=dev --legacy-peer-deps --no-audit --no-fund` in it. No devDependency is installed, yet the
// project's own install script builds a loadable dist/index.js (fetching Bun and the bundled packages into the
// clone's .toolchain/), and Pi lists the Cursor rows from the clone. Uncommitted changes are not part of the clone.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { HomeRegistry, parseModelTable, piHosts, runPi } from "../support/pi.ts";
import { withOutput } from "../support/pi-turn.ts";
import { ensureTool, REPO_ROOT } from "../support/toolchain.ts";

const TIMEOUT_MS = 600_000;
const homes = new HomeRegistry();
const work = mkdtempSync(join(tmpdir(), "pi-cursor-git-install-"));
const clone = join(work, "pi-cursor-sdk");
let install: { status: number | null; output: string };

beforeAll(() => {
	const cloned = spawnSync("git", ["clone", "--quiet", "--no-local", REPO_ROOT, clone], { encoding: "utf8" });
	if (cloned.status !== 0) throw new Error(`git clone failed: ${cloned.stderr}`);
	// npm on a Node that runs Pi, outside any npm script or toolchain of ours.
	const env: Record<string, string> = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (value !== undefined && !/^(npm_|PI_CURSOR_)/i.test(key)) env[key] = value;
	}
	env.PATH = [dirname(ensureTool("node24")), process.env.PATH].join(delimiter);
	const result = spawnSync("npm", ["install", "--omit=dev", "--legacy-peer-deps", "--no-audit", "--no-fund"], {
		cwd: clone,
		env,
		encoding: "utf8",
		timeout: TIMEOUT_MS,
	});
	install = { status: result.status, output: `${result.stdout}${result.stderr}` };
}, TIMEOUT_MS);

afterAll(() => {
	homes.removeAll();
	rmSync(work, { recursive: true, force: true });
});

test("Pi's npm install in a fresh clone builds dist/index.js without devDependencies, and prints no warning", () => {
	withOutput({ stdout: install.output, stderr: "" }, () => {
		expect(install.status).toBe(0);
		expect(install.output).not.toMatch(/\bwarn\b/i);
		expect(install.output).toContain("built dist/index.js");
	});
	expect(existsSync(join(clone, "dist", "index.js"))).toBe(true);
	for (const devDependency of ["bun", "hono", "@earendil-works", "typescript"]) {
		expect(existsSync(join(clone, "node_modules", devDependency))).toBe(false);
	}
});

for (const host of piHosts()) {
	test(
		`${host.name}: pi -e <clone> --list-models cursor lists the Cursor rows`,
		async () => {
			const result = await runPi(["--list-models", "cursor"], { host, home: homes.create(), extensions: [clone] });
			withOutput(result, () => {
				expect(result.code).toBe(0);
				expect(result.stderr).not.toContain("Failed to load extension");
				expect(parseModelTable(result.stdout).filter((row) => row.provider === "cursor").length).toBeGreaterThan(100);
			});
		},
		TIMEOUT_MS,
	);
}
