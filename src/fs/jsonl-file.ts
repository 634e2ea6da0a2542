// Private append-only JSON-lines files (the usage and cloud journals): 0600, never through a symlink, bounded.
// Reading skips malformed or torn lines one by one, so a crash mid-write loses at most that line.
import {
	closeSync,
	constants,
	fchmodSync,
	fstatSync,
	fsyncSync,
	lstatSync,
	openSync,
	readSync,
	writeSync,
} from "node:fs";
import { dirname } from "node:path";

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

export interface JsonLinesRead<T> {
	records: T[];
	/** Lines that were not valid records (a torn tail after a crash, or foreign text). */
	skippedLines: number;
	/** The file does not exist (yet). */
	missing: boolean;
	/** Why the file could not be read at all. */
	error?: string;
	/** The file is over the ceiling: only its first `ceiling` bytes were read. */
	truncated?: boolean;
}

/** Parses JSON-lines text; `parse` turns one JSON value into a record (undefined: not one, the line is skipped). */
export function parseJsonLines<T>(text: string, parse: (value: unknown) => T | undefined): JsonLinesRead<T> {
	const records: T[] = [];
	let skippedLines = 0;
	for (const line of text.split("\n")) {
		if (line.trim() === "") continue;
		let record: T | undefined;
		try {
			record = parse(JSON.parse(line));
		} catch {
			record = undefined;
		}
		if (record !== undefined) records.push(record);
		else skippedLines++;
	}
	return { records, skippedLines, missing: false };
}

/** Reads a JSON-lines file (never throws; a symlink or anything but a regular file is an error). */
export function readJsonLines<T>(
	path: string,
	ceiling: number,
	parse: (value: unknown) => T | undefined,
): JsonLinesRead<T> {
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
		const size = Math.min(stat.size, ceiling);
		const buffer = Buffer.alloc(size);
		let offset = 0;
		while (offset < size) {
			const read = readSync(fd, buffer, offset, size - offset, offset);
			if (read === 0) break;
			offset += read;
		}
		const parsed = parseJsonLines(buffer.subarray(0, offset).toString("utf8"), parse);
		return { ...parsed, ...(stat.size > ceiling ? { truncated: true } : {}) };
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

export interface AppendOptions {
	ceiling: number;
	/**
	 * Make the line durable before returning: fsync the file, and the directory when the file was just created.
	 * Also checks that the opened file is the one at `path` (not swapped between open and check).
	 */
	durable?: boolean;
}

function openForAppend(path: string, durable: boolean): { fd: number; created: boolean } {
	const flags = constants.O_RDWR | constants.O_APPEND | NOFOLLOW;
	if (!durable) return { fd: openSync(path, flags | constants.O_CREAT, 0o600), created: false };
	try {
		return { fd: openSync(path, flags | constants.O_CREAT | constants.O_EXCL, 0o600), created: true };
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
		return { fd: openSync(path, flags), created: false };
	}
}

function fsyncDirectory(dir: string): void {
	let fd: number | undefined;
	try {
		fd = openSync(dir, constants.O_RDONLY);
		fsyncSync(fd);
	} catch {
		// some platforms cannot fsync a directory; the file itself is synced
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

/**
 * Appends one JSON line. A torn last line (a crash mid-append) is closed with a newline first, so it stays one
 * skipped line instead of swallowing this one. Throws when the file cannot be written or is full.
 */
export function appendJsonLine(path: string, value: unknown, options: AppendOptions): void {
	const durable = options.durable === true;
	const { fd, created } = openForAppend(path, durable);
	try {
		const stat = fstatSync(fd);
		if (!stat.isFile()) throw new Error("not a regular file");
		if (durable) {
			const atPath = lstatSync(path);
			if (atPath.ino !== stat.ino || atPath.dev !== stat.dev) throw new Error("the file was replaced while opening it");
			if ((stat.mode & 0o077) !== 0 && process.platform !== "win32") fchmodSync(fd, 0o600);
		}
		const line = `${endsWithNewline(fd, stat.size) ? "" : "\n"}${JSON.stringify(value)}\n`;
		if (stat.size + Buffer.byteLength(line) > options.ceiling) {
			throw new Error(`the journal reached its ${Math.round(options.ceiling / 1024 / 1024)} MiB ceiling`);
		}
		writeSync(fd, line);
		if (durable) fsyncSync(fd);
	} finally {
		closeSync(fd);
	}
	if (created) fsyncDirectory(dirname(path));
}
