// Proves the loopback fake Cursor backend works with the REAL @cursor/sdk 1.0.32 (HTTP/1.1: RunSSE + BidiAppend).
// The SDK runs in one Node 24 child process (sdk-probe.mjs --serve); the fake runs in its own Bun process. Probes run
// one after another in that process against one backend and pick their scenario with a marker in the prompt.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
	type ClientLogEntry,
	type FakeBackend,
	loadCapturedCatalog,
	type Scenario,
	startFakeBackend,
} from "../support/fake-backend/client.ts";
import { decodeMessage, encodeMessage } from "../support/fake-backend/codec.ts";
import { dataEnvelope, endStreamEnvelope } from "../support/fake-backend/connect.ts";
import {
	type ProbeConfig,
	type ProbeResult,
	SdkProbeProcess,
	type SharedProbeOptions,
} from "../support/fake-backend/probe.ts";
import { unresolvedReferences } from "../support/fake-backend/schema.ts";
import { startFakeBackendServer } from "../support/fake-backend/server.ts";

/** Probes queue behind each other in the one SDK process, beside the other test files `npm test` runs. */
const TIMEOUT_MS = 120_000;
const GOOD_KEY = "key_test_fake_backend_ok";
const BAD_KEY = "key_test_fake_backend_wrong";
// 1×1 transparent PNG
const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

const SCENARIOS: Record<string, Scenario> = {
	"[[fb:text]]": {
		name: "text",
		steps: [
			{ stepStarted: 1 },
			{ thinking: "Let me think. " },
			{ thinking: "Still thinking." },
			{ thinkingCompleted: 42 },
			{ text: "Hello " },
			{ text: "from fake backend" },
			{ stepCompleted: { stepId: 1, durationMs: 12 } },
			{ turnEnded: { inputTokens: 100, outputTokens: 7, cacheReadTokens: 3, cacheWriteTokens: 2 } },
		],
	},
	"[[fb:shell]]": {
		name: "shell",
		steps: [
			{ tool: { callId: "call-shell-1", shell: { command: "echo hi-from-shell" } } },
			{ exec: { shell: { command: "echo direct-exec; echo oops >&2" } } },
			{ exec: { shell: { command: "echo streamed", stream: true } } },
			{ text: "shell done" },
			{ turnEnded: { inputTokens: 10, outputTokens: 2 } },
		],
	},
	"[[fb:read]]": {
		name: "read",
		steps: [
			{ exec: { read: { path: "hello.txt" } } },
			{ tool: { callId: "call-read-1", read: { path: "hello.txt" } } },
			{ exec: { read: { path: "missing.txt" } } },
			{ text: "read done" },
			{ turnEnded: { inputTokens: 1, outputTokens: 1 } },
		],
	},
	"[[fb:mcp]]": {
		name: "mcp",
		steps: [
			{ tool: { callId: "call-mcp-1", mcp: { toolName: "echo_tool", args: { msg: "ping", n: 2 } } } },
			{ exec: { mcp: { toolName: "boom", args: {} } } },
			{ exec: { mcp: { toolName: "nope" } } },
			{ text: "mcp done" },
			{ turnEnded: { inputTokens: 1, outputTokens: 1 } },
		],
	},
	"[[fb:err-unavailable]]": {
		steps: [{ text: "partial " }, { error: { code: "unavailable", message: "fake unavailable failure" } }],
	},
	"[[fb:err-exhausted]]": {
		steps: [{ error: { code: "resource_exhausted", message: "quota gone" } }],
	},
	"[[fb:no-turn-end]]": { steps: [{ text: "partial" }, { end: true }] },
	"[[fb:image]]": { steps: [{ echo: "you said: " }, { turnEnded: { inputTokens: 5, outputTokens: 5 } }] },
	"[[fb:hang]]": { name: "hang", steps: [{ text: "part" }, { hang: true }] },
	"[[fb:turn-2]]": { steps: [{ text: "second answer" }, { turnEnded: { inputTokens: 2, outputTokens: 2 } }] },
	"[[fb:http-401]]": { httpStatus: 401 },
	"[[fb:http-500]]": { httpStatus: 500 },
};

interface ProbeSpec {
	config: ProbeConfig;
	options?: SharedProbeOptions;
}

