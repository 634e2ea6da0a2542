// The per-session cloud journal: an append-only, private (0600) JSON-lines file beside Pi's session file, named
// after a hash of the stable Pi session id. Unlike the usage journal, every append is durable (fsynced) and a
// failed append throws: the cloud turn and the /cursor-cloud commands fail closed rather than lose track of an agent.
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { appendJsonLine, type JsonLinesRead, readJsonLines } from "../fs/jsonl-file.ts";
import { sessionDigest } from "../usage/journal.ts";
import { CLOUD_RECORD_VERSION, type CloudEntry, type CloudRecord, parseCloudRecord } from "./records.ts";

export const CLOUD_JOURNAL_CEILING_BYTES = 4 * 1024 * 1024;

export function cloudJournalPath(sessionDir: string, sessionId: string): string {
	return join(sessionDir, `cursor-cloud-${sessionDigest(sessionId)}.journal`);
}

export class CloudJournal {
	constructor(readonly path: string) {}

	/** Appends and fsyncs one record; throws when it cannot (a symlink, not a regular file, full, I/O error). */
	record(entry: CloudEntry): void {
		mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
		const record: CloudRecord = { v: CLOUD_RECORD_VERSION, at: Date.now(), ...entry };
		appendJsonLine(this.path, record, { ceiling: CLOUD_JOURNAL_CEILING_BYTES, durable: true });
	}

	/** Never throws; malformed and torn lines are counted and skipped. */
	read(): JsonLinesRead<CloudRecord> {
		return readJsonLines(this.path, CLOUD_JOURNAL_CEILING_BYTES, parseCloudRecord);
	}
}

/** A fresh id tying an intent to its outcome. */
export function newIntentId(): string {
	return randomUUID();
}
