// The cloud turn (src/cloud/run.ts) with the REAL @cursor/sdk against the cloud fake: what Pi's assistant message
// stream shows, what reaches the fake, what the session's cloud journal records. The turn and the SDK run together in
// a Bun child (probe-main.ts), which reads CURSOR_BACKEND_URL before the SDK is imported.

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CloudFake, cloudFakeForFile, type RequestLogEntry, type Scenario } from "../support/cloud-fake/client.ts";
import { type CloudProbeStep, PROBE_KEY, type ProbeEvent, runCloudProbe } from "../support/cloud-fake/probe.ts";
import { cursorModel } from "../support/messages.ts";

const TIMEOUT_MS = 60_000;
const REPO = "https://github.com/acme/app";
const PR = { repoUrl: REPO, branch: "cursor/fix-login", prUrl: `${REPO}/pull/7` };
const SHELL_CALL = {
	type: "shell",
	args: { command: "npm test" },
	result: { status: "success", value: { exitCode: 0, signal: "", stdout: "ok\n", stderr: "", executionTime: 5 } },
};

const SCENARIOS: Record<string, Scenario> = {
	"[[full]]": {
		steps: [
			{ thinking: "Reading the code." },
			{ text: "Fixed " },
			{ tool: { callId: "call-1", toolCall: SHELL_CALL } },
			{ text: "the login." },
			{ turnEnded: { inputTokens: 120, outputTokens: 9, cacheReadTokens: 100, cacheWriteTokens: 4 } },
		],
		result: { git: { branches: [PR] } },
	},
	"[[hang]]": { steps: [{ text: "Working on it" }, { hang: true }] },
	"[[cut]]": {
		// Still running when the SDK checks the run after the cut, so it reconnects.
		steps: [{ thinking: "Hm." }, { text: "one " }, { delay: 1500 }, { text: "two " }, { text: "three" }],
		cutAfter: 4,
	},
	"[[quiet]]": { steps: [{ text: "Started. " }, { delay: 2500 }, { text: "Done after a quiet stretch." }] },
	"[[no-usage]]": { steps: [{ text: "No usage here." }] },
};

const cloud = cloudFakeForFile(SCENARIOS);
let dir: string;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "cloud-run-"));
});
afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});

const journalPath = () => join(dir, "sessions", "cursor-cloud-test.journal");
const journal = () =>
	readFileSync(journalPath(), "utf8")
		.trimEnd()
		.split("\n")
		.map((line) => JSON.parse(line));

function turn(
	text: string,
	extra: Partial<Extract<CloudProbeStep, { op: "turn" }>["turn"]> = {},
	step: Partial<Extract<CloudProbeStep, { op: "turn" }>> = {},
): CloudProbeStep {
	return {
		op: "turn",
		model: cursorModel,
		journalPath: journalPath(),
		turn: {
			apiKey: PROBE_KEY,
			selection: { id: "composer-2", params: [{ id: "thinking", value: "true" }] },
			mode: "agent",
			prompt: { text, images: [] },
			cloud: { repos: [{ url: REPO, startingRef: "main" }] },
			branch: "leaf-1",
			...extra,
		},
		...step,
	};
}

/** Pi's stream events of one step. */
const piEvents = (events: ProbeEvent[], step: number) =>
	events.filter((e) => e.event === "pi" && e.step === step).map((e) => e.pi);
const terminal = (events: ProbeEvent[], step: number) => piEvents(events, step).at(-1);

