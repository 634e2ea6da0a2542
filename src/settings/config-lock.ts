// The cross-process lock around a `cursor-sdk.json` update: `<file>.lock`, created exclusively with an owner token,
// taken over when older than the stale limit, removed only by its owner.
//
// Not proper-lockfile (Pi's own choice): importing it installs signal-exit's process-wide signal handlers, and its
// graceful-fs patches `fs.close`, in every Pi that loads this extension; its default `onCompromised` throws from a
// timer; and its lock is a directory, which cannot replace a stale lock file an earlier version of this extension
// left behind. This lock is the few lines below, tested across processes (test/unit/settings-config-file.test.ts).
import { randomBytes } from "node:crypto";
import type * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import { PRIVATE_FILE_MODE, removeQuietly } from "../fs/atomic-file.ts";

export interface HeldLock {
	readonly lockPath: string;
	readonly token: string;
}

function errorCode(error: unknown): string | undefined {
	return (error as NodeJS.ErrnoException | undefined)?.code;
}

function randomSuffix(): string {
	return randomBytes(6).toString("hex");
}

function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

async function breakStaleLock(lockPath: string, observed: fs.Stats): Promise<void> {
	const grave = `${lockPath}.stale.${process.pid}.${randomSuffix()}`;
	try {
		await fsp.rename(lockPath, grave);
	} catch {
		return; // someone else removed or replaced it first
	}
	let moved: fs.Stats | undefined;
	try {
		moved = await fsp.lstat(grave);
	} catch {
		return;
	}
	const same = moved.ino === observed.ino && moved.dev === observed.dev && moved.mtimeMs === observed.mtimeMs;
	if (!same) {
		// We raced and moved a fresh lock another writer had just created: put it back without clobbering anything.
		try {
			await fsp.link(grave, lockPath);
		} catch {
			// a newer lock already exists
		}
	}
	await removeQuietly(grave);
}

/** Takes the lock, waiting up to `timeoutMs`; a lock older than `staleMs` is taken over. Throws on I/O errors. */
export async function acquireLock(
	lockPath: string,
	timeoutMs: number,
	staleMs: number,
): Promise<HeldLock | { readonly timeout: true }> {
	const token = `${process.pid}.${randomSuffix()}`;
	const deadline = Date.now() + timeoutMs;
	let delay = 5;
	for (;;) {
		try {
			const handle = await fsp.open(lockPath, "wx", PRIVATE_FILE_MODE);
			try {
				await handle.writeFile(JSON.stringify({ pid: process.pid, token, createdAt: new Date().toISOString() }));
			} finally {
				await handle.close();
			}
			return { lockPath, token };
		} catch (error) {
			if (errorCode(error) !== "EEXIST") throw error;
		}
		let stats: fs.Stats | undefined;
		try {
			stats = await fsp.lstat(lockPath);
		} catch (error) {
			if (errorCode(error) === "ENOENT") continue; // released meanwhile: retry at once
			throw error;
		}
		if (Date.now() - stats.mtimeMs > staleMs) {
			await breakStaleLock(lockPath, stats);
			continue;
		}
		const remaining = deadline - Date.now();
		if (remaining <= 0) return { timeout: true };
		await sleep(Math.min(remaining, delay + Math.floor(Math.random() * delay)));
		delay = Math.min(delay * 2, 100);
	}
}

/** Removes the lock if it is still ours (a lock broken as stale now belongs to someone else). */
export async function releaseLock(lock: HeldLock): Promise<void> {
	try {
		const content = await fsp.readFile(lock.lockPath, "utf8");
		if (!content.includes(lock.token)) return;
	} catch {
		return;
	}
	await removeQuietly(lock.lockPath);
}
