// Where pooled SDK agents keep their conversation state: per-session persistent stores and temporary stores.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { persistentStore, removeStore, sessionStoreDir, temporaryStore } from "../../src/session/stores.ts";

const scratch = mkdtempSync(join(tmpdir(), "session-stores-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("sessionStoreDir", () => {
	test("is <state root>/pi-sessions/<24 hex of the session id>, deterministic", () => {
		const dir = sessionStoreDir("/state", "01a228a4-fa60-75a5-8517-4ada8c80c248");
		expect(dirname(dir)).toBe("/state/pi-sessions");
		expect(basename(dir)).toMatch(/^[0-9a-f]{24}$/);
		expect(sessionStoreDir("/state", "01a228a4-fa60-75a5-8517-4ada8c80c248")).toBe(dir);
	});

	test("differs per session id and per root", () => {
		const a = sessionStoreDir("/state", "session-a");
		expect(sessionStoreDir("/state", "session-b")).not.toBe(a);
		expect(basename(sessionStoreDir("/other", "session-a"))).toBe(basename(a));
		expect(sessionStoreDir("/other", "session-a")).not.toBe(a);
	});

	test("a hostile session id cannot escape the root or leak into the path", () => {
		for (const id of ["../../etc", "/abs/path", "a/b", "", "..", "x\u0000y"]) {
			const dir = sessionStoreDir("/state", id);
			expect(dirname(dir)).toBe("/state/pi-sessions");
			expect(basename(dir)).toMatch(/^[0-9a-f]{24}$/);
		}
	});
});

describe("stores", () => {
	test("persistentStore creates the directory (owner-only, recursive) and is never removed", () => {
		const dir = join(scratch, "root", "pi-sessions", "abc");
		const store = persistentStore(dir);
		expect(store).toEqual({ dir, temporary: false });
		expect(statSync(dir).isDirectory()).toBe(true);
		expect(statSync(dir).mode & 0o077).toBe(0);
		writeFileSync(join(dir, "agents.jsonl"), "{}\n");
		expect(persistentStore(dir)).toEqual(store); // idempotent, keeps content
		removeStore(store);
		expect(existsSync(join(dir, "agents.jsonl"))).toBe(true);
	});

	test("temporaryStore makes a fresh OS-temporary directory each time; removeStore deletes it", () => {
		const a = temporaryStore();
		const b = temporaryStore();
		try {
			expect(a.temporary).toBe(true);
			expect(a.dir).not.toBe(b.dir);
			expect(dirname(a.dir)).toBe(tmpdir());
			expect(basename(a.dir)).toStartWith("pi-cursor-sdk-store-");
			writeFileSync(join(a.dir, "events.jsonl"), "{}\n");
			removeStore(a);
			expect(existsSync(a.dir)).toBe(false);
			removeStore(a); // removing twice is harmless
		} finally {
			removeStore(b);
		}
		expect(existsSync(b.dir)).toBe(false);
	});
});
