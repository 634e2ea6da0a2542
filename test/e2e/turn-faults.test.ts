// Faults as a user meets them: the real `pi` CLI (Node 24) with the built bundle and the real @cursor/sdk against
// the loopback fake Cursor backend. Every fault ends the turn cleanly (Pi `error` / `aborted`, exit code 1 in print
// mode), explains what to do, never prints the API key or a bearer token, is retried by Pi only when it is
// transient, and leaves no process behind.
import { describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import type { Scenario } from "../support/fake-backend/client.ts";
import {
	ACCESS_TOKEN,
	leakedSecrets,
	type PiRecord,
	TEST_KEY,
	TURN_TEST_MS,
	turnSuite,
	withOutput,
} from "../support/pi-turn.ts";
import { type RpcPi, SharedRpcPi, startRpcPi, withRpcOutput } from "../support/rpc.ts";

const MODEL = "cursor/composer-2.5";
const WRONG_KEY = "key_test_e2e_wrong_8d1e5f3a";

/** A server error whose text echoes secrets: the extension must scrub them before Pi prints the message. */
const LEAKY_MESSAGE = `backend exploded (authorization: Bearer ${ACCESS_TOKEN}; api key ${TEST_KEY})`;

const SCENARIOS: Record<string, Scenario> = {
	"[[fault:unavailable]]": {
		steps: [{ text: "partial " }, { error: { code: "unavailable", message: "backend overloaded" } }],
	},
	"[[fault:internal]]": { steps: [{ error: { code: "internal", message: LEAKY_MESSAGE } }] },
	"[[fault:no-turn-end]]": { steps: [{ text: "partial" }, { end: true }] },
	"[[fault:hang]]": { name: "hang", steps: [{ text: "part" }, { hang: true }] },
};
for (const code of [
	"unavailable",
	"resource_exhausted",
	"unauthenticated",
	"internal",
	"invalid_argument",
	"permission_denied",
]) {
	SCENARIOS[`[[retry:${code}]]`] = { steps: [{ error: { code, message: `${code} from the fake` } }] };
}
SCENARIOS["[[retry:no-turn-end]]"] = { steps: [{ text: "partial" }, { end: true }] };

const suite = turnSuite({ scenarioMap: SCENARIOS });

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const address = server.address();
	await new Promise<void>((resolve) => server.close(() => resolve()));
	if (!address || typeof address === "string") throw new Error("no port");
	return address.port;
}

async function runsWith(marker: string) {
	return (await suite.backend.runs()).filter((r) => r.userText?.includes(marker));
}

interface PrintFault {
	name: string;
	prompt: string;
	args?: string[];
	/** Variables on top of the suite's. */
	env?: () => Promise<Record<string, string | undefined>>;
	/** What the user reads on stderr. */
	message: RegExp;
	/** RunSSE requests the fake must have seen (retries are off: one attempt). */
	runs: number;
	extraSecrets?: string[];
}

const PRINT_FAULTS: PrintFault[] = [
	{
		name: "401 at the API-key exchange → check CURSOR_API_KEY or /login",
		prompt: "[[fault:bad-key]] hi",
		env: async () => ({ CURSOR_API_KEY: WRONG_KEY }),
		message: /Cursor rejected the API key: .*Invalid API key.*Check CURSOR_API_KEY or run \/login/,
		runs: 0,
		extraSecrets: [WRONG_KEY],
	},
	{
		name: "stream error unavailable after partial text → network wording, retry hint",
		prompt: "[[fault:unavailable]] hi",
		message:
			/Cursor connection failed \(network error\): \[unavailable\] backend overloaded\. This is usually temporary: retry\./,
		runs: 1,
	},
	{
		name: "stream error internal whose text carries secrets → scrubbed",
		prompt: "[[fault:internal]] hi",
		message: /Cursor error: \[internal\] backend exploded \(authorization: .*\[redacted\].*; api key \[redacted\]\)/,
		runs: 1,
	},
	{
		name: "stream ends without turn_ended → retryable network wording",
		prompt: "[[fault:no-turn-end]] hi",
		message:
			/Cursor connection failed \(network error\): Stream ended without turnEnded.*This is usually temporary: retry\./,
		runs: 1,
	},
	{
		name: "connection refused (CURSOR_BACKEND_URL on a closed loopback port) → names what refused, not 'temporary'",
		prompt: "[[fault:refused]] hi",
		env: async () => ({ CURSOR_BACKEND_URL: `http://127.0.0.1:${await closedPort()}` }),
		message:
			/^Cursor could not be reached \(network error\): 127\.0\.0\.1:\d+ refused the connection \(ECONNREFUSED\)\. Check your network connection, proxy or firewall, then retry\.$/m,
		runs: 0,
	},
	{
		name: "unknown model id → says how to list valid ids",
		prompt: "[[fault:unknown-model]] hi",
		args: ["--model", "cursor/not-a-model"],
		message: /Unknown Cursor model "cursor\/not-a-model"\. Run `pi --list-models cursor` to list valid ids/,
		runs: 0,
	},
	{
		name: "no API key at all → set CURSOR_API_KEY or run /login",
		prompt: "[[fault:no-key]] hi",
		env: async () => ({ CURSOR_API_KEY: undefined }),
		message: /No Cursor API key: set CURSOR_API_KEY or run \/login/,
		runs: 0,
	},
];

