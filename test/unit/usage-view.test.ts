import { expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseUsageCommand } from "../../src/usage/command.ts";
import { writeExport } from "../../src/usage/export.ts";
import { readInheritedHistory, type SessionHeaderFacts } from "../../src/usage/inherited.ts";
import { appendRecord, journalPath } from "../../src/usage/journal.ts";
import {
	billedRecordOf,
	type JournalRecord,
	parseRecord,
	type SendRecord,
	unavailableRecord,
} from "../../src/usage/records.ts";
import { REFRESH_AGENT_LIMIT, takeSnapshots } from "../../src/usage/refresh.ts";
import {
	agentsToRefresh,
	buildUsageView,
	exportDocument,
	renderUsageView,
	type UsageSource,
} from "../../src/usage/view.ts";
import { tempDirs } from "../support/temp-dirs.ts";

const tempDir = tempDirs("pi-cursor-usage-");

const T0 = Date.parse("2026-11-02T10:00:00Z");

function send(
	agentId: string,
	i: number,
	raw: [number, number, number, number] | null,
	outcome: SendRecord["outcome"] = "finished",
	model = "composer-2",
	sessionId = "s1",
): SendRecord {
	const [inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens] = raw ?? [0, 0, 0, 0];
	return {
		v: 1,
		type: "send",
		sessionId,
		agentId,
		runId: `run-${i}`,
		model: { id: model },
		kind: "incremental",
		outcome,
		raw: raw ? { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } : null,
		mapped: raw
			? {
					input: inputTokens - cacheReadTokens - cacheWriteTokens,
					output: outputTokens,
					cacheRead: cacheReadTokens,
					cacheWrite: cacheWriteTokens,
					totalTokens: inputTokens + outputTokens,
					cost: 0,
				}
			: null,
		startedAt: T0 + i * 1000,
		endedAt: T0 + i * 1000 + 500,
	};
}

function source(records: JournalRecord[], extra: Partial<UsageSource> = {}): UsageSource {
	return { sessionId: "s1", journal: "/sessions/j.journal", records, skippedLines: 0, inherited: [], ...extra };
}

test("the view totals sends by agent and model, raw and mapped, with outcomes", () => {
	const records = [
		send("agent-a", 1, [4232, 3, 4096, 0]),
		send("agent-a", 2, [5000, 250, 1200, 800], "finished", "gpt-5.5"),
		send("agent-b", 3, null, "error"),
		send("agent-b", 4, [10, 1, 0, 0], "aborted"),
		send("agent-x", 5, [1, 1, 0, 0], "finished", "composer-2", "another-session"),
	];
	const view = buildUsageView(source(records));
	expect(view.totals).toMatchObject({ sends: 4, finished: 2, errors: 1, aborted: 1, withoutUsage: 1 });
	expect(view.totals.raw).toEqual({ input: 9242, output: 254, cacheRead: 5296, cacheWrite: 800, reasoning: 0 });
	expect(view.totals.mapped).toMatchObject({ input: 3146, total: 9496 });
	expect(view.agents.map((a) => [a.agentId, a.totals.sends, a.models])).toEqual([
		["agent-a", 2, ["composer-2", "gpt-5.5"]],
		["agent-b", 2, ["composer-2"]],
	]);
	expect(view.models.map((m) => [m.model, m.totals.sends])).toEqual([
		["composer-2", 3],
		["gpt-5.5", 1],
	]);
	const text = renderUsageView(view);
	expect(text).toContain("4 sends on 2 agents: 2 finished, 1 failed, 1 aborted, 1 without reported usage");
	expect(text).toContain(
		"#1 2026-11-02 10:00:01 composer-2 finished: raw input 4232 (cache read 4096, cache write 0) · output 3 → mapped input 136 · cache read 4096 · cache write 0 · output 3 · total 4235",
	);
	expect(text).toContain("#3 2026-11-02 10:00:03 composer-2 error: usage not reported");
	expect(text).not.toContain("agent-x");
	expect(text).toContain("billed: not requested yet");
});

