// The usage journal and the session entries we write, read back from generated files and branches (torn lines,
// random bytes, huge lines, wrong types): readers never throw, skip exactly what is bad and keep everything good.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseJsonLines } from "../../src/fs/jsonl-file.ts";
import { RESUME_ENTRY_TYPE, resumeHandleOf } from "../../src/session/resume.ts";
import {
	FAST_ENTRY_TYPE,
	fastEntry,
	HTTP_ENTRY_TYPE,
	httpEntry,
	MODE_ENTRY_TYPE,
	modeEntry,
	restoreSessionState,
} from "../../src/settings/session-state.ts";
import { appendRecord, readJournal } from "../../src/usage/journal.ts";
import { LINEAGE_ENTRY_TYPE, recordedAgents } from "../../src/usage/lineage.ts";
import { billedRecordOf, type JournalRecord, parseRecord, sendRecordOf } from "../../src/usage/records.ts";
import { anyJson, fc, nastyString, PropertyTarget, wrongTyped } from "../support/property.ts";

const target = new PropertyTarget("journal-and-entries");
const dir = mkdtempSync(join(tmpdir(), "pi-cursor-journal-property-"));
afterAll(() => {
	target.report();
	rmSync(dir, { recursive: true, force: true });
});

const count = fc.nat({ max: 1_000_000 });
const time = fc.integer({ min: 1, max: 4_000_000_000_000 });
const id = fc.string({ minLength: 1, maxLength: 12 });

/** Records exactly as the ledger writes them (built by the same functions). */
const sendRecord: fc.Arbitrary<JournalRecord> = fc
	.record({
		agentId: id,
		runId: fc.option(id, { nil: undefined }),
		model: fc.record({
			id,
			params: fc.array(fc.record({ id, value: fc.string() }), { maxLength: 2 }),
		}),
		kind: fc.constantFrom("bootstrap", "incremental", "summary"),
		outcome: fc.constantFrom("finished", "error", "aborted"),
		rawUsage: fc.option(
			fc.record({ inputTokens: count, outputTokens: count, cacheReadTokens: count, cacheWriteTokens: count }),
			{ nil: undefined },
		),
		mappedUsage: fc.option(
			fc.record({
				input: count,
				output: count,
				cacheRead: count,
				cacheWrite: count,
				totalTokens: count,
				cost: fc.record({ input: count, output: count, cacheRead: count, cacheWrite: count, total: count }),
			}),
			{ nil: undefined },
		),
		error: fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
		startedAt: time,
		endedAt: time,
	})
	.map((send) => sendRecordOf("session-1", send as never));
const billedRecord: fc.Arbitrary<JournalRecord> = fc
	.record({
		agentId: id,
		at: time,
		usage: fc.record({ inputTokens: count, outputTokens: count, cacheReadTokens: count, cacheWriteTokens: count }),
		runs: fc.array(fc.record({ runId: id, usage: fc.record({ inputTokens: count, outputTokens: count }) }), {
			maxLength: 3,
		}),
	})
	.map((b) => billedRecordOf("session-1", b.agentId, b.at, { usage: b.usage, runs: b.runs }));
const record = fc.oneof(sendRecord, billedRecord);

const tryParse = (line: string): unknown => {
	try {
		return JSON.parse(line);
	} catch {
		return undefined;
	}
};
/** A line the reader must skip: garbage, a torn record, a record with a wrongly typed field, or a huge line. */
const badLine = fc
	.oneof(
		nastyString,
		fc.string({ unit: "binary", minLength: 1, maxLength: 60 }),
		fc.tuple(record, fc.nat()).map(([r, cut]) => {
			const line = JSON.stringify(r);
			return line.slice(0, 1 + (cut % (line.length - 1)));
		}),
		fc
			.tuple(
				record,
				fc.constantFrom("v", "type", "sessionId", "agentId", "startedAt", "at", "model", "status"),
				wrongTyped,
			)
			.map(([r, key, value]) => JSON.stringify({ ...r, [key]: value })),
		anyJson.map((v) => JSON.stringify(v)),
		fc.nat({ max: 3 }).map((n) => `{"v":1,"type":"send","error":"${"x".repeat(200_000 * (n + 1))}`),
	)
	.map((line) => line.replace(/[\n\r]/g, " "))
	.filter((line) => line.trim() !== "" && parseRecord(tryParse(line)) === undefined);

const roundTrip = (r: JournalRecord) => parseRecord(JSON.parse(JSON.stringify(r)));

test("journal text: every record we write reads back; every bad line is counted and skipped, nothing else", async () => {
	await target.check(
		fc.property(
			fc.array(
				fc.oneof(
					record.map((r) => ({ r })),
					badLine.map((bad) => ({ bad })),
				),
				{ maxLength: 12 },
			),
			fc.constantFrom("\n", "\r\n"),
			(lines, eol) => {
				const text = lines.map((l) => ("r" in l ? JSON.stringify(l.r) : l.bad)).join(eol);
				const parsed = parseJsonLines(text, parseRecord);
				const good = lines.flatMap((l) => ("r" in l ? [l.r] : []));
				expect(parsed.records).toEqual(good.map(roundTrip) as JournalRecord[]);
				expect(parsed.records).toEqual(good);
				expect(parsed.skippedLines).toBe(lines.length - good.length);
			},
		),
		800,
	);
});

