// `/cursor-cleanup`: finds and removes the per-session Cursor stores (`<root>/pi-sessions/<id>`) whose Pi session
// is gone. A store is only ever a candidate when it proves whose it is: an owner record (written when a persisted
// session first uses the store) naming the Pi session file and an id that hashes to the directory name. A store
// any running Pi holds (a holder file with a live pid) is kept, and nothing outside `pi-sessions/` is touched.
// Stores made before owner records existed are claimed when a session Pi lists hashes to their name; the others are
// listed and removed only on request (`--unowned`): their session may live where Pi does not look.
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { persistentStore, sessionStoreDir } from "./stores.ts";

export const OWNER_FILE = "pi-cursor-sdk-owner.json";
const HOLDER_PREFIX = "pi-cursor-sdk-holder-";
const STORE_NAME = /^[0-9a-f]{24}$/;

export interface StoreOwner {
	readonly sessionId: string;
	readonly sessionFile: string;
}

/** Records which Pi session owns a store and that this process holds it (creates the store dir, 0700). */
export function claimStore(storeDir: string, owner: StoreOwner, pid: number = process.pid): void {
	persistentStore(storeDir);
	recordOwner(storeDir, owner);
	for (const name of readdirSync(storeDir)) {
		const holder = holderPid(name);
		if (holder !== undefined && holder !== pid && !processAlive(holder)) releaseStore(storeDir, holder); // a crashed Pi's
	}
	writeFileSync(join(storeDir, `${HOLDER_PREFIX}${pid}`), "", { mode: 0o600 });
}

/** Writes (or refreshes) a store's owner record. */
function recordOwner(storeDir: string, owner: StoreOwner): void {
	const ownerPath = join(storeDir, OWNER_FILE);
	const text = `${JSON.stringify({ sessionId: owner.sessionId, sessionFile: owner.sessionFile })}\n`;
	let current: string | undefined;
	try {
		current = readFileSync(ownerPath, "utf8");
	} catch {
		// not recorded yet
	}
	if (current !== text) writeFileSync(ownerPath, text, { mode: 0o600 });
}

function holderPid(name: string): number | undefined {
	if (!name.startsWith(HOLDER_PREFIX)) return undefined;
	const pid = Number(name.slice(HOLDER_PREFIX.length));
	return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Whether a Pi process other than `pid` is running and holds the store (a holder file with a live pid). A dead pid
 * reused by an unrelated process counts as alive: the answer errs on the side of another Pi being there.
 */
export function heldByAnotherLivePi(storeDir: string, pid: number = process.pid): boolean {
	let names: string[];
	try {
		names = readdirSync(storeDir);
	} catch {
		return false;
	}
	return names.some((name) => {
		const holder = holderPid(name);
		return holder !== undefined && holder !== pid && processAlive(holder);
	});
}

/** Drops this process's hold on a store (session end, or a switch to another root). */
export function releaseStore(storeDir: string, pid: number = process.pid): void {
	try {
		unlinkSync(join(storeDir, `${HOLDER_PREFIX}${pid}`));
	} catch {
		// never held, or already released
	}
}

/** Whether a process id is running (a process we may not signal still counts). */
export function processAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}

export interface OrphanedStore {
	readonly dir: string;
	readonly sessionFile: string;
}

/** A Pi session as Pi lists it (`SessionManager.listAll()`): its id and session file. */
export interface KnownSession {
	readonly id: string;
	readonly path: string;
}

export interface StoreScan {
	/** `<root>/pi-sessions`. */
	readonly sessionsDir: string;
	readonly orphaned: readonly OrphanedStore[];
	/** Stores kept because their session file exists or a running Pi holds them. */
	readonly kept: number;
	/** Entries left alone because they are not store folders or their owner record names another session. */
	readonly unverified: number;
	/** Stores from before owner records whose session Pi lists: their owner record is written (they are kept). */
	readonly claimable: readonly { readonly dir: string; readonly owner: StoreOwner }[];
	/** Stores without an owner record whose session Pi does not list, and that no running Pi holds. */
	readonly unowned: readonly string[];
}

