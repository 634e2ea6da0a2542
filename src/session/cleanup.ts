// `/cursor-cleanup`: finds and removes the per-session Cursor stores (`<root>/pi-sessions/<id>`) whose Pi session
// is gone. A store is only ever a candidate when it proves whose it is: an owner record (written when a persisted
// session first uses the store) naming the Pi session file and an id that hashes to the directory name. A store
// any running Pi holds (a holder file with a live pid) is kept, and nothing outside `pi-sessions/` is touched.
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
	const ownerPath = join(storeDir, OWNER_FILE);
	const text = `${JSON.stringify({ sessionId: owner.sessionId, sessionFile: owner.sessionFile })}\n`;
	let current: string | undefined;
	try {
		current = readFileSync(ownerPath, "utf8");
	} catch {
		// not recorded yet
	}
	if (current !== text) writeFileSync(ownerPath, text, { mode: 0o600 });
	for (const name of readdirSync(storeDir)) {
		const holder = holderPid(name);
		if (holder !== undefined && holder !== pid && !processAlive(holder)) releaseStore(storeDir, holder); // a crashed Pi's
	}
	writeFileSync(join(storeDir, `${HOLDER_PREFIX}${pid}`), "", { mode: 0o600 });
}

function holderPid(name: string): number | undefined {
	if (!name.startsWith(HOLDER_PREFIX)) return undefined;
	const pid = Number(name.slice(HOLDER_PREFIX.length));
	return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
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

export interface StoreScan {
	/** `<root>/pi-sessions`. */
	readonly sessionsDir: string;
	readonly orphaned: readonly OrphanedStore[];
	/** Stores kept because their session file exists or a running Pi holds them. */
	readonly kept: number;
	/** Entries left alone because they do not prove their owner (no or a mismatching owner record). */
	readonly unverified: number;
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
	options: { isAlive?: (pid: number) => boolean; keep?: readonly string[] } = {},
): StoreScan {
	const sessionsDir = join(root, "pi-sessions");
	const isAlive = options.isAlive ?? processAlive;
	const orphaned: OrphanedStore[] = [];
	let kept = 0;
	let unverified = 0;
	let names: string[];
	try {
		names = readdirSync(sessionsDir).sort();
	} catch {
		return { sessionsDir, orphaned, kept, unverified };
	}
	for (const name of names) {
		if (!isStoreDirectory(sessionsDir, name)) {
			unverified++;
			continue;
		}
		const dir = join(sessionsDir, name);
		const owner = readOwner(dir);
		if (!owner || basename(sessionStoreDir(root, owner.sessionId)) !== name) {
			unverified++;
		} else if (existsSync(owner.sessionFile) || options.keep?.includes(dir) || heldByRunningPi(dir, isAlive)) {
			kept++;
		} else {
			orphaned.push({ dir, sessionFile: owner.sessionFile });
		}
	}
	return { sessionsDir, orphaned, kept, unverified };
}

export interface RemovalResult {
	readonly removed: readonly string[];
	readonly failed: readonly { readonly dir: string; readonly reason: string }[];
}

/** Removes scanned orphans, re-checking each is still a store directory directly inside `sessionsDir`. */
export function removeStores(scan: StoreScan): RemovalResult {
	const removed: string[] = [];
	const failed: { dir: string; reason: string }[] = [];
	for (const store of scan.orphaned) {
		const name = basename(store.dir);
		if (join(scan.sessionsDir, name) !== store.dir || !isStoreDirectory(scan.sessionsDir, name)) {
			failed.push({ dir: store.dir, reason: "no longer a session store directory" });
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

export const CLEANUP_USAGE = "Usage: /cursor-cleanup [--dry-run]";

/** Parses `/cursor-cleanup` arguments: `{ dryRun }`, or an error message. */
export function parseCleanupArgs(args: string): { dryRun: boolean } | { error: string } {
	const words = args
		.trim()
		.split(/\s+/)
		.filter((w) => w !== "");
	if (words.length === 0) return { dryRun: false };
	if (words.length === 1 && (words[0] === "--dry-run" || words[0] === "-n")) return { dryRun: true };
	return { error: `Unknown argument "${args.trim()}". ${CLEANUP_USAGE}` };
}

/** The user-facing report of a scan (dry run) or a removal. */
export function cleanupReport(scan: StoreScan, removal: RemovalResult | undefined): string {
	const skipped =
		scan.unverified > 0
			? ` ${scan.unverified} entr${scan.unverified === 1 ? "y" : "ies"} without an owner record left alone.`
			: "";
	if (scan.orphaned.length === 0) {
		return `No orphaned Cursor session stores in ${scan.sessionsDir} (${scan.kept} in use).${skipped}`;
	}
	if (!removal) {
		const lines = scan.orphaned.map((s) => `  ${s.dir} (session ${s.sessionFile} is gone)`);
		return [
			`Would remove ${scan.orphaned.length} orphaned Cursor session store(s):`,
			...lines,
			`Run /cursor-cleanup to remove them.${skipped}`,
		].join("\n");
	}
	const lines = [
		`Removed ${removal.removed.length} orphaned Cursor session store(s):`,
		...removal.removed.map((dir) => `  ${dir}`),
	];
	if (removal.failed.length > 0) {
		lines.push(`Could not remove ${removal.failed.length}:`, ...removal.failed.map((f) => `  ${f.dir}: ${f.reason}`));
	}
	if (skipped) lines.push(skipped.trim());
	return lines.join("\n");
}
