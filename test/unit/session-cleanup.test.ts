// `/cursor-cleanup`: which per-session stores count as orphaned, and that removal never reaches anything else.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	claimStore,
	cleanupReport,
	OWNER_FILE,
	parseCleanupArgs,
	releaseStore,
	removeStores,
	scanStores,
} from "../../src/session/cleanup.ts";
import { sessionStoreDir } from "../../src/session/stores.ts";

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A state root with sessions: each has a store claimed by a dead pid; `alive` ones keep their session file. */
function fixture() {
	const base = mkdtempSync(join(tmpdir(), "session-cleanup-test-"));
	dirs.push(base);
	const root = join(base, "root");
	const sessions = join(base, "sessions");
	mkdirSync(sessions, { recursive: true });
	const DEAD_PID = 2 ** 30; // no such process
	const add = (id: string, keepFile: boolean) => {
		const sessionFile = join(sessions, `${id}.jsonl`);
		writeFileSync(sessionFile, "{}\n");
		const dir = sessionStoreDir(root, id);
		claimStore(dir, { sessionId: id, sessionFile }, DEAD_PID);
		writeFileSync(join(dir, "store.sqlite"), "data");
		if (!keepFile) rmSync(sessionFile);
		return dir;
	};
	return { base, root, add, sessions };
}

describe("scanStores", () => {
	test("orphaned = owner record proves the session, its file is gone, and no running Pi holds the store", () => {
		const { root, add } = fixture();
		const kept = add("kept-session", true);
		const gone = add("deleted-session", false);
		const scan = scanStores(root);
		expect(scan.orphaned.map((o) => o.dir)).toEqual([gone]);
		expect(scan.orphaned[0]?.sessionFile).toEndWith("deleted-session.jsonl");
		expect(scan.kept).toBe(1);
		expect(existsSync(kept)).toBe(true);
	});

	test("a store a running Pi holds is kept even when its session file is gone (first turn not yet saved)", () => {
		const { root, add } = fixture();
		const dir = add("in-flight", false);
		claimStore(dir, { sessionId: "in-flight", sessionFile: join(root, "nowhere.jsonl") }); // this process
		expect(scanStores(root).orphaned).toEqual([]);
		releaseStore(dir);
		expect(scanStores(root).orphaned.map((o) => o.dir)).toEqual([dir]);
		expect(scanStores(root, { keep: [dir] }).orphaned).toEqual([]);
	});

	test("entries without a valid owner record, with a mismatching id, or that are links or files are left alone", () => {
		const { base, root, add } = fixture();
		const sessionsDir = join(root, "pi-sessions");
		add("real", true);
		const noOwner = join(sessionsDir, "a".repeat(24));
		mkdirSync(noOwner);
		const wrongId = join(sessionsDir, "b".repeat(24));
		mkdirSync(wrongId);
		writeFileSync(join(wrongId, OWNER_FILE), JSON.stringify({ sessionId: "other", sessionFile: "/gone.jsonl" }));
		const outside = join(base, "outside");
		mkdirSync(outside);
		writeFileSync(join(outside, OWNER_FILE), JSON.stringify({ sessionId: "x", sessionFile: "/gone.jsonl" }));
		symlinkSync(outside, join(sessionsDir, "c".repeat(24)));
		writeFileSync(join(sessionsDir, "d".repeat(24)), "a file");
		mkdirSync(join(sessionsDir, "not-a-store"));
		const scan = scanStores(root);
		expect(scan.orphaned).toEqual([]);
		expect(scan.unverified).toBe(5);
	});

	test("no pi-sessions folder: nothing to do", () => {
		const { root } = fixture();
		expect(scanStores(root)).toMatchObject({ orphaned: [], kept: 0, unverified: 0 });
	});
});

describe("removeStores", () => {
	test("removes exactly the orphans; siblings, the root's other content and the session files stay", () => {
		const { root, add } = fixture();
		const kept = add("kept", true);
		const gone = add("gone", false);
		const gone2 = add("gone-too", false);
		writeFileSync(join(root, "shared-workspace-store.db"), "SDK data");
		const result = removeStores(scanStores(root));
		expect([...result.removed].sort()).toEqual([gone, gone2].sort());
		expect(result.failed).toEqual([]);
		expect(existsSync(kept)).toBe(true);
		expect(readdirSync(root).sort()).toEqual(["pi-sessions", "shared-workspace-store.db"]);
	});

	test("a store replaced by a link after the scan is not followed", () => {
		const { base, root, add } = fixture();
		const gone = add("gone", false);
		const scan = scanStores(root);
		const victim = join(base, "victim");
		mkdirSync(victim);
		writeFileSync(join(victim, "precious"), "x");
		rmSync(gone, { recursive: true });
		symlinkSync(victim, gone);
		const result = removeStores(scan);
		expect(result.removed).toEqual([]);
		expect(result.failed.map((f) => f.dir)).toEqual([gone]);
		expect(existsSync(join(victim, "precious"))).toBe(true);
	});
});

describe("command text", () => {
	test("parseCleanupArgs", () => {
		expect(parseCleanupArgs("")).toEqual({ dryRun: false });
		expect(parseCleanupArgs(" --dry-run ")).toEqual({ dryRun: true });
		expect(parseCleanupArgs("--force")).toMatchObject({
			error: expect.stringContaining("/cursor-cleanup [--dry-run]"),
		});
	});

	test("reports list every orphan (dry run) or every removal", () => {
		const { root, add } = fixture();
		const gone = add("gone", false);
		const scan = scanStores(root);
		const dry = cleanupReport(scan, undefined);
		expect(dry).toContain("Would remove 1");
		expect(dry).toContain(gone);
		expect(cleanupReport(scan, removeStores(scan))).toContain(`Removed 1 orphaned Cursor session store(s):\n  ${gone}`);
		expect(cleanupReport(scanStores(root), undefined)).toContain("No orphaned Cursor session stores");
	});
});