// Related sends share one agent (which also exercises continuation).
const PROBES = {
	// sends: 0 text+thinking (plan mode, model params), 1 image, 2 second turn
	conversation: {
		config: {
			model: { id: "composer-2", params: [{ id: "fast", value: "true" }] },
			sends: [
				{ message: "[[fb:text]] hi there", mode: "plan" },
				{ message: { text: "[[fb:image]] what is this?", images: [{ data: PNG_BASE64, mimeType: "image/png" }] } },
				{ message: "[[fb:turn-2]] second" },
			],
		},
	},
	// sends: 0 shell, 1 read, 2 custom tools (MCP)
	tools: {
		config: {
			sends: [{ message: "[[fb:shell]] run it" }, { message: "[[fb:read]] read it" }, { message: "[[fb:mcp]] tools" }],
			customTools: {
				echo_tool: {
					description: "Echo",
					inputSchema: { type: "object", properties: { msg: { type: "string" } } },
					reply: "pong:",
				},
				boom: { description: "Explodes", throws: "tool exploded" },
			},
		},
		options: { setup: (cwd: string) => writeFileSync(join(cwd, "hello.txt"), "line1\nline2\n") },
	},
	// sends: 0 unavailable, 1 resource_exhausted, 2 no turn end, 3 HTTP 401, 4 HTTP 500, 5 hang + cancel
	failures: {
		config: {
			sends: [
				{ message: "[[fb:err-unavailable]]" },
				{ message: "[[fb:err-exhausted]]" },
				{ message: "[[fb:no-turn-end]]" },
				{ message: "[[fb:http-401]]" },
				{ message: "[[fb:http-500]]" },
				{ message: "[[fb:hang]]", cancelOnDelta: "text-delta" },
			],
		},
	},
	badKey: { config: { sends: [{ message: "[[fb:text]] with a bad key" }] }, options: { apiKey: BAD_KEY } },
	rest: {
		config: {
			model: { id: "composer-latest" },
			listModels: true,
			me: true,
			getUsage: true,
			sends: [{ message: "no marker: default scenario" }],
		},
		options: { catalog: null },
	},
} satisfies Record<string, ProbeSpec>;

type ProbeName = keyof typeof PROBES;

let backend: FakeBackend;
let clientLog: ClientLogEntry[] = [];
const probes = new Map<ProbeName, Promise<ProbeResult>>();
let allProbesDone: Promise<unknown> = Promise.resolve();
/** One SDK process runs the file's probes one after another: the subject is the fake, not the SDK's start. */
const sdk = new SdkProbeProcess(() => backend.url);

beforeAll(async () => {
	backend = await startFakeBackend({
		rest: { apiKeys: [GOOD_KEY], models: loadCapturedCatalog() },
		scenarioMap: SCENARIOS,
	});
	for (const [name, spec] of Object.entries(PROBES) as [ProbeName, ProbeSpec][]) {
		probes.set(name, sdk.run(spec.config, { apiKey: GOOD_KEY, ...spec.options }));
	}
	allProbesDone = Promise.allSettled(probes.values()).then(async () => {
		clientLog = await backend.log();
	});
}, TIMEOUT_MS);

afterAll(async () => {
	await allProbesDone;
	await sdk.close();
	await backend?.stop();
}, TIMEOUT_MS);

async function probe(name: ProbeName): Promise<ProbeResult> {
	const result = probes.get(name);
	if (!result) throw new Error(`no probe ${name}`);
	return result;
}

/** Runs assertions, adding the probe's events and stderr to any failure. */
function withContext(p: ProbeResult, assertions: () => void): void {
	try {
		assertions();
	} catch (error) {
		const context = `\n--- probe events ---\n${JSON.stringify(p.events, null, 1).slice(0, 6000)}\n--- stderr ---\n${p.stderr.slice(-3000)}`;
		if (error instanceof Error) error.message += context;
		throw error;
	}
}

function agentId(p: ProbeResult): string {
	return String(p.events.find((e) => e.event === "created")?.agentId ?? "");
}

function runRequestId(p: ProbeResult, send = 0): string {
	return String(p.forSend(send).find((e) => e.event === "run")?.requestId ?? "");
}

/** Client log entries of one RunSSE (after all probes finished). */
async function logFor(p: ProbeResult, send = 0): Promise<ClientLogEntry[]> {
	await allProbesDone;
	const requestId = runRequestId(p, send);
	return clientLog.filter((e) => e.requestId === requestId);
}

