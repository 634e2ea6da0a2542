// Diagnostics a user runs when something is off, end to end (real `pi`, the built bundle, the real @cursor/sdk, the
// loopback fake backend): /cursor-doctor in print mode (healthy, rejected key, stale native override, a failed
// turn), the PI_CURSOR_SDK_EVENT_DEBUG capture, and context windows learned from a run's checkpoint.
import { beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { LEARNED_WINDOWS_FILENAME } from "../../src/catalog/learned-windows.ts";
import { EVENT_CAPTURE_DIR } from "../../src/usage/event-capture.ts";
import type { FakeBackend } from "../support/fake-backend/client.ts";
import { parseModelTable, piHosts, runPi } from "../support/pi.ts";
import { cursorEnv, leakedSecrets, startTurnBackend, TURN_TEST_MS, turnSuite, withOutput } from "../support/pi-turn.ts";
import { isNotify } from "../support/rpc.ts";

const TIMEOUT_MS = TURN_TEST_MS;
const DOCTOR = ["--model", "cursor/composer-2", "-p", "/cursor-doctor"];
let rejecting: FakeBackend;

/** A protobuf varint. */
function varint(value: number): number[] {
	const bytes: number[] = [];
	let rest = value;
	while (rest > 0x7f) {
		bytes.push((rest & 0x7f) | 0x80);
		rest = Math.floor(rest / 128);
	}
	bytes.push(rest);
	return bytes;
}

/** `AgentServerMessage{conversation_checkpoint_update: {token_details: {used_tokens, max_tokens}}}` as hex. */
function checkpointHex(usedTokens: number, maxTokens: number): string {
	const details = [0x08, ...varint(usedTokens), 0x10, ...varint(maxTokens)];
	const state = [0x2a, details.length, ...details];
	const message = [0x1a, state.length, ...state];
	return Buffer.from(message).toString("hex");
}

const LEARNED_WINDOW = 150_000;

const suite = turnSuite({
	scenarioMap: {
		"[[diag:answer]]": {
			name: "answer",
			steps: [
				{ thinking: "Checking." },
				{ text: "Diagnostics " },
				{ text: "answer." },
				{ turnEnded: { inputTokens: 40, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0 } },
			],
		},
		"[[diag:learn]]": {
			name: "learn",
			steps: [
				{ text: "learned" },
				{ rawHex: checkpointHex(1_234, LEARNED_WINDOW) },
				{ turnEnded: { inputTokens: 10, outputTokens: 1 } },
			],
		},
		"[[diag:fail]]": { name: "fail", steps: [{ error: { code: "internal", message: "the fake backend broke" } }] },
	},
});

beforeAll(async () => {
	rejecting = await startTurnBackend({ rest: { routes: { "GET /v1/me": { status: 401 } } } });
});

test(
	"/cursor-doctor in print mode against the healthy fake: every check ok, report on stderr, stdout clean, no key",
	async () => {
		const result = await suite.run(DOCTOR);
		withOutput(result, () => {
			expect(result.code).toBe(0);
			expect(result.stdout).toBe("");
			expect(result.stderr).toContain("Cursor doctor");
			expect(result.stderr).toContain("[ok  ] API key source: from the CURSOR_API_KEY environment variable");
			expect(result.stderr).toContain("[ok  ] Cursor accepts the key");
			expect(result.stderr).toContain("@cursor/sdk 1.0.32");
			expect(result.stderr).not.toContain("[WARN]");
			expect(result.stderr).not.toContain("[FAIL]");
			expect(result.stderr).toContain("All checks passed.");
			expect(leakedSecrets(result.stderr + result.stdout)).toEqual([]);
		});
	},
	TIMEOUT_MS,
);

for (const host of piHosts().slice(1)) {
	test(
		`/cursor-doctor in print mode on ${host.name}: exit code 0 when healthy, 1 when a check fails`,
		async () => {
			const result = await suite.run(DOCTOR, { host });
			withOutput(result, () => {
				expect(result.code).toBe(0);
				expect(result.stdout).toBe("");
				expect(result.stderr).toContain("[ok  ] Cursor accepts the key");
				expect(result.stderr).toContain("@cursor/sdk 1.0.32");
				expect(result.stderr).not.toContain("[FAIL]");
			});
			const rejected = await suite.run(DOCTOR, { host, env: cursorEnv(rejecting) });
			withOutput(rejected, () => {
				expect(rejected.code).toBe(1);
				expect(rejected.stderr).toContain("[FAIL] Cursor accepts the key");
			});
		},
		TIMEOUT_MS,
	);
}

test(
	"/cursor-doctor when Cursor rejects the key (HTTP 401): the key check fails with the fix, and the exit code says so",
	async () => {
		const result = await suite.run(DOCTOR, { env: cursorEnv(rejecting) });
		withOutput(result, () => {
			expect(result.code).toBe(1);
			expect(result.stderr).toStartWith("Cursor doctor report: 1 check failed");
			expect(result.stderr).toContain("[FAIL] Cursor accepts the key: Cursor rejected the key");
			expect(result.stderr).toContain("fix: the key is wrong, expired or revoked");
			expect(result.stderr).toContain("Cursor will not work until the failures are fixed.");
			expect(leakedSecrets(result.stderr + result.stdout)).toEqual([]);
		});
	},
	TIMEOUT_MS,
);

test(
	"/cursor-doctor with a stale explicit CURSOR_TREE_SITTER_VENDOR_DIR: a warning naming the variable",
	async () => {
		const home = suite.home();
		const stale = join(home.dir, "old-install", "vendor");
		const result = await suite.run(DOCTOR, { home, env: { CURSOR_TREE_SITTER_VENDOR_DIR: stale } });
		withOutput(result, () => {
			expect(result.code).toBe(0);
			expect(result.stderr).toContain(`[WARN] Native shell parser: CURSOR_TREE_SITTER_VENDOR_DIR=${stale}`);
			expect(result.stderr).toContain("fix: unset CURSOR_TREE_SITTER_VENDOR_DIR");
			expect(result.stderr).not.toContain("[FAIL]");
		});
	},
	TIMEOUT_MS,
);

// One RPC Pi for the failed turn and for the run that teaches a context window (a turn, not Pi's start, is their
// subject); its home is the one whose learned windows the last test lists.
const learnHome = suite.home();
const rpcPi = suite.shared(["--model", "cursor/composer-2"], { home: learnHome });

test(
	"after a failed turn, /cursor-doctor over RPC names the session's last (scrubbed) error",
	async () => {
		await rpcPi.use(async (pi) => {
			const from = pi.mark();
			await pi.prompt("[[diag:fail]] please");
			await pi.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 30_000 });
			const at = pi.mark();
			await pi.prompt("/cursor-doctor");
			const report = String((await pi.waitFor(isNotify("Cursor doctor"), { from: at })).message);
			expect(report).toContain("[WARN] Last Cursor error in this session:");
			expect(report).toContain("the fake backend broke");
			expect(leakedSecrets(report)).toEqual([]);
		});
	},
	TIMEOUT_MS,
);

