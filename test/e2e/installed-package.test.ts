// The installed product, gated: `npm pack` of the repository (its `prepack` builds dist/index.js), the tarball
// installed the way users do (`npm install <tgz>` into an empty folder, npm on a Node that runs Pi), then Pi loading
// the installed package folder, with `-e <folder>` and after `pi install <folder>`, on npm Pi 1.6.0 and 0.87.1 and
// compiled Pi: `pi --list-models cursor` lists the Cursor rows and a `-p` turn answers through the real SDK from
// there. The tarball holds only what users need, and installing it prints no warning and runs no script. README's
// other local route, `pi install <checkout>`, is checked here too.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import type { FakeBackend } from "../support/fake-backend/client.ts";
import { HomeRegistry, type PiHost, type PiResult, parseModelTable, piHosts, runPi } from "../support/pi.ts";
import { cursorEnv, NO_RETRY, startTurnBackend, TEST_KEY, withOutput } from "../support/pi-turn.ts";
import { ensureTool, REPO_ROOT } from "../support/toolchain.ts";

const TIMEOUT_MS = 180_000;
const ANSWER = "Installed from the packed tarball.";
const homes = new HomeRegistry();
const work = mkdtempSync(join(tmpdir(), "pi-cursor-installed-"));
let backend: FakeBackend;
let tarballFiles: string[] = [];
let install: { status: number | null; output: string };
/** The installed package folder: `<app>/node_modules/pi-cursor-sdk`. */
const pkg = join(work, "app", "node_modules", "pi-cursor-sdk");

/** npm as a Pi user runs it: on a Node that runs Pi (the toolchain's), outside any npm script of ours. */
function npm(args: string[], cwd: string): { status: number | null; stdout: string; output: string } {
	const env: Record<string, string> = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (value !== undefined && !/^npm_/i.test(key)) env[key] = value;
	}
	env.PATH = [dirname(ensureTool("node24")), process.env.PATH].join(delimiter);
	const result = spawnSync("npm", args, { cwd, env, encoding: "utf8", timeout: TIMEOUT_MS });
	return { status: result.status, stdout: result.stdout, output: `${result.stdout}${result.stderr}` };
}

beforeAll(async () => {
	backend = await startTurnBackend({
		defaultScenario: {
			name: "installed",
			steps: [{ text: ANSWER }, { turnEnded: { inputTokens: 9, outputTokens: 5 } }],
		},
	});
	const packed = npm(["pack", "--json", "--pack-destination", work], REPO_ROOT);
	if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.output}`);
	const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
	if (!info) throw new Error(`npm pack printed no tarball:\n${packed.stdout}`);
	tarballFiles = info.files.map((file) => file.path).sort();
	mkdirSync(join(work, "app"));
	install = npm(["install", join(work, info.filename), "--no-audit", "--no-fund"], join(work, "app"));
}, TIMEOUT_MS);

afterAll(async () => {
	await backend?.stop();
	homes.removeAll();
	rmSync(work, { recursive: true, force: true });
});

test("the tarball holds the bundle, its manifest, README and LICENSE, and nothing else", () => {
	expect(tarballFiles).toEqual(["LICENSE", "README.md", "dist/index.js", "package.json"]);
});

test("npm install <tarball> into an empty folder: no warning, no script, only the runtime dependencies", () => {
	withOutput({ stdout: install.output, stderr: "" }, () => {
		expect(install.status).toBe(0);
		expect(install.output).not.toMatch(/\bwarn\b/i);
	});
	const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { scripts?: object };
	const installScripts = ["preinstall", "install", "postinstall", "prepare"];
	expect(Object.keys(manifest.scripts ?? {}).filter((name) => installScripts.includes(name))).toEqual([]);
	expect(existsSync(join(pkg, "dist", "index.js"))).toBe(true);
	expect(existsSync(join(work, "app", "node_modules", "@cursor", "sdk"))).toBe(true);
	// Bundled or host-provided, never installed beside the package: the MCP/Hono runtime and Pi itself.
	for (const name of ["hono", "@modelcontextprotocol", "@earendil-works", "typebox"]) {
		expect(existsSync(join(work, "app", "node_modules", name))).toBe(false);
	}
});

/** `pi <args>` without `-ne`, so that packages from settings load (what a user's plain `pi` does). */
function plainPi(host: PiHost, args: string[], env: Record<string, string>): PiResult {
	const [program = "", ...prefix] = host.command;
	const result = spawnSync(program, [...prefix, ...args], { env, encoding: "utf8", timeout: 60_000 });
	return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function expectCursorRows(result: PiResult): void {
	withOutput(result, () => {
		expect(result.code).toBe(0);
		expect(result.stderr).not.toContain("Failed to load extension");
		expect(parseModelTable(result.stdout).filter((row) => row.provider === "cursor").length).toBeGreaterThan(100);
	});
}

for (const host of piHosts()) {
	describe(host.name, () => {
		test(
			"-e <installed folder>: --list-models cursor lists the rows and a -p turn answers",
			async () => {
				expectCursorRows(await runPi(["--list-models", "cursor"], { host, home: homes.create(), extensions: [pkg] }));
				const turn = await runPi(["--model", "cursor/composer-2", "-p", "hello"], {
					host,
					home: homes.create(NO_RETRY),
					env: cursorEnv(backend),
					extensions: [pkg],
				});
				withOutput(turn, () => {
					expect(turn.code).toBe(0);
					expect(turn.stdout.trim()).toBe(ANSWER);
				});
			},
			TIMEOUT_MS,
		);

		test(
			"pi install <installed folder>, then a plain pi lists the rows",
			() => {
				const home = homes.create();
				const env = home.env({ CURSOR_API_KEY: TEST_KEY });
				const installed = plainPi(host, ["install", pkg], env);
				withOutput(installed, () => expect(installed.code).toBe(0));
				expectCursorRows(plainPi(host, ["--list-models", "cursor"], env));
			},
			TIMEOUT_MS,
		);
	});
}

test(
	"pi install <checkout> (README's route from a checkout), then a plain pi lists the rows",
	() => {
		const [host] = piHosts();
		if (!host) throw new Error("no Pi host");
		const env = homes.create().env({ CURSOR_API_KEY: TEST_KEY });
		const installed = plainPi(host, ["install", REPO_ROOT], env);
		withOutput(installed, () => expect(installed.code).toBe(0));
		expectCursorRows(plainPi(host, ["--list-models", "cursor"], env));
	},
	TIMEOUT_MS,
);