test("a send that failed before Cursor gave it an agent is listed with its error class, under no agent", () => {
	const failed: SendRecord = {
		...send("unused", 1, null, "error"),
		agentId: null,
		runId: null,
		kind: "bootstrap",
		error: "Cursor could not be reached (network error): 127.0.0.1:9 refused the connection (ECONNREFUSED).",
		errorKind: "network",
	};
	const dir = tempDir();
	const path = journalPath(dir, "s1");
	appendRecord(path, failed);
	appendRecord(path, send("agent-a", 2, [10, 1, 0, 0]));
	const read = readFileSync(path, "utf8").trim().split("\n");
	const view = buildUsageView(source(read.map((line) => parseRecord(JSON.parse(line))).filter((r) => r !== undefined)));
	expect(view.totals).toMatchObject({ sends: 2, finished: 1, errors: 1, withoutUsage: 1 });
	expect(view.agents.map((a) => a.agentId)).toEqual(["agent-a"]);
	expect(agentsToRefresh(view.sends, "s1", REFRESH_AGENT_LIMIT)).toEqual(["agent-a"]);
	const text = renderUsageView(view);
	expect(text).toContain("2 sends on 1 agent: 1 finished, 1 failed, 1 without reported usage");
	expect(text).toContain("#1 2026-11-02 10:00:01 composer-2 error (network, no agent): usage not reported");
	expect(text).toContain("agent-a (composer-2): 1 send, 1 finished");
	const alone = renderUsageView(buildUsageView(source([failed])));
	expect(alone).toContain("1 send: 0 finished, 1 failed");
	expect(alone).not.toContain("By agent:");
});

test("billed: the newest successful snapshot wins; unavailable shows only without one", () => {
	const ok = billedRecordOf("s1", "agent-a", T0 + 10_000, {
		usage: { inputTokens: 9, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, totalTokens: 10 },
		cost: { rawCostCents: 1.5, chargedCents: 0.5 },
		runs: [],
	});
	const later = unavailableRecord("s1", "agent-a", T0 + 20_000, "Cursor connection failed");
	const onlyFailed = unavailableRecord("s1", "agent-b", T0 + 20_000, "no answer within 5 s");
	const view = buildUsageView(
		source([send("agent-a", 1, [9, 1, 0, 0]), send("agent-b", 2, [1, 1, 0, 0]), ok, later, onlyFailed]),
	);
	expect(view.agents.find((a) => a.agentId === "agent-a")?.billed).toEqual(ok);
	const text = renderUsageView(view);
	expect(text).toContain(
		"billed: 10 tokens (input 9, cache read 0, cache write 0, output 1) · cost $0.0150, charged $0.0050",
	);
	expect(text).toContain("pending settlement");
	expect(text).toContain("billed: unavailable at 2026-11-02 10:00:20 (no answer within 5 s)");
});

test("an empty session, skipped lines, a read error and inherited history are all stated", () => {
	const text = renderUsageView(
		buildUsageView(
			source([], {
				journal: undefined,
				skippedLines: 2,
				inherited: [
					{
						donorSessionId: "donor-1",
						journal: "/d/j",
						records: [send("agent-d", 1, [5, 5, 0, 0], "finished", "composer-2", "donor-1")],
						skippedLines: 0,
					},
					{
						donorSessionId: "unknown",
						journal: "/d2",
						records: [],
						skippedLines: 0,
						unavailable: "the donor session file could not be read",
					},
				],
			}),
		),
	);
	expect(text).toContain("No Cursor sends recorded in this session yet.");
	expect(text).toContain("in memory only");
	expect(text).toContain("2 unreadable journal line(s) skipped");
	expect(text).toContain(
		"Inherited from session donor-1 (its sends until this session was forked from it; counted there, not here): 1 send on 1 agent",
	);
	expect(text).toContain("Inherited from session unknown: unavailable (the donor session file could not be read)");
});

test("refresh asks about this session's agents, most recent first, at most 32", () => {
	const records = Array.from({ length: 40 }, (_, i) => send(`agent-${i}`, i, [1, 1, 0, 0]));
	records.push(send("foreign", 99, [1, 1, 0, 0], "finished", "m", "other"));
	const agents = agentsToRefresh(records, "s1", REFRESH_AGENT_LIMIT);
	expect(agents).toHaveLength(32);
	expect(agents[0]).toBe("agent-39");
	expect(agents).not.toContain("foreign");
});