describe("print mode: a fault ends the run with exit code 1, a helpful stderr line and no secret", () => {
	for (const fault of PRINT_FAULTS) {
		suite.test(fault.name, async () => {
			const args = [...(fault.args ?? ["--model", MODEL]), "-p", fault.prompt];
			const result = await suite.run(args, { env: await fault.env?.() });
			const runs = await runsWith(fault.prompt);
			withOutput(result, () => {
				expect(result.code).toBe(1);
				expect(result.stdout).toBe("");
				expect(result.stderr).toMatch(fault.message);
				expect(leakedSecrets(result.stdout + result.stderr, fault.extraSecrets)).toEqual([]);
				expect(runs).toHaveLength(fault.runs);
			});
			if (fault.extraSecrets) {
				const exchanges = (await suite.backend.requests()).filter(
					(r) => r.path === "/auth/exchange_user_api_key" && r.bearer === WRONG_KEY,
				);
				expect(exchanges.length).toBeGreaterThan(0);
				expect(exchanges.every((r) => r.status === 401)).toBe(true);
			}
		});
	}
});

// One Pi process (RPC mode, Pi's auto-retry on) meets every stream error code in turn. Transient faults are worded so
// that Pi retries them; auth and request errors are not retried.
const RETRY_CASES: { code: string; message: RegExp; retried?: boolean }[] = [
	{
		code: "unavailable",
		message: /^Cursor connection failed \(network error\): \[unavailable\] unavailable from the fake\. .*retry/,
		retried: true,
	},
	{
		code: "no-turn-end",
		message: /^Cursor connection failed \(network error\): Stream ended without turnEnded/,
		retried: true,
	},
	{
		code: "resource_exhausted",
		message:
			/^Cursor rate limit or quota reached: \[resource_exhausted\] resource_exhausted from the fake\. Wait and retry\./,
		retried: true,
	},
	{
		code: "unauthenticated",
		message:
			/^Cursor rejected the API key: \[unauthenticated\] unauthenticated from the fake\. Check CURSOR_API_KEY or run \/login/,
		retried: false,
	},
	{
		code: "invalid_argument",
		message: /^Cursor rejected the request: \[invalid_argument\] invalid_argument from the fake$/,
		retried: false,
	},
	{
		code: "permission_denied",
		message: /^Cursor error: \[permission_denied\] permission_denied from the fake$/,
		retried: false,
	},
	{ code: "internal", message: /^Cursor error: \[internal\] internal from the fake$/ },
];

/**
 * One RPC Pi for the retry and abort tests (a new Pi session each), with Pi's auto-retry on (one retry, 10 ms
 * backoff): an aborted turn is never retried. Its clean exit is checked after both.
 */
const rpcPi = new SharedRpcPi(() =>
	startRpcPi(["--no-session", "--model", MODEL], {
		home: suite.home({ retry: { enabled: true, maxRetries: 1, baseDelayMs: 10 } }),
		env: suite.env(),
		lifetimeMs: 10 * 60_000,
	}),
);

/** Everything the RPC Pi wrote (its records, any non-JSON stdout, stderr). */
const rpcOutput = (pi: RpcPi) => `${JSON.stringify(pi.records)}\n${pi.junk.join("\n")}\n${pi.stderr}`;

