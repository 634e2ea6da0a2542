// The REAL @cursor/sdk 1.0.32, through src/sdk/cursor-sdk.ts (`cloudSdk`), against the cloud fake: every protocol
// fact the extension's cloud runtime relies on (docs: fake-cursor-backend-protocol.md §4.1). The SDK runs in a Bun
// child (probe-main.ts): it reads CURSOR_BACKEND_URL once, when it is first imported. One child runs the file's
// scripts one after another (each with its own agents), as the subject is the protocol, not the SDK's start.

import { afterAll, describe, expect, test } from "bun:test";
import { type CloudFake, cloudFakeForFile, type RequestLogEntry, type Scenario } from "../support/cloud-fake/client.ts";
import { CloudProbeProcess, PROBE_KEY, type ProbeResult } from "../support/cloud-fake/probe.ts";

const TIMEOUT_MS = 60_000;
const REPO = "https://github.com/acme/app";
const SHELL_CALL = {
	type: "shell",
	args: { command: "npm test" },
	result: { status: "success", value: { exitCode: 0, signal: "", stdout: "ok\n", stderr: "", executionTime: 5 } },
};
const PR = { repoUrl: REPO, branch: "cursor/fix-login", prUrl: `${REPO}/pull/7` };

const SCENARIOS: Record<string, Scenario> = {
	"[[full]]": {
		name: "full",
		steps: [
			{ thinking: "Reading the code." },
			{ thinkingCompleted: 12 },
			{ text: "Fixed " },
			{ tool: { callId: "call-1", toolCall: SHELL_CALL } },
			{ text: "the login." },
			{ turnEnded: { inputTokens: 120, outputTokens: 9, cacheReadTokens: 100, cacheWriteTokens: 4 } },
		],
		result: { git: { branches: [PR] } },
	},
	// Events: status (id 1), thinking + its update (id 2), assistant (id 3, legacy) | cut | update (id 3), …
	"[[cut]]": {
		name: "cut",
		steps: [
			{ thinking: "Thinking." },
			{ text: "one " },
			{ delay: 1500 }, // still running when the SDK checks the run after the cut, so it reconnects
			{ text: "two " },
			{ text: "three" },
			{ turnEnded: { inputTokens: 3, outputTokens: 3 } },
		],
		cutAfter: 4,
	},
	"[[hang]]": { name: "hang", steps: [{ text: "working on it" }, { hang: true }] },
	// A run that takes a while on its own, and leaves a file.
	"[[timeline]]": {
		name: "timeline",
		steps: [
			{ text: "first " },
			{ delay: 1200 },
			{ text: "second" },
			{ turnEnded: { inputTokens: 4, outputTokens: 2 } },
		],
		result: { git: { branches: [PR] }, artifacts: [{ path: "reports/summary.md", content: "# Summary\n" }] },
	},
	"[[slow]]": {
		name: "slow",
		steps: [{ text: "slow " }, { delay: 1500 }, { text: "answer" }, { turnEnded: { inputTokens: 1, outputTokens: 2 } }],
	},
};

const cloud = cloudFakeForFile(SCENARIOS);
/** One SDK process for every script of the file: the subject is the protocol, not the SDK's start. */
const probe = new CloudProbeProcess(() => cloud.fake.url);
afterAll(() => probe.close());

const routes = (log: RequestLogEntry[]) => log.filter((e) => e.route !== "exchange" && e.route !== "rpc");

function expectClean(result: ProbeResult): void {
	expect(result.events.filter((e) => e.event === "error")).toEqual([]);
	expect(result.exitCode).toBe(0);
}

