// Issue 4 acceptance, bad input: an unusable cursor-sdk.json gives exactly one clear warning (a notify in RPC mode,
// stderr in print mode) and is never rewritten, even when /cursor-fast or /cursor-http try to save; invalid
// --cursor-* flags fail non-UI runs with a message naming the valid values (and notify in RPC mode). The three bad
// files take turns on one RPC Pi (a new Pi session each); the flags and print mode start their own.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, statSync } from "node:fs";
import { type FakeBackend, startFakeBackend } from "../support/fake-backend/client.ts";
import { runPi, type TempHome } from "../support/pi.ts";
import { notifications, rpcSuite, SharedRpcPi, statuses } from "../support/rpc.ts";

const TIMEOUT_MS = 120_000;
const KEY = "key_test_badinput_z1x2c3";

const suite = rpcSuite();
const { limit } = suite;
const home = () => suite.home();
let backend: FakeBackend;

beforeAll(async () => {
	backend = await startFakeBackend();
});
afterAll(async () => {
	await backend?.stop();
});

const BAD_FILES = [
	{
		name: "truncated JSON",
		content: '{\n  "fastDefaults": {\n    "composer-2": tr',
		reason: /is not valid JSON \(.+\) and is ignored\. Fix the JSON or delete the file/,
	},
	{
		name: "an array",
		content: '["composer-2", true]\n',
		reason: /must contain a JSON object \(\{ \.\.\. \}\) but contains an array, so it is ignored/,
	},
	{
		name: "wrong value types",
		content: '{"fastDefaults": {"composer-2": "yes"}, "local": {"useHttp1ForAgent": 1}}\n',
		reason:
			/has invalid values, which are ignored: "fastDefaults\.composer-2" must be true or false \(found "yes"\); "local\.useHttp1ForAgent" must be true or false \(found 1\)/,
	},
];

/** A temp HOME whose cursor-sdk.json has `content` (mode 0600); returns the path. */
function badConfig(h: TempHome, content: string): string {
	const path = h.writeAgentFile("cursor-sdk.json", content);
	chmodSync(path, 0o600);
	return path;
}

/**
 * One RPC Pi for the three bad files (no reachable backend): each test writes its file into the Pi's home and starts
 * a new Pi session, which reads the file again (as at startup) and warns about it once.
 */
let sharedHome: TempHome | undefined;
const badFilePi = () => {
	sharedHome ??= home();
	return suite.start(["--model", "cursor/composer-2", "--no-session"], {
		home: sharedHome,
		env: { CURSOR_API_KEY: KEY, CURSOR_BACKEND_URL: suite.refusedUrl },
		lifetimeMs: 4 * TIMEOUT_MS,
	});
};
const shared = new SharedRpcPi(badFilePi);
/** The file the last test wrote, and when: the Pi's exit must leave it as it was. */
let lastWritten: { path: string; content: string; mtimeMs: number } | undefined;