test(
	"PI_CURSOR_SDK_EVENT_DEBUG=1: a private capture of the run's SDK events, its path shown once, no key",
	async () => {
		const home = suite.home();
		const stateRoot = join(home.dir, "state");
		const result = await suite.run(["--model", "cursor/composer-2", "-p", "[[diag:answer]] hello"], {
			home,
			env: { PI_CURSOR_SDK_EVENT_DEBUG: "1", PI_CURSOR_SDK_STATE_ROOT: stateRoot },
		});
		const dir = join(stateRoot, EVENT_CAPTURE_DIR);
		withOutput(result, () => {
			expect(result.code).toBe(0);
			expect(result.stdout).toContain("Diagnostics answer.");
			expect(result.stdout).not.toContain(EVENT_CAPTURE_DIR);
			expect(existsSync(dir)).toBe(true);
		});
		const files = readdirSync(dir);
		expect(files).toHaveLength(1);
		const file = join(dir, files[0] as string);
		expect(statSync(file).mode & 0o777).toBe(0o600);
		expect(result.stderr.split(file).length - 1).toBe(1); // the path is shown exactly once
		const text = readFileSync(file, "utf8");
		const events = text
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as { event: string; ms?: number; update?: { type?: string; text?: string } });
		expect(events[0]?.event).toBe("send-started");
		expect(events.at(-1)?.event).toBe("send-ended");
		const types = events.filter((e) => e.event === "delta").map((e) => e.update?.type);
		expect(types).toContain("thinking-delta");
		expect(types).toContain("text-delta");
		expect(types).toContain("turn-ended");
		const texts = events.filter((e) => e.update?.type === "text-delta").map((e) => e.update?.text);
		expect(texts.join("")).toBe("Diagnostics answer.");
		for (const event of events.filter((e) => e.event === "delta")) expect(event.ms).toBeGreaterThanOrEqual(0);
		expect(leakedSecrets(text)).toEqual([]);
	},
	TIMEOUT_MS,
);

test(
	"a run on a model without a context parameter teaches its window: the next start lists the learned one",
	async () => {
		const home = learnHome;
		const env = suite.env();
		/** The context window column of `pi --list-models cursor` (one Pi start) for each id. */
		const windowsOf = async (...ids: string[]) => {
			const rows = parseModelTable((await runPi(["--list-models", "cursor"], { home, env })).stdout);
			return ids.map((id) => rows.find((row) => row.model === id)?.context);
		};
		expect(await windowsOf("composer-2")).toEqual(["200K"]);
		await rpcPi.use(async (pi) => {
			const records = await pi.turn("[[diag:learn]] hi");
			const reply = records.findLast(
				(r) => r.type === "message_end" && (r.message as { role?: string }).role === "assistant",
			);
			expect(reply?.message, pi.describe()).toMatchObject({ stopReason: "stop" }); // the run succeeded
			expect((await pi.close()).code).toBe(0); // the Pi of the failed turn and this run exits cleanly
		});
		const cache = join(home.agentDir, LEARNED_WINDOWS_FILENAME);
		expect(statSync(cache).mode & 0o777).toBe(0o600);
		expect(JSON.parse(readFileSync(cache, "utf8")).windows["composer-2"].maxTokens).toBe(LEARNED_WINDOW);
		// models with a context parameter (gpt-5.5@272k) keep the window their id names
		expect(await windowsOf("composer-2", "composer-2:fast", "gpt-5.5@272k")).toEqual(["150K", "150K", "272K"]);
	},
	TIMEOUT_MS,
);

test("the second backend stops", async () => {
	await rejecting.stop();
});

suite.nothingLeftBehind();
