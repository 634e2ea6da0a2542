// Forks and clones start a new Pi session (new id, new journal) whose header names the donor session file. The
// donor's journal is read as inherited history, limited to what it held when the fork was made; it is never written.
import { closeSync, constants, openSync, readSync } from "node:fs";
import { dirname } from "node:path";
import { journalPath, readJournal } from "./journal.ts";
import type { JournalRecord } from "./records.ts";

/** How many donor generations are followed (a fork of a fork of …). */
const MAX_GENERATIONS = 8;
const HEADER_BYTES = 64 * 1024;

export interface SessionHeaderFacts {
	id: string;
	/** ISO time the session was created (for a fork: when it was forked). */
	timestamp: string | undefined;
	parentSession: string | undefined;
}

export interface InheritedHistory {
	donorSessionId: string;
	journal: string;
	records: JournalRecord[];
	skippedLines: number;
	/** The donor's session file or journal could not be read. */
	unavailable?: string;
}

/** The header fields we need from a parsed session header object. */
export function headerFacts(header: unknown): SessionHeaderFacts | undefined {
	const h = header as { type?: unknown; id?: unknown; timestamp?: unknown; parentSession?: unknown } | null;
	if (!h || typeof h.id !== "string") return undefined;
	return {
		id: h.id,
		timestamp: typeof h.timestamp === "string" ? h.timestamp : undefined,
		parentSession: typeof h.parentSession === "string" && h.parentSession !== "" ? h.parentSession : undefined,
	};
}

/** The header (first line) of a session file, read without loading the whole file. */
export function readSessionHeader(file: string): SessionHeaderFacts | undefined {
	let fd: number;
	try {
		fd = openSync(file, constants.O_RDONLY);
	} catch {
		return undefined;
	}
	try {
		const buffer = Buffer.alloc(HEADER_BYTES);
		const read = readSync(fd, buffer, 0, HEADER_BYTES, 0);
		const first = buffer.subarray(0, read).toString("utf8").split("\n")[0] ?? "";
		return headerFacts(JSON.parse(first));
	} catch {
		return undefined;
	} finally {
		closeSync(fd);
	}
}

function recordTime(record: JournalRecord): number {
	return record.type === "send" ? record.endedAt : record.at;
}

/** The donor chain's records, newest donor first, each cut at the time its child was forked from it. */
export function readInheritedHistory(
	own: SessionHeaderFacts,
	readHeader: (file: string) => SessionHeaderFacts | undefined = readSessionHeader,
): InheritedHistory[] {
	const history: InheritedHistory[] = [];
	const seen = new Set([own.id]);
	let child = own;
	for (let generation = 0; generation < MAX_GENERATIONS && child.parentSession; generation++) {
		const donorFile = child.parentSession;
		const donor = readHeader(donorFile);
		if (!donor || seen.has(donor.id)) {
			if (!donor) {
				history.push({
					donorSessionId: "unknown",
					journal: donorFile,
					records: [],
					skippedLines: 0,
					unavailable: "the donor session file could not be read",
				});
			}
			break;
		}
		seen.add(donor.id);
		const journal = journalPath(dirname(donorFile), donor.id);
		const read = readJournal(journal);
		const forkedAt = child.timestamp ? Date.parse(child.timestamp) : Number.NaN;
		const records = read.records.filter(
			(record) => record.sessionId === donor.id && (Number.isNaN(forkedAt) || recordTime(record) <= forkedAt),
		);
		history.push({
			donorSessionId: donor.id,
			journal,
			records,
			skippedLines: read.skippedLines,
			...(read.error ? { unavailable: read.error } : {}),
		});
		child = donor;
	}
	return history;
}
