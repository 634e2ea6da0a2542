// Cursor's own tool work as Pi tool cards, end to end: the real `pi` CLI with the built bundle, the real SDK and the
// fake backend, which makes the SDK really run the shell and read calls in the test's workspace. One live Cursor run
// spans several Pi provider turns (assistant toolUse → Pi's replay tool results → the same run goes on).
import { expect } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Scenario } from "../support/fake-backend/client.ts";
import { leakedSecrets, type PiRecord, turnSuite, withOutput } from "../support/pi-turn.ts";
import type { RpcPi } from "../support/rpc.ts";

const MODEL = "cursor/composer-2.5";

const EDIT_DIFF = "--- a/notes.md\n+++ b/notes.md\n@@ -1 +1,2 @@\n hello notes\n+edited by cursor\n";

/** read → shell (appends a line) → edit → an MCP call → the final answer, in one run. */
const TOOL_TOUR: Scenario = {
	steps: [
		{ thinking: "Let me look around." },
		{ text: "Reading first. " },
		{ tool: { callId: "c-read", read: { path: "notes.md" } } },
		{ tool: { callId: "c-shell", shell: { command: "echo appended-once >> log.txt && echo shell-ok" } } },
		{ toolCallStarted: { callId: "c-edit", edit: { path: "notes.md" } } },
		{
			toolCallCompleted: {
				callId: "c-edit",
				edit: { path: "notes.md", result: { linesAdded: 1, linesRemoved: 0, diffString: EDIT_DIFF } },
			},
		},
		{
			toolCallStarted: {
				callId: "c-mcp",
				mcp: { toolName: "search_docs", providerIdentifier: "docs", args: { q: "x" } },
			},
		},
		{
			toolCallCompleted: {
				callId: "c-mcp",
				mcp: { toolName: "search_docs", providerIdentifier: "docs", args: { q: "x" }, result: { text: "found 3" } },
			},
		},
		{ text: "All done." },
		{ turnEnded: { inputTokens: 50, outputTokens: 9 } },
	],
};

/** A shell command that runs for a few seconds, its output reported as it comes (UI updates, as Cursor streams them). */
const SLOW_SHELL: Scenario = {
	steps: [
		{ toolCallStarted: { callId: "c-slow", shell: { command: "npm test" } } },
		{ delay: 1_500 },
		{ shellOutput: { stdout: "suite 1 ok\n" } },
		{ delay: 400 },
		{ shellOutput: { stdout: "suite 2 ok\n" } },
		{ delay: 400 },
		{
			toolCallCompleted: {
				callId: "c-slow",
				shell: { command: "npm test", result: { exitCode: 0, stdout: "suite 1 ok\nsuite 2 ok\n", stderr: "" } },
			},
		},
		{ text: "Tests pass." },
		{ turnEnded: { inputTokens: 20, outputTokens: 3 } },
	],
};

const suite = turnSuite({ scenarioMap: { "[[tour]]": TOOL_TOUR, "[[slow-shell]]": SLOW_SHELL } });

const toolStarts = (records: PiRecord[]) => records.filter((r) => r.type === "tool_execution_start");
const toolEnds = (records: PiRecord[]) => records.filter((r) => r.type === "tool_execution_end");
const resultText = (record: PiRecord) =>
	(record.result?.content ?? []).map((c: { text?: string }) => c.text ?? "").join("");

function workspace() {
	const home = suite.home();
	writeFileSync(join(home.dir, "notes.md"), "hello notes\n");
	return home;
}

// One RPC Pi for the turns whose subject is the turn (each test in a new Pi session): its events are the ones
// `--mode json` prints. Only this file's tour appends to its workspace's log.txt.
const shared = workspace();
const pi = suite.shared(["--no-session", "--model", MODEL], { home: shared });

/** Adds the Pi's records and stderr to an assertion failure. */
function withPiOutput(rpc: RpcPi, assertions: () => void): void {
	withOutput({ stdout: rpc.describe(), stderr: "" }, assertions);
}

/** `records` and Pi's stderr so far, as the text a secret must never appear in. */
const shownText = (rpc: RpcPi, records: PiRecord[]) => JSON.stringify(records) + rpc.stderr;

suite.test(
	"a long shell command's output appears on its bash card while it runs (JSON: tool_execution_update before its end)",
	() =>
		pi.use(async (rpc) => {
			const turn = await rpc.turn("[[slow-shell]] run tests", { timeoutMs: 60_000 });
			const records = turn.filter((r) => r.type?.startsWith("tool_execution_")) as PiRecord[];
			const shown = records.map((r) =>
				[r.type, ...(r.partialResult?.content ?? r.result?.content ?? []).map((c: { text?: string }) => c.text)].join(
					":",
				),
			);
			withPiOutput(rpc, () => {
				expect(turn.find((r) => r.type === "response")?.success).toBe(true);
				expect(records.every((r) => r.toolName === "bash")).toBe(true);
				expect(shown).toEqual([
					"tool_execution_start",
					"tool_execution_update:suite 1 ok",
					"tool_execution_update:suite 1 ok\nsuite 2 ok",
					"tool_execution_end:suite 1 ok\nsuite 2 ok\n\nExit code 0",
				]);
				expect(JSON.stringify(turn)).toContain("Tests pass.");
			});
		}),
);

