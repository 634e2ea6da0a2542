// `/cursor-usage export <path>`: a new private JSON file; an existing file is never replaced.
import { closeSync, constants, openSync, writeSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";

export type ExportResult = { ok: true; path: string } | { ok: false; message: string };

/** Writes `document` to `target` (relative to `cwd`), created exclusively with mode 0600. */
export function writeExport(target: string, cwd: string, document: unknown): ExportResult {
	const trimmed = target.trim();
	if (trimmed === "")
		return { ok: false, message: "Usage: /cursor-usage export <path> (a new file; never overwritten)." };
	const path = isAbsolute(trimmed) ? trimmed : resolve(cwd, trimmed);
	let fd: number;
	try {
		fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "EEXIST") {
			return { ok: false, message: `${path} already exists; the export never overwrites a file. Choose a new path.` };
		}
		return { ok: false, message: `Could not create ${path} (${code ?? (error as Error).message}).` };
	}
	try {
		writeSync(fd, `${JSON.stringify(document, null, 2)}\n`);
		return { ok: true, path };
	} catch (error) {
		return {
			ok: false,
			message: `Could not write ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`,
		};
	} finally {
		closeSync(fd);
	}
}