suite.test("each stream error code ends the turn with Pi `error`; Pi retries the transient ones only", () =>
	rpcPi.use(async (pi) => {
		for (const c of RETRY_CASES) {
			const marker = `[[retry:${c.code}]]`;
			const from = pi.mark();
			const { response } = await pi.send({ type: "new_session" }, { timeoutMs: 30_000 });
			expect(response.success).toBe(true);
			pi.write({ type: "prompt", message: `${marker} hi` });
			await pi.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 60_000 });
			const records = pi.records.slice(from);
			const ends = records
				.filter((r) => r.type === "message_end" && (r.message as PiRecord)?.role === "assistant")
				.map((r) => r.message as PiRecord);
			const retries = records.filter((r) => r.type === "auto_retry_start");
			const runs = await runsWith(marker);
			withRpcOutput(pi, () => {
				expect({ code: c.code, stopReason: ends.at(-1)?.stopReason }).toEqual({
					code: c.code,
					stopReason: "error",
				});
				expect(ends.at(-1)?.errorMessage).toMatch(c.message);
				if (c.retried !== undefined) {
					expect({ code: c.code, attempts: runs.length, retries: retries.length }).toEqual({
						code: c.code,
						attempts: c.retried ? 2 : 1,
						retries: c.retried ? 1 : 0,
					});
				}
			});
		}
		withRpcOutput(pi, () => expect(leakedSecrets(rpcOutput(pi))).toEqual([]));
	}),
);

suite.test("RPC: abort during a hanging stream ends the turn `aborted` at once and cancels the Cursor run", () =>
	rpcPi.use(async (pi) => {
		const from = pi.mark();
		pi.write({ type: "prompt", message: "[[fault:hang]] rpc abort" });
		await pi.waitFor(
			(r) => r.type === "message_update" && (r.assistantMessageEvent as PiRecord)?.type === "text_delta",
			{ from, timeoutMs: 30_000 },
		);
		const abortedAt = Date.now();
		const { response } = await pi.send({ type: "abort" }, { timeoutMs: 10_000 });
		const settled = await pi.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 10_000 });
		const abortMs = Date.now() - abortedAt;
		const end = pi.records
			.slice(from)
			.find((r) => r.type === "message_end" && (r.message as PiRecord)?.role === "assistant")?.message as
			| PiRecord
			| undefined;
		const runs = await suite.backend.waitForRuns(
			(all) => all.some((r) => r.userText?.includes("[[fault:hang]] rpc abort") && r.clientClosed),
			10_000,
		);
		withRpcOutput(pi, () => {
			expect(response.success).toBe(true);
			expect(settled.aborted).toBe(true);
			expect(abortMs).toBeLessThan(3_000);
			expect(end?.stopReason).toBe("aborted");
			expect(end?.errorMessage).toBe("Request was aborted");
			// The partial text stays visible.
			expect(end?.content).toEqual([{ type: "text", text: "part" }]);
			const run = runs.find((r) => r.userText?.includes("[[fault:hang]] rpc abort"));
			expect(run?.status).toBe("client-closed");
			expect(leakedSecrets(rpcOutput(pi))).toEqual([]);
		});
	}),
);

// After every stream error and the aborted hanging stream, the Pi they shared exits at once and cleanly: nothing the
// cancelled run left behind holds it up.
test(
	"the retry and abort tests' RPC Pi exits cleanly within 10 s",
	async () => {
		const exit = await rpcPi.use(
			async (pi) => {
				const closedAt = Date.now();
				const exit = await pi.close();
				return { ...exit, ms: Date.now() - closedAt };
			},
			{ sameSession: true },
		);
		expect(exit.code).toBe(0);
		expect(exit.ms).toBeLessThan(10_000);
		expect(exit.junk).toEqual([]);
	},
	TURN_TEST_MS,
);

describe("print mode: a signal during a hanging stream ends Pi promptly", () => {
	for (const signal of ["SIGINT", "SIGTERM"] as const) {
		suite.test(signal, async () => {
			const marker = `[[fault:hang]] print ${signal}`;
			await suite.withPi(["--model", MODEL, "-p", marker], {}, async (pi) => {
				pi.child.stdin.end();
				await suite.backend.waitForRuns(
					(all) => all.some((r) => r.userText?.includes(marker) && r.framesSent > 0),
					60_000,
				);
				const signalledAt = Date.now();
				pi.child.kill(signal);
				const exit = await pi.waitExit(15_000);
				const exitMs = Date.now() - signalledAt;
				const runs = await suite.backend.waitForRuns(
					(all) => all.some((r) => r.userText?.includes(marker) && r.clientClosed),
					10_000,
				);
				withOutput(pi, () => {
					expect(exit.signal).not.toBe("SIGKILL");
					expect(exit.code === null ? exit.signal : exit.code).not.toBe(0);
					expect(exitMs).toBeLessThan(5_000);
					expect(runs.find((r) => r.userText?.includes(marker))?.clientClosed).toBe(true);
					expect(pi.stdout).toBe("");
					expect(leakedSecrets(pi.stdout + pi.stderr)).toEqual([]);
				});
			});
		});
	}
});

suite.nothingLeftBehind();
