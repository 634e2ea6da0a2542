import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, chmodSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { CloudJournal, cloudJournalPath } from "../../src/cloud/journal.ts";
import { type CloudRecord, parseCloudRecord, recordedAgents, resumableAgent } from "../../src/cloud/records.ts";

const A = "bc-aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const B = "bc-bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
const REPO = "https://github.com/acme/app";

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function journal(): CloudJournal {
	const dir = mkdtempSync(join(tmpdir(), "cloud-journal-"));
	dirs.push(dir);
	return new CloudJournal(cloudJournalPath(join(dir, "sessions"), "session-1"));
}

describe("the cloud journal file", () => {
	test("beside the session file, named after the session id (not containing it), private, one JSON line per record", () => {
		const j = journal();
		expect(j.path).toMatch(/sessions\/cursor-cloud-[0-9a-f]{24}\.journal$/);
		expect(j.path).not.toContain("session-1");
		j.record({ type: "agent", agentId: A, model: "composer-2", repo: REPO, branch: "leaf-1" });
		j.record({ type: "run", agentId: A, runId: "run-1" });
		expect(statSync(j.path).mode & 0o777).toBe(0o600);
		const lines = readFileSync(j.path, "utf8").trimEnd().split("\n");
		expect(lines.map((line) => JSON.parse(line))).toEqual([
			{ v: 1, at: expect.any(Number), type: "agent", agentId: A, model: "composer-2", repo: REPO, branch: "leaf-1" },
			{ v: 1, at: expect.any(Number), type: "run", agentId: A, runId: "run-1" },
		]);
		expect(j.read()).toMatchObject({ skippedLines: 0, missing: false, records: [{ type: "agent" }, { type: "run" }] });
	});

	test("a torn last line is skipped and the next record starts on its own line", () => {
		const j = journal();
		j.record({ type: "agent", agentId: A, model: "m", repo: null });
		appendFileSync(j.path, '{"v":1,"at":1,"type":"run","agentId":"bc-aaaaaaaa-aaaa-4aaa-8a');
		j.record({ type: "run", agentId: A, runId: "run-2" });
		const read = j.read();
		expect(read.skippedLines).toBe(1);
		expect(read.records.map((r) => r.type)).toEqual(["agent", "run"]);
		expect(readFileSync(j.path, "utf8").endsWith("\n")).toBe(true);
	});

	test("a symlink is refused for writing and reading; a missing file reads as missing", () => {
		const j = journal();
		expect(j.read()).toMatchObject({ missing: true, records: [] });
		j.record({ type: "agent", agentId: A, model: "m", repo: null });
		const link = join(j.path, "..", "link.journal");
		symlinkSync(j.path, link);
		const linked = new CloudJournal(link);
		expect(() => linked.record({ type: "run", agentId: A, runId: "r" })).toThrow();
		expect(linked.read().error).toBeDefined();
		expect(j.read().records).toHaveLength(1);
	});

	test("an existing file readable by others is made private again on the next record", () => {
		const j = journal();
		j.record({ type: "agent", agentId: A, model: "m", repo: null });
		chmodSync(j.path, 0o644);
		j.record({ type: "run", agentId: A, runId: "r" });
		expect(statSync(j.path).mode & 0o777).toBe(0o600);
	});

	test("lines that are not records (foreign JSON, bad ids, wrong types) are skipped, never thrown", () => {
		const values = fc.oneof(
			fc.jsonValue(),
			fc.record({ v: fc.constant(1), at: fc.integer(), type: fc.string(), agentId: fc.string() }),
			fc.record({
				v: fc.constant(1),
				at: fc.integer(),
				type: fc.constantFrom("agent", "run", "result", "intent", "mutation"),
				agentId: fc.oneof(fc.constant(A), fc.string()),
				runId: fc.oneof(fc.string(), fc.constant(null), fc.integer()),
				model: fc.oneof(fc.string(), fc.integer()),
				repo: fc.oneof(fc.string(), fc.constant(null)),
				status: fc.string(),
				op: fc.string(),
				intentId: fc.string(),
				outcome: fc.string(),
			}),
		);
		fc.assert(
			fc.property(values, (value) => {
				const record = parseCloudRecord(value);
				if (record === undefined) return;
				expect(record.agentId).toMatch(/^bc-/);
				expect(recordedAgents([record]).length).toBeLessThanOrEqual(1);
			}),
		);
	});
});