describe.concurrent("an unusable cursor-sdk.json", () => {
	for (const bad of BAD_FILES) {
		test(
			`${bad.name}: one warning at session start (RPC), ignored, and left byte-identical by /cursor-fast and /cursor-http`,
			async () => {
				await shared.use(
					async (pi) => {
						if (!sharedHome) throw new Error("the shared Pi has no home");
						const path = badConfig(sharedHome, bad.content);
						const before = statSync(path);
						lastWritten = { path, content: bad.content, mtimeMs: before.mtimeMs };
						try {
							// A new Pi session reads the file as a start does.
							const from = pi.mark();
							expect((await pi.send({ type: "new_session" })).response.success).toBe(true);
							const startup = notifications(pi.records.slice(from));
							expect(startup).toHaveLength(1);
							expect(startup[0]?.type).toBe("warning");
							expect(startup[0]?.message).toStartWith(`Cursor settings file ${path} `);
							expect(startup[0]?.message).toMatch(bad.reason);
							expect(startup[0]?.message).toEndWith(
								"pi-cursor-sdk will not save settings to this file until it is fixed.",
							);
							// Bad values are ignored: the catalog default (fast on) applies.
							expect(statuses(pi.records.slice(from))).toEqual(["cursor:local · fast:on"]);

							const fast = await pi.prompt("/cursor-fast");
							const fastNotes = notifications(fast.records);
							expect(fastNotes).toHaveLength(1);
							expect(fastNotes[0]?.type).toBe("warning");
							expect(fastNotes[0]?.message).toStartWith("Cursor fast off for composer-2. Not saved as a default: ");
							// The session value still applies.
							expect(statuses(fast.records)).toEqual(["cursor:local · fast:off"]);

							const http = await pi.prompt("/cursor-http on");
							const httpNotes = notifications(http.records);
							expect(httpNotes).toHaveLength(1);
							expect(httpNotes[0]?.message).toStartWith("Cursor HTTP/1.1 transport on. Not saved as a default: ");
							expect(statuses(http.records)).toEqual(["cursor:local · fast:off · http1"]);
						} catch (error) {
							if (error instanceof Error) error.message += `\n${pi.describe()}`;
							throw error;
						}
						expect(readFileSync(path, "utf8")).toBe(bad.content);
						const after = statSync(path);
						expect(after.mtimeMs).toBe(before.mtimeMs);
						expect(after.ino).toBe(before.ino);
						expect(after.mode & 0o777).toBe(0o600);
						expect(existsSync(`${path}.lock`)).toBe(false);
					},
					{ sameSession: true },
				);
			},
			TIMEOUT_MS,
		);
	}

	test(
		"print mode: the warning goes to stderr exactly once; the turn still runs; the file is untouched",
		async () => {
			const h = home();
			const bad = BAD_FILES[0];
			if (!bad) throw new Error("no bad file");
			const path = badConfig(h, bad.content);
			const result = await limit(() =>
				runPi(["--model", "cursor/composer-2", "--no-session", "-p", "hi"], {
					home: h,
					env: { CURSOR_API_KEY: KEY, CURSOR_BACKEND_URL: backend.url },
					timeoutMs: 90_000,
				}),
			);
			expect(result.code).toBe(0);
			expect(result.stdout).toContain("Hello from fake backend");
			expect(result.stderr.split(`Cursor settings file ${path}`).length).toBe(2);
			expect(result.stderr).toMatch(bad.reason);
			expect(readFileSync(path, "utf8")).toBe(bad.content);
		},
		TIMEOUT_MS,
	);
});

describe.concurrent("invalid --cursor-* flags", () => {
	const cases = [
		{
			name: "--cursor-mode bogus",
			args: ["--cursor-mode", "bogus"],
			message: 'Invalid --cursor-mode value "bogus". Valid values: agent, plan.',
		},
		{
			name: "--cursor-fast with --cursor-no-fast",
			args: ["--cursor-fast", "--cursor-no-fast"],
			message: "--cursor-fast and --cursor-no-fast cannot be used together; pass only one.",
		},
	];
	for (const c of cases) {
		test(
			`${c.name} fails a print run (rc ≠ 0) with a message naming the valid choice`,
			async () => {
				const result = await limit(() =>
					runPi([...c.args, "--model", "cursor/composer-2", "--no-session", "-p", "hi"], {
						home: home(),
						env: { CURSOR_API_KEY: KEY, CURSOR_BACKEND_URL: suite.refusedUrl },
						timeoutMs: 90_000,
					}),
				);
				expect(result.code).not.toBe(0);
				expect(result.stderr).toContain(c.message);
				expect(result.stdout).toBe("");
			},
			TIMEOUT_MS,
		);

		test(
			`${c.name} is reported as an error notice in RPC mode`,
			async () => {
				await limit(async () => {
					const pi = suite.start([...c.args, "--model", "cursor/composer-2", "--no-session"], {
						home: home(),
						env: { CURSOR_API_KEY: KEY, CURSOR_BACKEND_URL: suite.refusedUrl },
					});
					try {
						await pi.ready(60_000);
						expect(notifications(pi.records)).toEqual([{ message: c.message, type: "error" }]);
						expect((await pi.close()).code).toBe(0);
					} catch (error) {
						if (error instanceof Error) error.message += `\n${pi.describe()}`;
						await pi.kill();
						throw error;
					}
				});
			},
			TIMEOUT_MS,
		);
	}
});

test(
	"the bad files' shared Pi exits cleanly, and its exit leaves the last file byte-identical",
	async () => {
		await shared.closeCleanly();
		if (!lastWritten) throw new Error("no bad file was written");
		expect(readFileSync(lastWritten.path, "utf8")).toBe(lastWritten.content);
		expect(statSync(lastWritten.path).mtimeMs).toBe(lastWritten.mtimeMs);
	},
	TIMEOUT_MS,
);