describe("a cloud turn", () => {
	test(
		"creates the agent, records it before the first send, streams thinking and text, shows the tool call and then the branch and PR",
		async () => {
			const result = await runCloudProbe(cloud.fake.url, [turn("[[full]] fix the login")]);
			expect(result.one(0, "journal-agent").creates).toBe(0);
			const events = piEvents(result.events, 0);
			expect(events.map((e) => e.type)).toEqual([
				"start",
				"thinking_start",
				"thinking_delta",
				"thinking_end",
				"text_start",
				"text_delta",
				"text_end",
				"thinking_start",
				"thinking_delta",
				"thinking_end",
				"text_start",
				"text_delta",
				"text_delta",
				"text_end",
				"done",
			]);
			const done = events.at(-1);
			expect(done.message.stopReason).toBe("stop");
			expect(done.message.content).toEqual([
				{ type: "thinking", thinking: "Reading the code." },
				{ type: "text", text: "Fixed " },
				{ type: "thinking", thinking: "Cursor shell: npm test → exit 0\n" },
				{
					type: "text",
					text: "the login.\n\nCursor Cloud: branch cursor/fix-login · pull request https://github.com/acme/app/pull/7",
				},
			]);
			// Usage from turn-ended: the uncached prompt, cache reads/writes apart, total = input + output.
			expect(done.message.usage).toMatchObject({
				input: 16,
				cacheRead: 100,
				cacheWrite: 4,
				output: 9,
				totalTokens: 129,
			});

			const [agent] = await cloud.fake.agents();
			const create = (await cloud.fake.requests()).find((e) => e.route === "create");
			expect(create?.body).toMatchObject({
				agentId: agent?.id,
				prompt: { text: "[[full]] fix the login" },
				model: { id: "composer-2", params: [{ id: "thinking", value: "true" }] },
				mode: "agent",
				repos: [{ url: REPO, startingRef: "main" }],
			});
			const runId = agent?.runs[0]?.id;
			expect(journal()).toEqual([
				{
					v: 1,
					at: expect.any(Number),
					type: "agent",
					agentId: agent?.id,
					model: "composer-2",
					repo: REPO,
					startingRef: "main",
					branch: "leaf-1",
				},
				{ v: 1, at: expect.any(Number), type: "run", agentId: agent?.id, runId },
				{ v: 1, at: expect.any(Number), type: "result", agentId: agent?.id, runId, status: "finished", git: [PR] },
			]);
			expect(statSync(journalPath()).mode & 0o777).toBe(0o600);
		},
		TIMEOUT_MS,
	);

	test(
		"a follow-up on the recorded agent adds a run to it; print mode keeps the answer one block and traces the tool",
		async () => {
			await cloud.fake.seedAgents([
				{ id: "bc-55555555-5555-4555-8555-555555555555", repos: [{ url: REPO }], runs: [{ status: "FINISHED" }] },
			]);
			const result = await runCloudProbe(cloud.fake.url, [
				turn("[[full]] and the tests", { agentId: "bc-55555555-5555-4555-8555-555555555555", print: true }),
			]);
			const calls = (await cloud.fake.requests()).filter((e) => e.route === "create" || e.route === "followup");
			expect(calls.map((e) => `${e.method} ${e.path}`)).toEqual([
				"POST /v1/agents/bc-55555555-5555-4555-8555-555555555555/runs",
			]);
			expect(result.events.filter((e) => e.event === "journal-agent")).toEqual([]);
			expect(result.events.filter((e) => e.event === "trace").map((e) => e.line)).toEqual([
				"[cursor] shell: npm test → exit 0",
			]);
			const done = terminal(result.events, 0);
			expect(done.message.content.filter((c: { type: string }) => c.type === "text")).toEqual([
				{
					type: "text",
					text: "Fixed the login.\n\nCursor Cloud: branch cursor/fix-login · pull request https://github.com/acme/app/pull/7",
				},
			]);
			expect(journal().map((r) => r.type)).toEqual(["run", "result"]);
		},
		TIMEOUT_MS,
	);

	test(
		"Pi's abort cancels the run within a second and ends the turn aborted",
		async () => {
			const result = await runCloudProbe(cloud.fake.url, [turn("[[hang]] go", {}, { abortOnEvent: "text_delta" })]);
			const abort = result.one(0, "abort");
			const end = result.events.find((e) => e.event === "pi" && e.pi.type === "error");
			expect(end?.pi).toMatchObject({ type: "error", reason: "aborted", error: { stopReason: "aborted" } });
			expect((end?.at ?? Infinity) - abort.at).toBeLessThan(1000);
			const cancel = (await cloud.fake.requests()).find((e) => e.route === "cancel");
			expect(cancel).toBeDefined();
			expect((cancel?.at ?? Infinity) - abort.at).toBeLessThan(1000);
			const [agent] = await cloud.fake.agents();
			expect(agent?.runs[0]?.status).toBe("CANCELLED");
			expect(journal().at(-1)).toMatchObject({ type: "result", status: "aborted", runId: agent?.runs[0]?.id });
		},
		TIMEOUT_MS,
	);

	test(
		"a stream cut mid-run is resumed: the answer is complete and nothing appears twice",
		async () => {
			const result = await runCloudProbe(cloud.fake.url, [turn("[[cut]] go")]);
			const text = piEvents(result.events, 0)
				.filter((e) => e.type === "text_delta")
				.map((e) => e.delta);
			expect(text).toEqual(["one ", "two ", "three"]);
			expect(terminal(result.events, 0).type).toBe("done");
			const streams = (await cloud.fake.requests()).filter((e) => e.route === "stream");
			expect(streams.map((e) => e.lastEventId)).toEqual([undefined, "2"]);
		},
		TIMEOUT_MS,
	);

	test(
		"the answer is shown when the stream never delivered it; no usage without turn-ended",
		async () => {
			await cloud.fake.setFaults({ stream: { status: 502, times: 1 } });
			const result = await runCloudProbe(cloud.fake.url, [turn("[[no-usage]] go")]);
			const done = terminal(result.events, 0);
			expect(done.type).toBe("done");
			expect(done.message.content).toEqual([{ type: "text", text: "No usage here." }]);
			const streams = (await cloud.fake.requests()).filter((e) => e.route === "stream");
			expect(streams.map((e) => e.status)).toEqual([502]); // the run was over before the SDK reconnected
			expect(done.message.usage).toMatchObject({ input: 0, output: 0, totalTokens: 0 });
		},
		TIMEOUT_MS,
	);
});