describe("fake backend codec", () => {
	test(
		"schema references resolve and frames match the protocol doc's worked bytes",
		() => {
			expect(unresolvedReferences()).toEqual([]);
			const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
			expect(
				hex(dataEnvelope(encodeMessage("AgentServerMessage", { interaction_update: { text_delta: { text: "hi" } } }))),
			).toBe("00000000080a060a040a026869");
			expect(
				hex(
					dataEnvelope(
						encodeMessage("AgentServerMessage", {
							interaction_update: { turn_ended: { input_tokens: 10, output_tokens: 2 } },
						}),
					),
				),
			).toBe("00000000080a067204080a1002");
			expect(
				hex(
					dataEnvelope(
						encodeMessage("AgentServerMessage", {
							exec_server_message: { id: 1, read_args: { path: "/w/a.txt", tool_call_id: "c1" } },
						}),
					),
				),
			).toBe("0000000014121208013a0e0a082f772f612e74787412026331");
			expect(hex(endStreamEnvelope())).toBe("02000000027b7d");
			const mcp = {
				name: "custom-user-tools-echo",
				args: { msg: "ping", n: 3, list: [1, true, null], nested: { a: "b" } },
			};
			expect(decodeMessage("McpArgs", encodeMessage("McpArgs", mcp))).toEqual(mcp);
			expect(decodeMessage("ShellFailure", encodeMessage("ShellFailure", { exit_code: -1, aborted: true }))).toEqual({
				exit_code: -1,
				aborted: true,
			});
			expect(() => encodeMessage("TextDeltaUpdate", { txt: "typo" })).toThrow("unknown field TextDeltaUpdate.txt");
		},
		TIMEOUT_MS,
	);
});

/** The `success` case of an exec result entry, typed loosely for assertions. */
function success(entry: ClientLogEntry | undefined): { stdout?: string; stderr?: string; working_directory?: string } {
	return (entry?.result?.success ?? {}) as { stdout?: string; stderr?: string; working_directory?: string };
}

const message = (result: Record<string, unknown> | undefined) =>
	(result?.error as { message?: string } | undefined)?.message;