test("snapshots are bounded: a slow or failing agent becomes unavailable, scrubbed", async () => {
	const key = "key_secret_refresh_1234";
	const records = await takeSnapshots(["fast", "slow", "broken"], {
		sessionId: "s1",
		apiKey: key,
		timeoutMs: 50,
		now: () => T0,
		getUsage: async (agentId) => {
			if (agentId === "slow") return new Promise(() => {});
			if (agentId === "broken") throw new Error(`HTTP 500 for ${key}`);
			return { usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, totalTokens: 3 } };
		},
	});
	expect(records.map((r) => [r.agentId, r.status])).toEqual([
		["fast", "ok"],
		["slow", "unavailable"],
		["broken", "unavailable"],
	]);
	expect(records[1]?.error).toContain("no answer within");
	expect(JSON.stringify(records)).not.toContain(key);
});

test("export: a new 0600 JSON file with this session's records; an existing file is refused", () => {
	const dir = tempDir();
	const doc = exportDocument(
		source([send("agent-a", 1, [10, 1, 0, 0]), send("x", 2, [1, 1, 0, 0], "finished", "m", "other")]),
		T0,
	);
	expect(doc.records).toHaveLength(1);
	const result = writeExport("out.json", dir, doc);
	expect(result).toEqual({ ok: true, path: join(dir, "out.json") });
	expect(statSync(join(dir, "out.json")).mode & 0o777).toBe(0o600);
	expect(JSON.parse(readFileSync(join(dir, "out.json"), "utf8"))).toMatchObject({
		format: "pi-cursor-sdk-usage",
		sessionId: "s1",
	});
	const again = writeExport(join(dir, "out.json"), "/", { other: true });
	expect(again.ok).toBe(false);
	expect(again.ok ? "" : again.message).toContain("already exists");
	expect(JSON.parse(readFileSync(join(dir, "out.json"), "utf8")).format).toBe("pi-cursor-sdk-usage");
	expect(writeExport(join(dir, "missing-dir", "x.json"), dir, {}).ok).toBe(false);
});

test("command arguments: view, refresh, export <path with spaces>, help aliases, invalid", () => {
	expect(parseUsageCommand("")).toEqual({ kind: "view" });
	expect(parseUsageCommand(" refresh ")).toEqual({ kind: "refresh" });
	expect(parseUsageCommand("export my usage.json")).toEqual({ kind: "export", path: "my usage.json" });
	expect(parseUsageCommand("export").kind).toBe("invalid");
	for (const help of ["help", "-h", "--help"]) expect(parseUsageCommand(help)).toEqual({ kind: "help" });
	const bad = parseUsageCommand("refesh");
	expect(bad.kind === "invalid" && bad.message).toContain('Unknown /cursor-usage argument "refesh"');
});

test("forks read their donors' journals up to the fork, never other sessions' records", () => {
	const dir = tempDir();
	const donorFile = join(dir, "donor.jsonl");
	const grandFile = join(dir, "grand.jsonl");
	writeFileSync(
		grandFile,
		`${JSON.stringify({ type: "session", id: "grand", timestamp: new Date(T0 + 2500).toISOString() })}\n`,
	);
	writeFileSync(
		donorFile,
		`${JSON.stringify({ type: "session", id: "donor", timestamp: new Date(T0 + 5000).toISOString(), parentSession: grandFile })}\n`,
	);
	appendRecord(journalPath(dir, "grand"), send("agent-g", 1, [1, 1, 0, 0], "finished", "m", "grand"));
	appendRecord(journalPath(dir, "grand"), send("agent-g", 7, [1, 1, 0, 0], "finished", "m", "grand")); // after the donor was forked
	appendRecord(journalPath(dir, "donor"), send("agent-d", 6, [2, 2, 0, 0], "finished", "m", "donor"));
	appendRecord(journalPath(dir, "donor"), send("agent-d", 9, [2, 2, 0, 0], "finished", "m", "donor")); // after the fork
	const own: SessionHeaderFacts = {
		id: "child",
		timestamp: new Date(T0 + 8000).toISOString(),
		parentSession: donorFile,
	};
	const history = readInheritedHistory(own);
	expect(history.map((h) => [h.donorSessionId, h.records.map((r) => (r as SendRecord).runId)])).toEqual([
		["donor", ["run-6"]],
		["grand", ["run-1"]],
	]);
	const missing = readInheritedHistory({ id: "c", timestamp: undefined, parentSession: join(dir, "gone.jsonl") });
	expect(missing[0]?.unavailable).toBeDefined();
});