describe("cloud bounds", () => {
	test(
		"a healthy run that is quiet for longer than the send bound is not ended",
		async () => {
			const result = await runCloudProbe(cloud.fake.url, [
				turn("[[quiet]] go", { bounds: { sendMs: 1000, runMs: 20_000 } }),
			]);
			const done = terminal(result.events, 0);
			expect(done.type).toBe("done");
			expect(done.message.content).toEqual([{ type: "text", text: "Started. Done after a quiet stretch." }]);
		},
		TIMEOUT_MS,
	);

	test(
		"a run past its bound is cancelled and the turn fails saying so; a send Cursor never answers fails as a network error",
		async () => {
			const result = await runCloudProbe(cloud.fake.url, [
				turn("[[hang]] go", { bounds: { sendMs: 5000, runMs: 1500 } }),
			]);
			expect(terminal(result.events, 0)).toMatchObject({
				type: "error",
				reason: "error",
				error: { errorMessage: expect.stringContaining("did not finish within 1500 ms; it was cancelled") },
			});
			expect((await cloud.fake.requests()).filter((e) => e.route === "cancel")).toHaveLength(1);

			await cloud.fake.setFaults({ create: { hang: true } });
			const stalled = await runCloudProbe(cloud.fake.url, [turn("hello", { bounds: { sendMs: 700, runMs: 20_000 } })]);
			expect(terminal(stalled.events, 0)).toMatchObject({
				type: "error",
				error: { errorMessage: expect.stringContaining("did not accept the request within 700 ms (network error)") },
			});
		},
		TIMEOUT_MS,
	);
});