describe("creating and sending", () => {
	test(
		"Agent.create and Agent.resume make no request; the first send posts /v1/agents with prompt, repository and model; later sends post runs",
		async () => {
			const result = await probe.run([
				{
					op: "create",
					slot: "a",
					setup: {
						cloud: {
							repos: [{ url: REPO, startingRef: "main" }],
							autoCreatePR: true,
							skipReviewerRequest: true,
							env: { type: "pool", name: "big" },
						},
						agents: { reviewer: { description: "Reviews diffs", prompt: "Review the diff." } },
					},
				},
				{ op: "requests" },
				{ op: "send", slot: "a", text: "fix the login", model: { id: "composer-2" } },
				{ op: "send", slot: "a", text: "and add a test", model: { id: "composer-2" } },
				{ op: "requests" },
				{ op: "resume", slot: "b", fromSlot: "a" },
				{ op: "requests" },
				{ op: "send", slot: "b", text: "after a restart", model: { id: "composer-2" } },
				{ op: "requests" },
			]);
			expectClean(result);
			const agentId = result.one(0, "create").agentId as string;
			expect(agentId).toMatch(/^bc-[0-9a-f-]{36}$/);
			expect(result.one(1, "requests").log).toEqual([]);

			const afterTwo = routes(result.one(4, "requests").log);
			expect(afterTwo.map((e) => `${e.method} ${e.route}`)).toEqual([
				"POST create",
				"GET stream",
				"POST followup",
				"GET stream",
			]);
			const create = afterTwo[0] as RequestLogEntry;
			expect(create.path).toBe("/v1/agents");
			expect(create.body).toMatchObject({
				agentId,
				prompt: { text: "fix the login" },
				model: { id: "composer-2" },
				repos: [{ url: REPO, startingRef: "main" }],
				autoCreatePR: true,
				skipReviewerRequest: true,
				env: { type: "pool", name: "big" },
				customSubagents: [expect.objectContaining({ name: "reviewer", prompt: "Review the diff." })],
			});
			expect(Object.keys(create.body as object)).not.toContain("tools");
			expect(Object.keys(create.body as object)).not.toContain("systemPrompt");
			expect(afterTwo[2]).toMatchObject({
				path: `/v1/agents/${agentId}/runs`,
				body: { prompt: { text: "and add a test" } },
			});
			// The key travels only as the bearer of the REST calls, never in a body.
			expect(afterTwo.every((e) => e.bearer === PROBE_KEY)).toBe(true);
			expect(JSON.stringify(afterTwo.map((e) => e.body ?? null))).not.toContain(PROBE_KEY);

			expect(result.one(5, "resume").agentId).toBe(agentId);
			expect(result.one(6, "requests").log).toEqual(result.one(4, "requests").log);
			const resumed = routes(result.one(8, "requests").log).slice(afterTwo.length);
			expect(resumed.map((e) => `${e.method} ${e.path}`)).toEqual([
				`POST /v1/agents/${agentId}/runs`,
				`GET /v1/agents/${agentId}/runs/${result.one(7, "sent").runId}/stream`,
			]);
			expect(result.one(7, "result").result.status).toBe("finished");
		},
		TIMEOUT_MS,
	);

	test(
		"a run streams thinking, text and tool calls, then reports its branch and PR; usage comes from turn-ended",
		async () => {
			const result = await probe.run([
				{ op: "create", slot: "a" },
				{ op: "send", slot: "a", text: "[[full]] go", stream: true },
			]);
			expectClean(result);
			const { deltas, messages, result: runResult } = result.one(1, "result");
			expect(deltas.map((d: { type: string }) => d.type)).toEqual([
				"thinking-delta",
				"thinking-completed",
				"text-delta",
				"tool-call-started",
				"tool-call-completed",
				"text-delta",
				"turn-ended",
			]);
			expect(deltas[4]).toMatchObject({ callId: "call-1", toolCall: SHELL_CALL });
			expect(runResult).toMatchObject({
				status: "finished",
				result: "Fixed the login.",
				git: { branches: [PR] },
				usage: { inputTokens: 120, outputTokens: 9, cacheReadTokens: 100, cacheWriteTokens: 4 },
			});
			const types = messages.map((m: { type: string; status?: string }) => m.type);
			expect(types).toContain("tool_call");
			expect(types.filter((t: string) => t === "usage")).toHaveLength(1);
		},
		TIMEOUT_MS,
	);

	test(
		"a stream cut mid-run is resumed with Last-Event-ID and no event arrives twice",
		async () => {
			const result = await probe.run([
				{ op: "create", slot: "a" },
				{ op: "send", slot: "a", text: "[[cut]] go", stream: true },
				{ op: "requests" },
			]);
			expectClean(result);
			const streams = result.one(2, "requests").log.filter((e: RequestLogEntry) => e.route === "stream");
			expect(streams).toHaveLength(2);
			expect(streams[0].lastEventId).toBeUndefined();
			// The first connection delivered interaction updates up to id 2 (id 3 was only a legacy frame).
			expect(streams[1].lastEventId).toBe("2");
			const { deltas, messages, result: runResult } = result.one(1, "result");
			const text = deltas.filter((d: { type: string }) => d.type === "text-delta").map((d: { text: string }) => d.text);
			expect(text).toEqual(["one ", "two ", "three"]);
			const streamed = messages
				.filter((m: { type: string }) => m.type === "assistant")
				.map((m: { message: { content: { text: string }[] } }) => m.message.content[0]?.text)
				.join("");
			expect(streamed).toBe("one two three");
			expect(runResult).toMatchObject({ status: "finished", usage: { inputTokens: 3, outputTokens: 3 } });
		},
		TIMEOUT_MS,
	);

	test(
		"run.cancel() posts …/runs/:runId/cancel and the run ends cancelled",
		async () => {
			const result = await probe.run([
				{ op: "create", slot: "a" },
				{ op: "send", slot: "a", text: "[[hang]] go", cancelOnDelta: "text-delta" },
				{ op: "requests" },
			]);
			expectClean(result);
			const runId = result.one(1, "sent").runId;
			const cancels = result.one(2, "requests").log.filter((e: RequestLogEntry) => e.route === "cancel");
			expect(cancels.map((e: RequestLogEntry) => e.path)).toEqual([
				`/v1/agents/${result.one(0, "create").agentId}/runs/${runId}/cancel`,
			]);
			expect(result.one(1, "result").result).toEqual({ id: runId, status: "cancelled" });
			const [agent] = await cloud.fake.agents();
			expect(agent?.runs.map((r) => r.status)).toEqual(["CANCELLED"]);
		},
		TIMEOUT_MS,
	);
});