function readOwner(storeDir: string): StoreOwner | undefined {
	try {
		const parsed = JSON.parse(readFileSync(join(storeDir, OWNER_FILE), "utf8")) as Partial<StoreOwner>;
		if (typeof parsed.sessionId !== "string" || typeof parsed.sessionFile !== "string") return undefined;
		return { sessionId: parsed.sessionId, sessionFile: parsed.sessionFile };
	} catch {
		return undefined;
	}
}

function heldByRunningPi(storeDir: string, isAlive: (pid: number) => boolean): boolean {
	return readdirSync(storeDir).some((name) => {
		const pid = holderPid(name);
		return pid !== undefined && isAlive(pid);
	});
}

/** A real directory named like a session store, directly inside `sessionsDir` (never a link). */
function isStoreDirectory(sessionsDir: string, name: string): boolean {
	if (!STORE_NAME.test(name)) return false;
	try {
		return lstatSync(join(sessionsDir, name)).isDirectory();
	} catch {
		return false;
	}
}

/** Lists the stores under `<root>/pi-sessions` whose Pi session file is gone and that no running Pi holds. */
export function scanStores(
	root: string,
	options: { isAlive?: (pid: number) => boolean; keep?: readonly string[]; sessions?: readonly KnownSession[] } = {},
): StoreScan {
	const sessionsDir = join(root, "pi-sessions");
	const isAlive = options.isAlive ?? processAlive;
	const orphaned: OrphanedStore[] = [];
	const claimable: { dir: string; owner: StoreOwner }[] = [];
	const unowned: string[] = [];
	let kept = 0;
	let unverified = 0;
	let names: string[];
	try {
		names = readdirSync(sessionsDir).sort();
	} catch {
		return { sessionsDir, orphaned, kept, unverified, claimable, unowned };
	}
	const listed = new Map((options.sessions ?? []).map((s) => [basename(sessionStoreDir(root, s.id)), s]));
	for (const name of names) {
		if (!isStoreDirectory(sessionsDir, name)) {
			unverified++;
			continue;
		}
		const dir = join(sessionsDir, name);
		const owner = readOwner(dir);
		if (!owner && !existsSync(join(dir, OWNER_FILE))) {
			// Made before owner records existed.
			const session = listed.get(name);
			if (session) claimable.push({ dir, owner: { sessionId: session.id, sessionFile: session.path } });
			if (session || options.keep?.includes(dir) || heldByRunningPi(dir, isAlive)) kept++;
			else unowned.push(dir);
		} else if (!owner || basename(sessionStoreDir(root, owner.sessionId)) !== name) {
			unverified++;
		} else if (existsSync(owner.sessionFile) || options.keep?.includes(dir) || heldByRunningPi(dir, isAlive)) {
			kept++;
		} else {
			orphaned.push({ dir, sessionFile: owner.sessionFile });
		}
	}
	return { sessionsDir, orphaned, kept, unverified, claimable, unowned };
}

/** Writes the owner records of the scan's claimable stores; returns the ones written. */
export function claimListedStores(scan: StoreScan): string[] {
	const claimed: string[] = [];
	for (const { dir, owner } of scan.claimable) {
		try {
			recordOwner(dir, owner);
			claimed.push(dir);
		} catch {
			// left unowned; the next cleanup tries again
		}
	}
	return claimed;
}

export interface RemovalResult {
	readonly removed: readonly string[];
	readonly failed: readonly { readonly dir: string; readonly reason: string }[];
}

/**
 * Removes scanned orphans (and, with `unowned`, the stores without an owner record that no listed session matches),
 * re-checking each is still a store directory directly inside `sessionsDir` (and still has no owner record).
 */