describe("real @cursor/sdk against the fake backend", () => {
	test(
		"thinking and text deltas arrive in order; usage and the decoded run request reach both sides",
		async () => {
			const p = await probe("conversation");
			const log = await logFor(p, 0);
			const requests = await backend.requests();
			withContext(p, () => {
				expect(p.deltas(0).map((d) => d.type)).toEqual([
					"step-started",
					"thinking-delta",
					"thinking-delta",
					"thinking-completed",
					"text-delta",
					"text-delta",
					"step-completed",
					"turn-ended",
				]);
				expect(
					p
						.deltas(0)
						.filter((d) => d.type === "thinking-delta")
						.map((d) => d.text),
				).toEqual(["Let me think. ", "Still thinking."]);
				expect(p.deltas(0).find((d) => d.type === "thinking-completed")?.thinkingDurationMs).toBe(42);
				const steps = p.forSend(0).filter((e) => e.event === "step");
				expect(steps.map((e) => (e.step as { type: string }).type)).toEqual(["thinkingMessage", "assistantMessage"]);
				const result = p.result(0);
				expect(result?.status).toBe("finished");
				expect(result?.result).toBe("Hello from fake backend");
				expect(result?.usage).toEqual({
					inputTokens: 100,
					outputTokens: 7,
					cacheReadTokens: 3,
					cacheWriteTokens: 2,
					totalTokens: 112,
				});

				const runRequest = log.find((e) => e.kind === "run_request")?.runRequest;
				expect(runRequest?.modelId).toBe("composer-2");
				expect(runRequest?.params).toEqual([{ id: "fast", value: "true" }]);
				expect(runRequest?.mode).toBe("plan");
				expect(runRequest?.text).toBe("[[fb:text]] hi there");
				expect(runRequest?.conversationId).toBe(agentId(p));
				expect(runRequest?.runId).toBe(runRequestId(p, 0));

				// The key exchange carries the raw API key; Connect RPCs carry the exchanged access token.
				const exchange = requests.filter((r) => r.path === "/auth/exchange_user_api_key" && r.bearer === GOOD_KEY);
				expect(exchange.length).toBeGreaterThan(0);
				const runSse = requests.find(
					(r) => r.path === "/agent.v1.AgentService/RunSSE" && r.requestId === runRequestId(p, 0),
				);
				expect(runSse?.bearer).toBe("fake-access-token");
			});
		},
		TIMEOUT_MS,
	);

	test(
		"an image attached to the user message is decoded in the log",
		async () => {
			const p = await probe("conversation");
			const log = await logFor(p, 1);
			withContext(p, () => {
				const runRequest = log.find((e) => e.kind === "run_request")?.runRequest;
				expect(runRequest?.images).toEqual([{ mimeType: "image/png", data: PNG_BASE64, blobId: null }]);
				expect(runRequest?.text).toBe("[[fb:image]] what is this?");
				expect(p.result(1)?.result).toBe("you said: [[fb:image]] what is this?");
			});
		},
		TIMEOUT_MS,
	);

	test(
		"further sends on the same agent are new RunSSEs with the same conversation id",
		async () => {
			const p = await probe("conversation");
			await allProbesDone;
			const id = agentId(p);
			const runRequests = clientLog.filter((e) => e.runRequest?.conversationId === id).map((e) => e.runRequest);
			withContext(p, () => {
				expect(id).toMatch(/^agent-/);
				expect(runRequests.map((r) => r?.text)).toEqual([
					"[[fb:text]] hi there",
					"[[fb:image]] what is this?",
					"[[fb:turn-2]] second",
				]);
				expect(new Set(runRequests.map((r) => r?.runId)).size).toBe(3);
				expect(new Set([0, 1, 2].map((i) => runRequestId(p, i))).size).toBe(3);
				expect(p.result(2)?.result).toBe("second answer");
			});
		},
		TIMEOUT_MS,
	);

	test(
		"exec shell: the SDK really runs the command; tool-call updates and exec results are logged",
		async () => {
			const p = await probe("tools");
			const log = await logFor(p, 0);
			withContext(p, () => {
				// A shell without a working directory first makes the fake learn the workspace (hidden request context).
				expect(log.find((e) => e.kind === "exec_result")?.resultCase).toBe("request_context_result");
				const results = log.filter((e) => e.kind === "exec_result" && e.resultCase === "shell_result");
				expect(results.map((e) => success(e).stdout)).toEqual(["hi-from-shell\n", "direct-exec\n"]);
				expect(success(results[1]).stderr).toBe("oops\n");
				expect(success(results[0]).working_directory).toBe(p.cwd);
				const streamed = log.filter((e) => e.resultCase === "shell_stream").map((e) => Object.keys(e.result ?? {})[0]);
				expect(streamed).toEqual(["start", "stdout", "exit"]);
				expect(log.filter((e) => e.kind === "exec_stream_close").map((e) => e.execId)).toEqual([1, 2, 3, 4]);

				const deltas = p.deltas(0);
				const started = deltas.find((d) => d.type === "tool-call-started");
				expect(started?.callId).toBe("call-shell-1");
				expect(started?.toolCall).toMatchObject({ type: "shell", args: { command: "echo hi-from-shell" } });
				expect(deltas.find((d) => d.type === "shell-output-delta")?.event).toEqual({
					case: "stdout",
					value: { data: "hi-from-shell\n" },
				});
				const completed = deltas.find((d) => d.type === "tool-call-completed");
				expect(completed?.toolCall).toMatchObject({
					type: "shell",
					args: { command: "echo hi-from-shell", workingDirectory: p.cwd },
					result: { status: "success", value: { exitCode: 0, stdout: "hi-from-shell\n" } },
				});
				expect(p.result(0)?.status).toBe("finished");
				expect(p.result(0)?.result).toBe("shell done");
			});
		},
		TIMEOUT_MS,
	);

	test(
		"exec read returns the workspace file content; a missing file is file_not_found",
		async () => {
			const p = await probe("tools");
			const log = await logFor(p, 1);
			withContext(p, () => {
				const reads = log.filter((e) => e.resultCase === "read_result").map((e) => e.result);
				expect(reads[0]?.success).toMatchObject({ content: "line1\nline2\n", total_lines: 3, file_size: 12 });
				expect(reads[1]?.success).toMatchObject({ content: "line1\nline2\n" });
				expect(reads[2]).toEqual({ file_not_found: { path: join(p.cwd, "missing.txt") } });
				const completed = p.deltas(1).find((d) => d.type === "tool-call-completed");
				expect(completed?.toolCall).toMatchObject({
					type: "read",
					result: { status: "success", value: { content: "line1\nline2\n" } },
				});
				expect(p.result(1)?.result).toBe("read done");
			});
		},
		TIMEOUT_MS,
	);

	test(
		"customTools: the run request advertises them and MCP execs call them in the SDK process",
		async () => {
			const p = await probe("tools");
			const log = await logFor(p, 2);
			withContext(p, () => {
				expect(log.find((e) => e.kind === "run_request")?.runRequest?.mcpTools).toEqual([
					"custom-user-tools-echo_tool",
					"custom-user-tools-boom",
				]);
				const calls = p.events.filter((e) => e.event === "tool");
				expect(calls.map((e) => [e.name, e.args, e.toolCallId])).toEqual([
					["echo_tool", { msg: "ping", n: 2 }, "call-mcp-1"],
					["boom", {}, null],
				]);
				const results = log.filter((e) => e.resultCase === "mcp_result").map((e) => e.result);
				expect(results[0]).toEqual({ success: { content: [{ text: { text: 'pong:{"msg":"ping","n":2}' } }] } });
				expect(results[1]).toEqual({ error: { error: "tool exploded" } });
				expect(results[2]).toEqual({ error: { error: "Unknown custom tool: nope" } });
				const completed = p.deltas(2).find((d) => d.type === "tool-call-completed");
				expect(completed?.toolCall).toMatchObject({
					type: "mcp",
					args: { toolName: "echo_tool", providerIdentifier: "custom-user-tools" },
					result: { status: "success" },
				});
				expect(p.result(2)?.result).toBe("mcp done");
			});
		},
		TIMEOUT_MS,
	);

	test(
		"an end-of-stream error gives run status error with [code] message",
		async () => {
			const p = await probe("failures");
			withContext(p, () => {
				expect(p.deltas(0).map((d) => d.type)).toEqual(["text-delta"]);
				expect(p.result(0)?.status).toBe("error");
				expect(message(p.result(0))).toBe("[unavailable] fake unavailable failure");
				expect(p.result(1)?.status).toBe("error");
				expect(message(p.result(1))).toBe("[resource_exhausted] quota gone");
			});
		},
		TIMEOUT_MS,
	);

	test(
		"a stream that ends without turn ended is an error",
		async () => {
			const p = await probe("failures");
			withContext(p, () => {
				expect(p.result(2)?.status).toBe("error");
				expect(message(p.result(2))).toContain("Stream ended without turnEnded");
			});
		},
		TIMEOUT_MS,
	);

	test(
		"an HTTP status on RunSSE surfaces as a Connect error",
		async () => {
			const p = await probe("failures");
			withContext(p, () => {
				expect(message(p.result(3))).toBe("[unauthenticated] HTTP 401");
				expect(message(p.result(4))).toBe("[unknown] HTTP 500");
			});
		},
		TIMEOUT_MS,
	);

	test(
		"a hanging stream is cancelled with run.cancel() and the fake sees the client close",
		async () => {
			const p = await probe("failures");
			await allProbesDone;
			const runs = await backend.runs();
			withContext(p, () => {
				expect(p.forSend(5).some((e) => e.event === "cancel")).toBe(true);
				expect(p.result(5)?.status).toBe("cancelled");
				const run = runs.find((r) => r.requestId === runRequestId(p, 5));
				expect(run?.scenarioName).toBe("hang");
				expect(run?.selectedBy).toBe("marker");
				expect(run?.clientClosed).toBe(true);
				expect(run?.status).toBe("client-closed");
			});
		},
		TIMEOUT_MS,
	);

	test(
		"a 401 at key exchange fails the run and the fake saw the wrong key",
		async () => {
			const p = await probe("badKey");
			await allProbesDone;
			const requests = await backend.requests();
			withContext(p, () => {
				expect(p.result()?.status).toBe("error");
				expect(message(p.result())).toContain("Invalid API key (fake backend)");
				const rejected = requests.filter((r) => r.path === "/auth/exchange_user_api_key" && r.bearer === BAD_KEY);
				expect(rejected.length).toBeGreaterThan(0);
				expect(rejected.every((r) => r.status === 401)).toBe(true);
			});
		},
		TIMEOUT_MS,
	);

	test(
		"REST: models list (captured catalog, alias resolution), me, usage and the default scenario",
		async () => {
			const p = await probe("rest");
			const log = await logFor(p, 0);
			const requests = await backend.requests();
			withContext(p, () => {
				const models = p.events.find((e) => e.event === "models")?.models as { id: string }[];
				expect(models.length).toBe(loadCapturedCatalog().length);
				expect(models.map((m) => m.id)).toContain("composer-2.5");
				expect(p.events.find((e) => e.event === "me")?.me).toMatchObject({ apiKeyName: "fake-key" });
				expect(p.events.find((e) => e.event === "usage")?.usage).toMatchObject({
					usage: { inputTokens: 10, outputTokens: 5 },
				});
				expect(log.find((e) => e.kind === "run_request")?.runRequest?.modelId).toBe("composer-2.5");
				expect(p.result()?.result).toBe("Hello from fake backend");
				const modelRequests = requests.filter((r) => r.method === "GET" && r.path === "/v1/models");
				expect(modelRequests.some((r) => r.bearer === GOOD_KEY)).toBe(true);
			});
		},
		TIMEOUT_MS,
	);
});

