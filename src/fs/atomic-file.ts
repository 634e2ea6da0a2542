// Private files written atomically: a 0600 temp file beside the target, fsynced, then renamed over it.

import { randomBytes } from "node:crypto";
import * as fsp from "node:fs/promises";
import * as path from "node:path";

export const PRIVATE_FILE_MODE = 0o600;

export async function removeQuietly(filePath: string): Promise<void> {
	try {
		await fsp.unlink(filePath);
	} catch {
		// already gone
	}
}

/** Resolves symlinks so a linked config (e.g. from a dotfiles repo) is replaced at its target, not unlinked. */
export async function resolveWriteTarget(filePath: string): Promise<string> {
	try {
		return await fsp.realpath(filePath);
	} catch {
		return filePath;
	}
}

export async function atomicWrite(target: string, text: string, mode: number = PRIVATE_FILE_MODE): Promise<void> {
	const tmp = `${target}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
	const handle = await fsp.open(tmp, "wx", mode);
	try {
		try {
			if (process.platform !== "win32") await handle.chmod(mode);
			await handle.writeFile(text, "utf8");
			await handle.sync();
		} finally {
			await handle.close();
		}
		await fsp.rename(tmp, target);
	} catch (error) {
		await removeQuietly(tmp);
		throw error;
	}
	if (process.platform !== "win32") {
		try {
			const dir = await fsp.open(path.dirname(target), "r");
			try {
				await dir.sync();
			} finally {
				await dir.close();
			}
		} catch {
			// Directory fsync is best effort.
		}
	}
}
