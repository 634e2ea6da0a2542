// The per-session usage journal: an append-only, private (0600) JSONL file beside Pi's session file, named after a
// hash of the stable Pi session id. Appends never fail a turn: a journal that cannot be written warns once. Reading
// skips malformed or torn lines, so a crash mid-write loses at most that one record.
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { appendJsonLine, type JsonLinesRead, readJsonLines } from "../fs/jsonl-file.ts";
import { type JournalRecord, parseRecord } from "./records.ts";

/** A journal larger than this takes no more records (and is read only up to this size). */
export const JOURNAL_CEILING_BYTES = 16 * 1024 * 1024;

/** A stable, non-reversible name part for a Pi session id. */
export function sessionDigest(sessionId: string): string {
	return createHash("sha256").update(sessionId).digest("hex").slice(0, 24);
}

export function journalFileName(sessionId: string): string {
	return `cursor-usage-${sessionDigest(sessionId)}.journal`;
}

export function journalPath(sessionDir: string, sessionId: string): string {
	return join(sessionDir, journalFileName(sessionId));
}

export type JournalRead = JsonLinesRead<JournalRecord>;

/** Reads a journal (never throws; symlinks are not followed). */
export function readJournal(path: string): JournalRead {
	return readJsonLines(path, JOURNAL_CEILING_BYTES, parseRecord);
}

/**
 * Appends one record. A torn last line (a crash mid-append) is closed with a newline first, so it stays one skipped
 * line instead of swallowing this record. Throws when the journal cannot be written or is full.
 */
export function appendRecord(path: string, record: JournalRecord, ceiling = JOURNAL_CEILING_BYTES): void {
	appendJsonLine(path, record, { ceiling });
}

const MAX_MEMORY_RECORDS = 10_000;

/** The journal of one Pi session. `path` undefined (a session without a file) keeps its records in memory only. */
export class UsageJournal {
	private warned = false;
	private readonly memory: JournalRecord[] = [];

	constructor(
		readonly path: string | undefined,
		private readonly warn: (message: string) => void,
	) {}

	append(record: JournalRecord): void {
		if (!this.path) {
			if (this.memory.length >= MAX_MEMORY_RECORDS) this.memory.shift();
			this.memory.push(record);
			return;
		}
		try {
			mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
			appendRecord(this.path, record);
		} catch (error) {
			if (this.warned) return;
			this.warned = true;
			const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
			this.warn(
				`Cursor usage journal ${this.path} could not be written (${reason}); /cursor-usage will miss later sends of this session. Replies are not affected.`,
			);
		}
	}

	read(): JournalRead {
		return this.path ? readJournal(this.path) : { records: [...this.memory], skippedLines: 0, missing: false };
	}
}