describe("errors", () => {
	const sendError = async (faults: Parameters<CloudFake["setFaults"]>[0], followUp = false) => {
		await cloud.fake.setFaults(faults);
		const result = await probe.run([
			{ op: "create", slot: "a" },
			...(followUp ? [{ op: "resume" as const, slot: "a", agentId: "bc-22222222-2222-4222-8222-222222222222" }] : []),
			{ op: "send", slot: "a", text: "hello" },
		]);
		return result.events.find((e) => e.event === "error")?.error;
	};

	test(
		"REST errors of a send reject it, classified like the SDK's other REST calls",
		async () => {
			await cloud.fake.seedAgents([{ id: "bc-22222222-2222-4222-8222-222222222222" }]);
			expect(await sendError({ create: { status: 401, message: "bad key" } })).toMatchObject({
				name: "AuthenticationError",
				status: 401,
				message: "bad key",
			});
			expect(await sendError({ create: { status: 429 } })).toMatchObject({ name: "RateLimitError", status: 429 });
			expect(await sendError({ create: { status: 503 } })).toMatchObject({ name: "NetworkError", status: 503 });
			expect(await sendError({ followup: { status: 500 } }, true)).toMatchObject({ name: "NetworkError", status: 500 });
			expect(
				await sendError({ followup: { status: 404, code: "not_found", message: "no agent" } }, true),
			).toMatchObject({ name: "ConfigurationError", message: "[not_found] no agent" });
		},
		TIMEOUT_MS,
	);

	test(
		"a follow-up while the agent's run is still going gets 409 agent_busy → AgentBusyError",
		async () => {
			const result = await probe.run([
				{ op: "create", slot: "a" },
				{ op: "send", slot: "a", text: "[[hang]] first", noWait: true },
				{ op: "send", slot: "a", text: "second" },
				{ op: "requests" },
			]);
			expect(result.one(2, "error").error).toMatchObject({ name: "AgentBusyError", code: "agent_busy", status: 409 });
			const followups = result.one(3, "requests").log.filter((e: RequestLogEntry) => e.route === "followup");
			expect(followups.map((e: RequestLogEntry) => e.status)).toEqual([409]);
		},
		TIMEOUT_MS,
	);

	test(
		"the stream: 401 fails the run; after a 5xx the SDK reconnects while the run is still going",
		async () => {
			await cloud.fake.setFaults({ stream: { status: 401, message: "key revoked" } });
			const rejected = await probe.run([
				{ op: "create", slot: "a" },
				{ op: "send", slot: "a", text: "hello" },
			]);
			expectClean(rejected);
			expect(rejected.one(1, "result").result).toMatchObject({ status: "error", error: { message: "key revoked" } });

			await cloud.fake.reset();
			await cloud.fake.setScenarioMap(SCENARIOS);
			await cloud.fake.setFaults({ stream: { status: 502, times: 1 } });
			const retried = await probe.run([
				{ op: "create", slot: "a" },
				{ op: "send", slot: "a", text: "[[slow]] hello" },
				{ op: "requests" },
			]);
			expectClean(retried);
			expect(retried.one(1, "result").result).toMatchObject({ status: "finished", result: "slow answer" });
			const text = retried
				.one(1, "result")
				.deltas.filter((d: { type: string }) => d.type === "text-delta")
				.map((d: { text: string }) => d.text);
			expect(text).toEqual(["slow ", "answer"]);
			const streams = retried.one(2, "requests").log.filter((e: RequestLogEntry) => e.route === "stream");
			expect(streams.map((e: RequestLogEntry) => e.status)).toEqual([502, 200]);
		},
		TIMEOUT_MS,
	);
});

