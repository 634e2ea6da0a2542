import { expect, test } from "bun:test";
import { appendFileSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { appendRecord, journalPath, readJournal, UsageJournal } from "../../src/usage/journal.ts";
import {
	type BilledRecord,
	billedRecordOf,
	MAX_BILLED_RUNS,
	type SendRecord,
	sendRecordOf,
} from "../../src/usage/records.ts";
import { tempDirs } from "../support/temp-dirs.ts";

const tempDir = tempDirs("pi-cursor-journal-");

const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0) => ({
	input: input - cacheRead - cacheWrite,
	output,
	cacheRead,
	cacheWrite,
	totalTokens: input + output,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});

function send(i: number, overrides: Partial<Parameters<typeof sendRecordOf>[1]> = {}): SendRecord {
	return sendRecordOf("session-1", {
		agentId: "agent-a",
		runId: `run-${i}`,
		model: { id: "composer-2", params: [{ id: "fast", value: "true" }] },
		kind: "incremental",
		startedAt: 1_700_000_000_000 + i * 1000,
		endedAt: 1_700_000_000_500 + i * 1000,
		outcome: "finished",
		rawUsage: { inputTokens: 100, outputTokens: 5, cacheReadTokens: 80, cacheWriteTokens: 0 },
		mappedUsage: usage(100, 5, 80),
		...overrides,
	});
}

test("records round-trip through a private (0600) journal beside the session file", () => {
	const dir = tempDir();
	const path = journalPath(dir, "session-1");
	expect(path.startsWith(dir)).toBe(true);
	expect(path).toMatch(/cursor-usage-[0-9a-f]{24}\.journal$/);
	expect(path).not.toContain("session-1");
	appendRecord(path, send(1));
	appendRecord(path, send(2));
	expect(statSync(path).mode & 0o777).toBe(0o600);
	const read = readJournal(path);
	expect(read.skippedLines).toBe(0);
	expect(read.records).toEqual([send(1), send(2)]);
});

test("a send record holds ids, selection, usage, outcome and times: nothing else", () => {
	const record = send(1, { error: "Cursor error: boom" });
	expect(Object.keys(record).sort()).toEqual(
		[
			"agentId",
			"endedAt",
			"error",
			"kind",
			"mapped",
			"model",
			"outcome",
			"raw",
			"runId",
			"sessionId",
			"startedAt",
			"type",
			"v",
		].sort(),
	);
	expect(record.raw).toEqual({ inputTokens: 100, outputTokens: 5, cacheReadTokens: 80, cacheWriteTokens: 0 });
	expect(record.mapped).toEqual({ input: 20, output: 5, cacheRead: 80, cacheWrite: 0, totalTokens: 105, cost: 0 });
});

test("a send without usage records none", () => {
	const none = send(2, { rawUsage: undefined, mappedUsage: undefined, outcome: "error" });
	expect(none.raw).toBeNull();
	expect(none.mapped).toBeNull();
});

test("torn and malformed lines are skipped; the next append starts on a line of its own", () => {
	const dir = tempDir();
	const path = journalPath(dir, "session-1");
	appendRecord(path, send(1));
	appendFileSync(path, 'not json\n{"v":1,"type":"send"}\n');
	appendFileSync(path, '{"v":1,"type":"send","sessionId":"ses'); // a crash mid-append
	expect(readJournal(path)).toMatchObject({ records: [send(1)], skippedLines: 3 });
	appendRecord(path, send(2));
	const read = readJournal(path);
	expect(read.records).toEqual([send(1), send(2)]);
	expect(read.skippedLines).toBe(3);
});

test("a missing journal reads as empty; a symlinked one is not followed", () => {
	const dir = tempDir();
	expect(readJournal(join(dir, "none.journal"))).toMatchObject({ records: [], missing: true });
	const target = join(dir, "elsewhere");
	writeFileSync(target, "");
	const link = join(dir, "link.journal");
	symlinkSync(target, link);
	expect(() => appendRecord(link, send(1))).toThrow();
	expect(readFileSync(target, "utf8")).toBe("");
	expect(readJournal(link).error).toBeDefined();
});

test("the ceiling refuses appends; the journal warns once and never throws", () => {
	const dir = tempDir();
	const path = journalPath(dir, "session-1");
	expect(() => appendRecord(path, send(1), 200)).toThrow(/ceiling/);
	const warnings: string[] = [];
	writeFileSync(join(dir, "blocker"), "");
	const blocked = new UsageJournal(join(dir, "blocker", "journal"), (m) => warnings.push(m));
	blocked.append(send(1));
	blocked.append(send(2));
	expect(warnings).toHaveLength(1);
	expect(warnings[0]).toContain("could not be written");
	expect(warnings[0]).toContain("Replies are not affected");
});

test("a session without a file keeps its records in memory", () => {
	const journal = new UsageJournal(undefined, () => {});
	journal.append(send(1));
	expect(journal.read()).toMatchObject({ records: [send(1)], skippedLines: 0 });
});

test("billed snapshots keep totals and cost and at most the first rows", () => {
	const runs = Array.from({ length: MAX_BILLED_RUNS + 10 }, (_, i) => ({
		id: `u-${i}`,
		usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, totalTokens: 2 },
	}));
	const record = billedRecordOf("session-1", "agent-a", 1_700_000_000_000, {
		usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2, cacheWriteTokens: 1, totalTokens: 18 },
		cost: { rawCostCents: 0.5, chargedCents: 0.25 },
		runs,
	});
	expect(record).toMatchObject({ status: "ok", runCount: MAX_BILLED_RUNS + 10, cost: { rawCostCents: 0.5 } });
	expect(record.runs).toHaveLength(MAX_BILLED_RUNS);
	const dir = tempDir();
	const path = journalPath(dir, "session-1");
	appendRecord(path, record);
	expect((readJournal(path).records[0] as BilledRecord).runCount).toBe(MAX_BILLED_RUNS + 10);
	expect(billedRecordOf("s", "a", 1, { nothing: true })).toMatchObject({ status: "unavailable" });
});
