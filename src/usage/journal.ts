// The per-session usage journal: an append-only, private (0600) JSONL file beside Pi's session file, named after a
// hash of the stable Pi session id. Appends never fail a turn: a journal that cannot be written warns once. Reading
// skips malformed or torn lines, so a crash mid-write loses at most that one record.
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, mkdirSync, openSync, readSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
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

export interface JournalRead {
	records: JournalRecord[];
	/** Lines that were not valid records (a torn tail after a crash, or foreign text). */
	skippedLines: number;
	/** The file does not exist (yet). */
	missing: boolean;
	/** Why the file could not be read at all. */
	error?: string;
	/** The file is over the ceiling: only its first {@link JOURNAL_CEILING_BYTES} were read. */
	truncated?: boolean;
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** Parses journal text: one JSON record per line; malformed and partial lines are counted and skipped. */
export function parseJournal(text: string): { records: JournalRecord[]; skippedLines: number } {
	const records: JournalRecord[] = [];
	let skippedLines = 0;
	for (const line of text.split("\n")) {
		if (line.trim() === "") continue;
		let record: JournalRecord | undefined;
		try {
			record = parseRecord(JSON.parse(line));
		} catch {
			record = undefined;
		}
		if (record) records.push(record);
		else skippedLines++;
	}
	return { records, skippedLines };
}

/** Reads a journal (never throws; symlinks are not followed). */
export function readJournal(path: string): JournalRead {
	let fd: number;
	try {
		fd = openSync(path, constants.O_RDONLY | NOFOLLOW);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT") return { records: [], skippedLines: 0, missing: true };
		return { records: [], skippedLines: 0, missing: false, error: code ?? String(error) };
	}
	try {
		const stat = fstatSync(fd);
		if (!stat.isFile()) return { records: [], skippedLines: 0, missing: false, error: "not a regular file" };
		const size = Math.min(stat.size, JOURNAL_CEILING_BYTES);
		const buffer = Buffer.alloc(size);
		let offset = 0;
		while (offset < size) {
			const read = readSync(fd, buffer, offset, size - offset, offset);
			if (read === 0) break;
			offset += read;
		}
		const parsed = parseJournal(buffer.subarray(0, offset).toString("utf8"));
		return { ...parsed, missing: false, ...(stat.size > JOURNAL_CEILING_BYTES ? { truncated: true } : {}) };
	} catch (error) {
		return { records: [], skippedLines: 0, missing: false, error: (error as Error).message };
	} finally {
		closeSync(fd);
	}
}

/** Whether the last byte of an open file is a newline (an empty file counts as ending cleanly). */
function endsWithNewline(fd: number, size: number): boolean {
	if (size === 0) return true;
	const last = Buffer.alloc(1);
	readSync(fd, last, 0, 1, size - 1);
	return last[0] === 0x0a;
}

/**
 * Appends one record. A torn last line (a crash mid-append) is closed with a newline first, so it stays one skipped
 * line instead of swallowing this record. Throws when the journal cannot be written or is full.
 */
export function appendRecord(path: string, record: JournalRecord, ceiling = JOURNAL_CEILING_BYTES): void {
	const fd = openSync(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | NOFOLLOW, 0o600);
	try {
		const stat = fstatSync(fd);
		if (!stat.isFile()) throw new Error("not a regular file");
		const line = `${endsWithNewline(fd, stat.size) ? "" : "\n"}${JSON.stringify(record)}\n`;
		if (stat.size + Buffer.byteLength(line) > ceiling) {
			throw new Error(`the journal reached its ${Math.round(ceiling / 1024 / 1024)} MiB ceiling`);
		}
		writeSync(fd, line);
	} finally {
		closeSync(fd);
	}
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
