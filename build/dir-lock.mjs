// One process at a time: a directory made with mkdir is the lock (atomic on every file system we run on). Shared by
// the toolchain (installing a tool once) and the tests (filling a folder once for test files running side by side).
import { mkdirSync, rmSync, statSync } from "node:fs";

/**
 * Runs `work` holding the lock directory `lock`, unless `done()` holds first: while another process holds the lock,
 * waits (polling every `pauseMs`) until it releases it or `done()` holds; a lock older than `staleMs` was left by a
 * killed process and is taken over. The lock goes when `work` ends, or with the process if `work` exits it.
 */
export function underDirLock(lock, done, work, { pauseMs, staleMs }) {
	if (done()) return;
	const pause = new Int32Array(new SharedArrayBuffer(4));
	for (;;) {
		try {
			mkdirSync(lock);
			break;
		} catch (error) {
			if (error.code !== "EEXIST") throw error;
		}
		try {
			if (Date.now() - statSync(lock).mtimeMs > staleMs) rmSync(lock, { recursive: true, force: true });
		} catch {
			// released meanwhile
		}
		Atomics.wait(pause, 0, 0, pauseMs);
		if (done()) return;
	}
	const release = () => rmSync(lock, { recursive: true, force: true });
	process.once("exit", release);
	try {
		if (!done()) work();
	} finally {
		release();
		process.off("exit", release);
	}
}