const at = (n: number) => ({ v: 1 as const, at: n });

describe("what the records add up to", () => {
	const records: CloudRecord[] = [
		{ ...at(1), type: "agent", agentId: A, model: "composer-2", repo: REPO, startingRef: "main", branch: "b1" },
		{ ...at(2), type: "run", agentId: A, runId: "run-1" },
		{
			...at(3),
			type: "result",
			agentId: A,
			runId: "run-1",
			status: "finished",
			git: [{ repoUrl: REPO, branch: "cursor/x", prUrl: `${REPO}/pull/1` }],
		},
		{ ...at(4), type: "agent", agentId: B, model: "gpt-5", repo: null, branch: "b1" },
		{ ...at(5), type: "result", agentId: B, runId: null, status: "error", error: "Cursor rejected the API key" },
		{ ...at(6), type: "run", agentId: "bc-cccccccc-cccc-4ccc-8ccc-cccccccccccc", runId: "run-x" },
		{ ...at(7), type: "run", agentId: A, runId: "run-2" },
		{ ...at(8), type: "result", agentId: A, runId: "run-2", status: "aborted" },
	];

	test("per agent: its runs, the latest result, the latest branch/PR; records of unknown agents are ignored", () => {
		const agents = recordedAgents(records);
		expect(agents.map((a) => a.agentId)).toEqual([A, B]);
		expect(agents[0]).toMatchObject({
			runIds: ["run-1", "run-2"],
			lastResult: { status: "aborted" },
			git: [{ branch: "cursor/x", prUrl: `${REPO}/pull/1` }],
			startingRef: "main",
			createdAt: 1,
			archived: false,
			deleted: false,
			unresolved: [],
		});
		expect(agents[1]).toMatchObject({ runIds: [], lastResult: { status: "error" } });
	});

	test("a turn continues the branch's latest agent whose first send reached Cursor", () => {
		expect(resumableAgent(records, [A, B])).toBe(A); // B never got a run
		expect(resumableAgent(records, [B, A])).toBe(A);
		expect(resumableAgent(records, [B])).toBeUndefined();
		expect(resumableAgent(records, [])).toBeUndefined(); // another branch: a new agent
	});

	test("archive/delete: an intent without an outcome is unresolved; a done delete or archive ends resuming", () => {
		const intent = (n: number, op: "archive" | "delete", id: string): CloudRecord => ({
			...at(n),
			type: "intent",
			op,
			agentId: A,
			intentId: id,
		});
		const pending = [...records, intent(9, "archive", "i1")];
		expect(recordedAgents(pending)[0]?.unresolved).toMatchObject([{ type: "intent", op: "archive", intentId: "i1" }]);
		expect(resumableAgent(pending, [A])).toBeUndefined();
		const rejected: CloudRecord[] = [
			...pending,
			{ ...at(10), type: "mutation", op: "archive", agentId: A, intentId: "i1", outcome: "rejected", error: "no" },
		];
		expect(recordedAgents(rejected)[0]).toMatchObject({ unresolved: [], archived: false });
		expect(resumableAgent(rejected, [A])).toBe(A);
		const deleted: CloudRecord[] = [
			...rejected,
			intent(11, "delete", "i2"),
			{ ...at(12), type: "mutation", op: "delete", agentId: A, intentId: "i2", outcome: "done" },
		];
		expect(recordedAgents(deleted)[0]).toMatchObject({ unresolved: [], deleted: true });
		expect(resumableAgent(deleted, [A])).toBeUndefined();
	});
});