suite.test(
	"JSON mode: read, bash, edit and an MCP call become Pi tool executions with Cursor's results, then the answer; one run",
	() =>
		pi.use(async (rpc) => {
			const records = (await rpc.turn("[[tour]] as json", { timeoutMs: 60_000 })) as PiRecord[];
			const ends = toolEnds(records);
			const args = toolStarts(records).map((r) => r.args);
			const assistants = records.filter((r) => r.type === "message_end" && r.message?.role === "assistant");
			const runs = (await suite.backend.runRequests()).filter((r) => r.text?.includes("[[tour]] as json"));
			withPiOutput(rpc, () => {
				expect(records.find((r) => r.type === "response")?.success).toBe(true);
				expect(ends.map((e) => e.toolName)).toEqual(["read", "bash", "cursor", "cursor"]);
				const [read, bash, edit, mcp] = ends;
				expect(args[0]).toEqual({ path: "notes.md" });
				expect(resultText(read as PiRecord)).toContain("hello notes");
				expect(args[1]).toEqual({ command: "echo appended-once >> log.txt && echo shell-ok" });
				expect(resultText(bash as PiRecord)).toContain("shell-ok");
				expect(args[2]?.activityTitle).toBe("Cursor edit");
				expect(resultText(edit as PiRecord)).toContain("+edited by cursor");
				expect(args[3]?.activityTitle).toBe("Cursor MCP");
				expect(resultText(mcp as PiRecord)).toContain("found 3");
				for (const end of ends) expect(end.isError).toBe(false);
				// Messages: text + read; bash; edit; mcp; the answer.
				expect(assistants.map((a) => a.message.stopReason)).toEqual([
					"toolUse",
					"toolUse",
					"toolUse",
					"toolUse",
					"stop",
				]);
				expect(assistants.at(-1)?.message.content).toContainEqual({ type: "text", text: "All done." });
				expect(assistants[0]?.message.content).toContainEqual({ type: "text", text: "Reading first. " });
				expect(runs).toHaveLength(1); // one Cursor run across all provider turns
				expect(readFileSync(join(shared.dir, "log.txt"), "utf8")).toBe("appended-once\n"); // never re-executed
				expect(leakedSecrets(shownText(rpc, records))).toEqual([]);
			});
		}),
);

suite.test("print mode: stdout is exactly the answer; stderr has one plain trace line per Cursor tool", async () => {
	const home = workspace();
	const result = await suite.run(["--model", MODEL, "-p", "[[tour]] tidy up quietly"], { home });
	const traces = result.stderr.split("\n").filter((line) => line.startsWith("[cursor]"));
	withOutput(result, () => {
		expect(result.code).toBe(0);
		expect(result.stdout).toBe("Reading first. All done.\n");
		expect(traces).toHaveLength(4);
		expect(traces.join("\n")).toContain("shell");
		for (const line of traces) {
			expect(line.length).toBeLessThanOrEqual(240);
			expect(line.includes("\u001b")).toBe(false); // no ANSI escapes
		}
		expect(readFileSync(join(home.dir, "log.txt"), "utf8")).toBe("appended-once\n");
		expect(leakedSecrets(result.stdout + result.stderr)).toEqual([]);
	});
});

suite.test(
	"RPC: abort after a tool batch, while the same run goes on: `aborted`, the run is cancelled, the next prompt works",
	() =>
		pi.use(async (rpc) => {
			// The first run reads, then keeps working silently; the next one gets the fake's default answer. (Queued,
			// not by a marker: the next run's prompt may carry the first one's text. The file's other runs have markers.)
			await suite.backend.enqueue({
				steps: [{ tool: { callId: "h-read", read: { path: "notes.md" } } }, { text: "still working" }, { hang: true }],
			});
			const from = rpc.mark();
			const { response } = await rpc.prompt("look", { timeoutMs: 60_000 });
			await rpc.waitFor((r) => r.type === "tool_execution_end" && r.toolName === "read", { from, timeoutMs: 60_000 });
			await rpc.waitFor(
				(r) => r.type === "message_update" && (r as PiRecord).assistantMessageEvent?.type === "text_delta",
				{ from },
			);
			const abortedAt = Date.now();
			const abort = rpc.write({ type: "abort" });
			await rpc.waitFor((r) => r.type === "agent_end", { from, timeoutMs: 10_000 });
			const abortMs = Date.now() - abortedAt;
			const runs = await suite.backend.waitForRuns(
				(all) => all.some((r) => r.selectedBy === "queue" && r.clientClosed),
				10_000,
			);
			await rpc.turn("and now?", { timeoutMs: 60_000 });
			const ends = (rpc.records.slice(from) as PiRecord[]).filter(
				(r) => r.type === "message_end" && r.message?.role === "assistant",
			);
			withPiOutput(rpc, () => {
				expect(response.success).toBe(true);
				expect(rpc.records.find((r) => r.type === "response" && r.id === abort)?.success).toBe(true);
				expect(abortMs).toBeLessThan(1_000);
				expect(ends.map((e) => e.message.stopReason)).toEqual(["toolUse", "aborted", "stop"]);
				expect(runs.find((r) => r.selectedBy === "queue")?.clientClosed).toBe(true);
				expect(ends.at(-1)?.message.content).toContainEqual({ type: "text", text: "Hello from fake backend" });
			});
		}),
);

suite.nothingLeftBehind();