test("journal files: any existing bytes, then an append: the old records stay, the new one reads back last", async () => {
	let n = 0;
	await target.check(
		fc.property(
			fc.array(
				fc.oneof(
					record.map((r) => JSON.stringify(r)),
					badLine,
				),
				{ maxLength: 6 },
			),
			fc.uint8Array({ maxLength: 80 }),
			fc.boolean(),
			record,
			(lines, bytes, endsWithNewline, appended) => {
				const path = join(dir, `journal-${n++ % 4}.journal`);
				const body = Buffer.concat([
					Buffer.from(lines.join("\n")),
					Buffer.from(bytes.filter((b) => b !== 0x0a)),
					Buffer.from(endsWithNewline ? "\n" : ""),
				]);
				writeFileSync(path, body);
				const before = readJournal(path);
				appendRecord(path, appended);
				const after = readJournal(path);
				expect(after.records).toEqual([...before.records, appended]);
				expect(after.skippedLines).toBe(before.skippedLines);
			},
		),
		500,
	);
});

/** Session branch entries: ours (valid or with wrong types), Pi's own, and junk. */
const modelKey = fc.oneof(fc.constantFrom("composer-2", "gpt-5.5@1m", "constructor", "__proto__"), fc.string());
const ourEntry = fc.oneof(
	fc.tuple(modelKey, fc.boolean()).map(([key, fast]) => fastEntry(key, fast)),
	fc.constantFrom("agent", "plan").map((mode) => modeEntry(mode as "agent" | "plan")),
	fc.constantFrom(true, false, null).map((v) => httpEntry(v)),
	fc
		.record({ agentId: id, storeDir: fc.string(), coverage: fc.record({ fingerprint: fc.string(), count: count }) })
		.map((data) => ({ customType: RESUME_ENTRY_TYPE, data })),
	fc.record({ sessionId: fc.constantFrom("session-1", "donor"), agentId: id }).map((data) => ({
		customType: LINEAGE_ENTRY_TYPE,
		data,
	})),
);
const branchEntry = fc.oneof(
	{ weight: 4, arbitrary: ourEntry.map((e) => ({ type: "custom", ...e })) },
	{
		weight: 2,
		arbitrary: fc
			.tuple(
				fc.constantFrom(FAST_ENTRY_TYPE, MODE_ENTRY_TYPE, HTTP_ENTRY_TYPE, RESUME_ENTRY_TYPE, LINEAGE_ENTRY_TYPE),
				fc.oneof(
					wrongTyped,
					fc.dictionary(fc.constantFrom("modelKey", "fast", "mode", "useHttp1", "agentId"), wrongTyped),
				),
			)
			.map(([customType, data]) => ({ type: "custom", customType, data })),
	},
	fc.constantFrom({ type: "message", message: { role: "user", content: "hi" } }, { type: "model_change" }),
	wrongTyped,
);

/** The reference reading of a branch: the last valid entry of each kind wins (fast per model key). */
function expectedState(entries: readonly unknown[]) {
	const fast: Record<string, boolean> = {};
	let mode: string | undefined;
	let useHttp1: boolean | null | undefined;
	for (const raw of entries) {
		const e = raw as { type?: unknown; customType?: unknown; data?: Record<string, unknown> } | null;
		if (e?.type !== "custom" || typeof e.data !== "object" || e.data === null || Array.isArray(e.data)) continue;
		const d = e.data;
		if (
			e.customType === FAST_ENTRY_TYPE &&
			typeof d.modelKey === "string" &&
			d.modelKey !== "" &&
			typeof d.fast === "boolean"
		) {
			Object.defineProperty(fast, d.modelKey, { value: d.fast, enumerable: true, configurable: true, writable: true });
		}
		if (e.customType === MODE_ENTRY_TYPE && (d.mode === "agent" || d.mode === "plan")) mode = d.mode;
		if (e.customType === HTTP_ENTRY_TYPE && (typeof d.useHttp1 === "boolean" || d.useHttp1 === null)) {
			useHttp1 = d.useHttp1;
		}
	}
	return { fast, mode, useHttp1 };
}

test("session entries: the last valid entry of each kind wins, anything malformed is ignored, nothing throws", async () => {
	await target.check(
		fc.property(fc.array(branchEntry, { maxLength: 15 }), (branch) => {
			const stored = JSON.parse(JSON.stringify(branch, (_k, v) => (v === undefined ? null : v))) as unknown[];
			const state = restoreSessionState(stored);
			const expected = expectedState(stored);
			expect({ ...state.fast }).toEqual({ ...expected.fast });
			expect(state.mode).toBe(expected.mode as never);
			expect(state.useHttp1).toBe(expected.useHttp1 as never);

			const handle = resumeHandleOf(stored, stored);
			if (handle) {
				expect(typeof handle.agentId).toBe("string");
				expect(typeof handle.storeDir).toBe("string");
				expect(typeof handle.coverage.fingerprint).toBe("string");
			}
			for (const agent of recordedAgents(stored, "session-1")) expect(typeof agent).toBe("string");
		}),
		1500,
	);
});