describe("cloud faults", () => {
	const failedTurn = async (faults: Parameters<CloudFake["setFaults"]>[0], extra: Parameters<typeof turn>[1] = {}) => {
		await cloud.fake.setFaults(faults);
		const result = await runCloudProbe(cloud.fake.url, [turn("hello", extra)]);
		const end = terminal(result.events, 0);
		expect(end.type).toBe("error");
		expect(JSON.stringify(result.events)).not.toContain(PROBE_KEY);
		return end.error.errorMessage as string;
	};

	test(
		"401, 429 and 5xx are classified like local errors; the key appears nowhere",
		async () => {
			expect(await failedTurn({ create: { status: 401, message: "Invalid API key" } })).toStartWith(
				"Cursor rejected the API key: Invalid API key.",
			);
			expect(journal().map((r) => [r.type, r.status, r.runId])).toEqual([
				["agent", undefined, undefined],
				["result", "error", null],
			]);
			expect(await failedTurn({ create: { status: 429 } })).toStartWith("Cursor rate limit or quota reached");
			expect(await failedTurn({ create: { status: 503 } })).toContain("(network error)");
			expect(await failedTurn({ stream: { status: 401, message: "key revoked" } })).toStartWith(
				"Cursor rejected the API key",
			);
		},
		TIMEOUT_MS,
	);

	test(
		"a busy agent (409 agent_busy) says so",
		async () => {
			const busy = "bc-66666666-6666-4666-8666-666666666666";
			await cloud.fake.seedAgents([{ id: busy, runs: [{ status: "RUNNING" }] }]);
			const message = await failedTurn({}, { agentId: busy });
			expect(message).toContain("This Cursor Cloud agent is still busy with an earlier run");
			expect(
				(await cloud.fake.requests()).filter((e: RequestLogEntry) => e.route === "followup").map((e) => e.status),
			).toEqual([409]);
		},
		TIMEOUT_MS,
	);

	test(
		"a journal that cannot be written fails the turn before any request",
		async () => {
			writeFileSync(join(dir, "sessions"), "not a directory");
			const result = await runCloudProbe(cloud.fake.url, [turn("hello")]);
			const end = terminal(result.events, 0);
			expect(end.type).toBe("error");
			expect(end.error.errorMessage).toContain(
				"Could not record the Cursor Cloud agent in this session's cloud journal",
			);
			expect(end.error.errorMessage).toContain("nothing was sent");
			expect((await cloud.fake.requests()).filter((e) => e.route !== "exchange" && e.route !== "rpc")).toEqual([]);
		},
		TIMEOUT_MS,
	);
});

describe("/cursor-cloud against the cloud API", () => {
	test(
		"list shows the recorded agent with its status, branch and PR; archive and delete reach the API for recorded ids only, intent before result",
		async () => {
			const stranger = "bc-77777777-7777-4777-8777-777777777777";
			await cloud.fake.seedAgents([{ id: stranger }]);
			const manage = (args: string): CloudProbeStep => ({ op: "manage", journalPath: journalPath(), args });
			const result = await runCloudProbe(cloud.fake.url, [turn("[[full]] fix the login"), manage("list")]);
			const agentId = (await cloud.fake.agents()).find((a) => a.id !== stranger)?.id as string;
			const list = result.one(1, "manage").message as string;
			expect(list).toContain(`${agentId} · finished`);
			expect(list).toContain(`repository: ${REPO} (from main)`);
			expect(list).toContain("branch: cursor/fix-login");
			expect(list).toContain(`pull request: ${PR.prUrl}`);

			const before = (await cloud.fake.requests()).length;
			const managed = await runCloudProbe(cloud.fake.url, [
				manage(`archive ${stranger}`),
				manage(`delete ${agentId}`),
				manage(`archive ${agentId}`),
				manage(`delete ${agentId} --yes`),
				manage("list"),
			]);
			expect(managed.one(0, "manage")).toMatchObject({ ok: false });
			expect(managed.one(1, "manage").message).toContain(`/cursor-cloud delete ${agentId} --yes`);
			expect(managed.one(2, "manage")).toMatchObject({ ok: true, message: `${agentId} archived.` });
			expect(managed.one(3, "manage")).toMatchObject({ ok: true, message: `${agentId} deleted.` });
			expect(managed.one(4, "manage").message).toContain(`${agentId} · deleted`);
			const mutations = (await cloud.fake.requests())
				.slice(before)
				.filter((e) => e.route === "archive" || e.route === "delete")
				.map((e) => `${e.method} ${e.path}`);
			expect(mutations).toEqual([`POST /v1/agents/${agentId}/archive`, `DELETE /v1/agents/${agentId}`]);
			expect(
				journal()
					.slice(3)
					.map((r) => [r.type, r.op, r.outcome]),
			).toEqual([
				["intent", "archive", undefined],
				["mutation", "archive", "done"],
				["intent", "delete", undefined],
				["mutation", "delete", "done"],
			]);
			expect((await cloud.fake.agents()).map((a) => a.id)).toEqual([stranger]);
		},
		TIMEOUT_MS,
	);
});