describe("managing agents", () => {
	test(
		"list, get, getRun, archive and delete reach the cloud API by id",
		async () => {
			const kept = "bc-33333333-3333-4333-8333-333333333333";
			const gone = "bc-44444444-4444-4444-8444-444444444444";
			await cloud.fake.seedAgents([
				{ id: kept, repos: [{ url: REPO }], runs: [{ status: "FINISHED", git: { branches: [PR] } }] },
				{ id: gone, repos: [{ url: REPO }] },
			]);
			const runId = (await cloud.fake.agents())[0]?.runs[0]?.id as string;
			const result = await probe.run([
				{ op: "list" },
				{ op: "getRun", agentId: kept, runId },
				{ op: "archive", agentId: kept },
				{ op: "list" },
				{ op: "list", options: { includeArchived: true } },
				{ op: "delete", agentId: gone },
				{ op: "get", agentId: gone },
				{ op: "get", agentId: kept },
				{ op: "requests" },
			]);
			const ids = (step: number) => result.one(step, "list").value.items.map((a: { agentId: string }) => a.agentId);
			expect(ids(0)).toEqual([kept, gone]);
			expect(result.one(1, "getRun").value).toEqual({
				id: expect.stringMatching(/^run-/),
				status: "finished",
				git: { branches: [PR] },
			});
			expect(ids(3)).toEqual([gone]);
			expect(result.one(4, "list").value.items).toEqual([
				expect.objectContaining({ agentId: kept, archived: true, repos: [REPO] }),
				expect.objectContaining({ agentId: gone, archived: false }),
			]);
			expect(result.one(6, "error").error).toMatchObject({ name: "ConfigurationError", status: 404 });
			expect(result.one(7, "get").value).toMatchObject({ agentId: kept, archived: true });
			const calls = routes(result.one(8, "requests").log).map((e) => `${e.method} ${e.path}`);
			expect(calls).toContain(`POST /v1/agents/${kept}/archive`);
			expect(calls).toContain(`DELETE /v1/agents/${gone}`);
			expect(calls.filter((c) => c === "GET /v1/agents")).toHaveLength(3);
		},
		TIMEOUT_MS,
	);
});

