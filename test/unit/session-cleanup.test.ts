// `/cursor-cleanup`: which per-session stores count as orphaned, and that removal never reaches anything else.
import { afterEach, describe, expect, test } from "bun:test";
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	claimListedStores,
	claimStore,
	cleanupReport,
	heldByAnotherLivePi,
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

	test("entries with an unreadable or mismatching owner record, links and files are left alone", () => {
		const { base, root, add } = fixture();
		const sessionsDir = join(root, "pi-sessions");
		add("real", true);
		const badOwner = join(sessionsDir, "a".repeat(24));
		mkdirSync(badOwner);
		writeFileSync(join(badOwner, OWNER_FILE), "{ torn");
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
		expect(scan.unowned).toEqual([]);
		expect(scan.unverified).toBe(5);
	});

	test("no pi-sessions folder: nothing to do", () => {
		const { root } = fixture();
		expect(scanStores(root)).toMatchObject({ orphaned: [], kept: 0, unverified: 0 });
	});
});

describe("stores made before owner records existed", () => {
	/** A store as an older version left it: the SDK's data, no owner record, no holder file. */
	function legacyStore(root: string, sessionId: string): string {
		const dir = sessionStoreDir(root, sessionId);
		mkdirSync(dir, { recursive: true });
		writeFileSync(join(dir, "store.sqlite"), "data");
		return dir;
	}

	test("a session Pi lists claims its store: the owner record is written, and once the session is gone it is an orphan", () => {
		const { root, sessions } = fixture();
		const sessionFile = join(sessions, "old.jsonl");
		writeFileSync(sessionFile, "{}\n");
		const dir = legacyStore(root, "old-session");
		const listed = [{ id: "old-session", path: sessionFile }];
		const scan = scanStores(root, { sessions: listed });
		expect(scan.claimable).toEqual([{ dir, owner: { sessionId: "old-session", sessionFile } }]);
		expect(scan.unowned).toEqual([]);
		expect(scan.kept).toBe(1);
		expect(removeStores(scan, { unowned: true }).removed).toEqual([]);
		expect(claimListedStores(scan)).toEqual([dir]);
		expect(readFileSync(join(dir, OWNER_FILE), "utf8")).toContain(sessionFile);
		rmSync(sessionFile);
		expect(scanStores(root).orphaned.map((o) => o.dir)).toEqual([dir]);
	});

	test("a store no listed session matches is listed and left alone, removed only with --unowned", () => {
		const { root, add } = fixture();
		const owned = add("owned", true);
		const stray = legacyStore(root, "session-pi-does-not-list");
		const scan = scanStores(root, { sessions: [] });
		expect(scan.unowned).toEqual([stray]);
		expect(removeStores(scan).removed).toEqual([]);
		expect(existsSync(stray)).toBe(true);
		const report = cleanupReport(scan, undefined);
		expect(report).toContain(
			`made before ownership records match no session Pi lists (one may live in another session folder); left alone:\n  ${stray}`,
		);
		expect(cleanupReport(scan, undefined, { unowned: true })).toContain(
			`Would remove 1 Cursor session store(s):\n  ${stray}`,
		);
		expect(removeStores(scan, { unowned: true }).removed).toEqual([stray]);
		expect(existsSync(stray)).toBe(false);
		expect(existsSync(owned)).toBe(true);
	});

	test("--unowned never removes the current session's store, one a running Pi holds, or one claimed after the scan", () => {
		const { root } = fixture();
		const current = legacyStore(root, "current");
		const held = legacyStore(root, "held");
		writeFileSync(join(held, `pi-cursor-sdk-holder-${process.pid}`), "");
		const late = legacyStore(root, "late");
		const scan = scanStores(root, { keep: [current], sessions: [] });
		expect(scan.unowned).toEqual([late]);
		writeFileSync(join(late, OWNER_FILE), JSON.stringify({ sessionId: "late", sessionFile: "/x.jsonl" }));
		const removal = removeStores(scan, { unowned: true });
		expect(removal.removed).toEqual([]);
		expect(removal.failed).toEqual([{ dir: late, reason: "claimed by a session meanwhile" }]);
		for (const dir of [current, held, late]) expect(existsSync(dir)).toBe(true);
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
		expect(parseCleanupArgs("")).toEqual({ dryRun: false, unowned: false });
		expect(parseCleanupArgs(" --dry-run ")).toEqual({ dryRun: true, unowned: false });
		expect(parseCleanupArgs("--unowned -n")).toEqual({ dryRun: true, unowned: true });
		expect(parseCleanupArgs("--dry-run --force")).toMatchObject({
			error: expect.stringContaining('Unknown argument "--force". Usage: /cursor-cleanup [--dry-run] [--unowned]'),
		});
	});

	test("reports list every orphan (dry run) or every removal", () => {
		const { root, add } = fixture();
		const gone = add("gone", false);
		const scan = scanStores(root);
		const dry = cleanupReport(scan, undefined);
		expect(dry).toContain("Would remove 1");
		expect(dry).toContain(gone);
		expect(cleanupReport(scan, removeStores(scan))).toContain(`Removed 1 Cursor session store(s):\n  ${gone}`);
		expect(cleanupReport(scanStores(root), undefined)).toContain("No orphaned Cursor session stores");
	});
});

describe("heldByAnotherLivePi (may a run left active on the store be forced?)", () => {
	const store = () => {
		const dir = mkdtempSync(join(tmpdir(), "session-holders-test-"));
		dirs.push(dir);
		return dir;
	};

	test("another live Pi's holder means held: its run is never forced", () => {
		const dir = store();
		writeFileSync(join(dir, `pi-cursor-sdk-holder-${process.ppid}`), "");
		expect(heldByAnotherLivePi(dir)).toBe(true);
	});

	test("only this process's holder, a crashed Pi's (dead pid), or none: not held", () => {
		const dir = store();
		expect(heldByAnotherLivePi(dir)).toBe(false);
		writeFileSync(join(dir, `pi-cursor-sdk-holder-${process.pid}`), "");
		writeFileSync(join(dir, `pi-cursor-sdk-holder-${2 ** 30}`), "");
		writeFileSync(join(dir, "pi-cursor-sdk-holder-not-a-pid"), "");
		expect(heldByAnotherLivePi(dir)).toBe(false);
		expect(heldByAnotherLivePi(join(dir, "missing"))).toBe(false);
	});
});