describe("scenario queue", () => {
	test(
		"the n-th RunSSE gets the n-th queued scenario, then the default",
		async () => {
			await allProbesDone;
			await backend.enqueue([{ text: "queued one" }, { turnEnded: true }], {
				name: "second",
				steps: [{ text: "queued two" }, { turnEnded: true }],
			});
			const p = await sdk.run({ sends: [{ message: "a" }, { message: "b" }, { message: "c" }] }, { apiKey: GOOD_KEY });
			const runs = await backend.runs();
			withContext(p, () => {
				expect([0, 1, 2].map((i) => p.result(i)?.result)).toEqual([
					"queued one",
					"queued two",
					"Hello from fake backend",
				]);
				const mine = runs.filter((r) => [0, 1, 2].some((i) => r.requestId === runRequestId(p, i)));
				expect(mine.map((r) => r.selectedBy)).toEqual(["queue", "queue", "default"]);
			});
		},
		TIMEOUT_MS,
	);
});

describe("REST and control API (in-process server, no SDK)", () => {
	test(
		"key exchange statuses, api key allow-list, route overrides, hang and reset",
		async () => {
			const server = await startFakeBackendServer();
			try {
				const post = (path: string, body: unknown = {}, key = "key_a") =>
					fetch(`${server.url}${path}`, {
						method: "POST",
						headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
						body: JSON.stringify(body),
					});
				expect(await (await post("/auth/exchange_user_api_key")).json()).toEqual({ accessToken: "fake-access-token" });
				await post("/__fake/rest", { keyExchangeStatus: 404 });
				expect((await post("/auth/exchange_user_api_key")).status).toBe(404);
				await post("/__fake/rest", { keyExchangeStatus: 200, apiKeys: ["key_ok"] });
				expect((await post("/auth/exchange_user_api_key", {}, "key_a")).status).toBe(401);
				expect((await post("/auth/exchange_user_api_key", {}, "key_ok")).status).toBe(200);

				await post("/__fake/rest", { routes: { "GET /v1/me": { status: 429 }, "/v1/models": { hang: true } } });
				const me = await fetch(`${server.url}/v1/me`);
				expect(me.status).toBe(429);
				expect(((await me.json()) as { error: { code: string } }).error.code).toBe("resource_exhausted");
				// A hanging route never answers until reset (which cuts the connection; Bun's fetch may then retry).
				const hanging = fetch(`${server.url}/v1/models`).then(
					() => "settled",
					() => "settled",
				);
				const pending = (ms: number) => new Promise((r) => setTimeout(() => r("pending"), ms));
				expect(await Promise.race([hanging, pending(200)])).toBe("pending");
				await post("/__fake/reset");
				expect(await Promise.race([hanging, pending(5000)])).toBe("settled");
				expect(((await (await fetch(`${server.url}/v1/models`)).json()) as { items: unknown[] }).items.length).toBe(2);

				const rpc = await fetch(`${server.url}/aiserver.v1.ServerConfigService/GetServerConfig`, {
					method: "POST",
					headers: { authorization: "Bearer key_a", "content-type": "application/proto" },
					body: new Uint8Array(0),
				});
				expect(rpc.status).toBe(200);
				expect((await rpc.arrayBuffer()).byteLength).toBe(0);
				expect((await fetch(`${server.url}/nope`)).status).toBe(404);
				const requests = (await (await fetch(`${server.url}/__fake/requests`)).json()) as {
					path: string;
					bearer: string;
				}[];
				expect(requests.find((r) => r.path === "/aiserver.v1.ServerConfigService/GetServerConfig")?.bearer).toBe(
					"key_a",
				);
				expect((await post("/__fake/scenarios", [{ text: "a" }, { end: true }])).status).toBe(200);
				const queue = (await (await fetch(`${server.url}/__fake/scenarios`)).json()) as { queue: unknown[] };
				expect(queue.queue).toEqual([{ steps: [{ text: "a" }, { end: true }] }]);
				expect((await post("/__fake/nope")).status).toBe(404);
			} finally {
				await server.close();
			}
		},
		TIMEOUT_MS,
	);
});