export function removeStores(scan: StoreScan, options: { unowned?: boolean } = {}): RemovalResult {
	const removed: string[] = [];
	const failed: { dir: string; reason: string }[] = [];
	const targets = [
		...scan.orphaned.map((store) => ({ dir: store.dir, unowned: false })),
		...(options.unowned ? scan.unowned.map((dir) => ({ dir, unowned: true })) : []),
	];
	for (const store of targets) {
		const name = basename(store.dir);
		if (join(scan.sessionsDir, name) !== store.dir || !isStoreDirectory(scan.sessionsDir, name)) {
			failed.push({ dir: store.dir, reason: "no longer a session store directory" });
			continue;
		}
		if (store.unowned && existsSync(join(store.dir, OWNER_FILE))) {
			failed.push({ dir: store.dir, reason: "claimed by a session meanwhile" });
			continue;
		}
		try {
			rmSync(store.dir, { recursive: true, force: true });
			removed.push(store.dir);
		} catch (error) {
			failed.push({ dir: store.dir, reason: (error as Error).message });
		}
	}
	return { removed, failed };
}

export const CLEANUP_USAGE = "Usage: /cursor-cleanup [--dry-run] [--unowned]";

/** Parses `/cursor-cleanup` arguments: `{ dryRun, unowned }`, or an error message. */
export function parseCleanupArgs(args: string): { dryRun: boolean; unowned: boolean } | { error: string } {
	const words = args
		.trim()
		.split(/\s+/)
		.filter((w) => w !== "");
	const known = ["--dry-run", "-n", "--unowned"];
	const unknown = words.find((w) => !known.includes(w));
	if (unknown !== undefined) return { error: `Unknown argument "${unknown}". ${CLEANUP_USAGE}` };
	return { dryRun: words.includes("--dry-run") || words.includes("-n"), unowned: words.includes("--unowned") };
}

/**
 * The user-facing report of a scan (dry run: no `removal`) or a removal. `unowned`: `--unowned` was given; `claimed`:
 * the stores whose owner record was written.
 */
export function cleanupReport(
	scan: StoreScan,
	removal: RemovalResult | undefined,
	options: { unowned?: boolean; claimed?: readonly string[] } = {},
): string {
	const lines: string[] = [];
	const unownedToo = options.unowned === true && scan.unowned.length > 0;
	if (!removal) {
		const targets = [
			...scan.orphaned.map((s) => `  ${s.dir} (session ${s.sessionFile} is gone)`),
			...(unownedToo ? scan.unowned.map((dir) => `  ${dir} (no owner record, no Pi session matches)`) : []),
		];
		if (targets.length > 0) {
			lines.push(`Would remove ${targets.length} Cursor session store(s):`, ...targets);
			lines.push(`Run /cursor-cleanup${unownedToo ? " --unowned" : ""} to remove them.`);
		}
	} else if (removal.removed.length > 0 || removal.failed.length > 0) {
		lines.push(
			`Removed ${removal.removed.length} Cursor session store(s):`,
			...removal.removed.map((dir) => `  ${dir}`),
		);
		if (removal.failed.length > 0) {
			lines.push(`Could not remove ${removal.failed.length}:`, ...removal.failed.map((f) => `  ${f.dir}: ${f.reason}`));
		}
	}
	if (lines.length === 0) lines.push(`No orphaned Cursor session stores in ${scan.sessionsDir} (${scan.kept} in use).`);
	const claims = removal ? (options.claimed ?? []).length : scan.claimable.length;
	if (claims > 0) {
		lines.push(
			`${removal ? "Recorded" : "Would record"} the owner of ${claims} store(s) made before ownership records (their Pi sessions exist).`,
		);
	}
	if (scan.unowned.length > 0 && !unownedToo) {
		lines.push(
			`${scan.unowned.length} store(s) made before ownership records match no session Pi lists (one may live in another session folder); left alone:`,
			...scan.unowned.map((dir) => `  ${dir}`),
			"Run /cursor-cleanup --dry-run --unowned to review them, /cursor-cleanup --unowned to remove them.",
		);
	}
	if (scan.unverified > 0) {
		lines.push(`${scan.unverified} unrecognised entr${scan.unverified === 1 ? "y" : "ies"} left alone.`);
	}
	return lines.join("\n");
}