describe("runs that outlive their client", () => {
	test(
		"a run progresses on the server on its own timeline while its client does not wait; getRun, listRuns, following it and its artifacts see all of it",
		async () => {
			const result = await probe.run([
				{ op: "create", slot: "a" },
				{ op: "send", slot: "a", text: "[[timeline]] go", noWait: true },
				{ op: "getRun", slot: "a", runId: "last" },
				{ op: "sleep", ms: 2000 },
				{ op: "getRun", slot: "a", runId: "last" },
				{ op: "followRun", slot: "a", runId: "last" },
				{ op: "listRuns", slot: "a" },
				{ op: "artifacts", slot: "a", download: "reports/summary.md" },
			]);
			expectClean(result);
			expect(result.one(2, "getRun").value.status).toBe("running");
			expect(result.one(4, "getRun").value).toMatchObject({
				status: "finished",
				result: "first second",
				git: { branches: [PR] },
			});
			expect(result.one(5, "followRun").value).toMatchObject({ status: "finished", result: "first second" });
			expect(result.one(6, "listRuns").value).toHaveLength(1);
			const files = result.one(7, "artifacts");
			expect(files.value).toMatchObject([{ path: "reports/summary.md", sizeBytes: 10 }]);
			expect(files.content).toBe("# Summary\n");
		},
		TIMEOUT_MS,
	);

	test(
		"streaming a run started elsewhere replays its text and follows it to its end; an abort closes a hung one's stream at once and the run goes on",
		async () => {
			const result = await probe.run([
				{ op: "create", slot: "a" },
				{ op: "send", slot: "a", text: "[[timeline]] go", noWait: true },
				{ op: "streamRunText", slot: "a", runId: "last" },
				{ op: "send", slot: "a", text: "[[hang]] again", noWait: true },
				{ op: "streamRunText", slot: "a", runId: "last", abortAfterMs: 500 },
				{ op: "getRun", slot: "a", runId: "last" },
				{ op: "requests" },
			]);
			expectClean(result);
			expect(result.one(2, "streamRunText").texts.join("")).toBe("first second");
			const aborted = result.one(4, "streamRunText");
			expect(aborted.texts.join("")).toBe("working on it");
			const sent = result.events.find((e) => e.event === "sent" && e.step === 3);
			expect(aborted.t - (sent?.t ?? 0)).toBeLessThan(5000);
			expect(result.one(5, "getRun").value.status).toBe("running");
			expect(routes(result.one(6, "requests").log).filter((e) => e.route === "cancel")).toEqual([]);
		},
		TIMEOUT_MS,
	);

	test(
		"following a run started elsewhere resolves with its end; an abort stops following a hung one at once; cancelRun ends it",
		async () => {
			const result = await probe.run([
				{ op: "create", slot: "a" },
				{ op: "send", slot: "a", text: "[[timeline]] go", noWait: true },
				{ op: "sleep", ms: 300 },
				{ op: "followRun", slot: "a", runId: "last" },
				{ op: "send", slot: "a", text: "[[hang]] again", noWait: true },
				{ op: "followRun", slot: "a", runId: "last", abortAfterMs: 500 },
				{ op: "cancelRun", slot: "a", runId: "last" },
				{ op: "getRun", slot: "a", runId: "last" },
			]);
			expectClean(result);
			const followed = result.one(3, "followRun");
			expect(followed.value).toMatchObject({ status: "finished", result: "first second" });
			expect(result.one(5, "followRun").value.status).toBe("running");
			expect(result.one(7, "getRun").value.status).toBe("cancelled");
		},
		TIMEOUT_MS,
	);
});
