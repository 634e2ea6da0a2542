// Which directory holds the per-session Cursor stores, and whether a custom one is safe to use.
//
// `PI_CURSOR_SDK_STATE_ROOT` > user `local.storeRoot` > the SDK's default for the workspace. A custom root must be
// absolute, not the filesystem root, free of `.`/`..` components and interpolation, and every existing component
// must be a real directory owned by root or the current user that no group or other user can write to (except a
// root-owned sticky directory such as /tmp; everything below it must be the user's own). Missing components are
// created one by one, mode 0700. An unsafe root is an error, never a silent fallback to the default.
import { chmodSync, lstatSync, mkdirSync, type Stats } from "node:fs";
import { isAbsolute, parse, sep } from "node:path";
import { redactSecrets } from "../sdk/errors.ts";
import { type CursorEnv, ENV_VARS } from "../settings/env.ts";

const ENV_STATE_ROOT = ENV_VARS.stateRoot.name;

export type StoreRootChoice =
	| { readonly kind: "default" }
	| { readonly kind: "custom"; readonly path: string; readonly source: "env" | "user" };

/** The winning root setting (trimmed; blank values do not count). Pure. */
export function chooseStoreRoot(env: Pick<CursorEnv, "stateRoot">, userStoreRoot: string | undefined): StoreRootChoice {
	const fromEnv = env.stateRoot;
	if (fromEnv) return { kind: "custom", path: fromEnv, source: "env" };
	const fromUser = userStoreRoot?.trim();
	if (fromUser) return { kind: "custom", path: fromUser, source: "user" };
	return { kind: "default" };
}

export function describeChoice(choice: StoreRootChoice): string {
	if (choice.kind === "default") return "the SDK's default state root";
	const path = redactSecrets(choice.path);
	return choice.source === "env" ? `${ENV_STATE_ROOT}="${path}"` : `local.storeRoot "${path}"`;
}

/** Problems visible in the text of the path alone (pure); `undefined` when the text is acceptable. */
export function pathTextProblem(path: string): string | undefined {
	if (/\$\{?[A-Za-z_]|%[A-Za-z_]+%|^~/.test(path)) return "it contains a variable or ~ (write the expanded path)";
	if (!isAbsolute(path)) return "it is not an absolute path";
	const components = path.split(/[\\/]+/);
	if (components.some((c) => c === "." || c === "..")) return "it contains . or .. components";
	if (path.slice(parse(path).root.length).replace(/[\\/]+/g, "") === "") return "it is the filesystem root";
	return undefined;
}

export type StoreRootCheck =
	| { readonly ok: true; readonly root: string }
	| { readonly ok: false; readonly problem: string };

interface Identity {
	readonly uid: number | undefined;
}

function lstatOrMissing(path: string): Stats | undefined {
	try {
		return lstatSync(path);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
		throw error;
	}
}

/** The problem with one existing component, if any; `sticky` says whether it is a trusted root-owned sticky dir. */
function componentProblem(
	dir: string,
	stats: Stats,
	who: Identity,
	belowSticky: boolean,
): { problem?: string; sticky: boolean } {
	if (stats.isSymbolicLink()) {
		// A system alias owned by root (macOS /tmp → /private/tmp) is fine; a link someone else controls is not.
		if (who.uid === undefined || stats.uid === 0) return { sticky: false };
		return { problem: `${dir} is a symbolic link`, sticky: false };
	}
	if (!stats.isDirectory()) return { problem: `${dir} is not a directory`, sticky: false };
	if (who.uid === undefined) return { sticky: false }; // Windows: no POSIX owner or mode bits to check
	const ownedByUser = stats.uid === who.uid;
	const ownedByRoot = stats.uid === 0;
	if (!ownedByUser && !ownedByRoot)
		return { problem: `${dir} is owned by another user (uid ${stats.uid})`, sticky: false };
	if (belowSticky && !ownedByUser) {
		return { problem: `${dir} is inside a shared temporary directory but not owned by you`, sticky: false };
	}
	const sharedWritable = (stats.mode & 0o022) !== 0;
	const sticky = ownedByRoot && (stats.mode & 0o1000) !== 0;
	if (sharedWritable && !sticky) {
		const writers = (stats.mode & 0o020) !== 0 ? "its group" : "other users";
		return { problem: `${dir} is writable by ${writers} (mode ${(stats.mode & 0o7777).toString(8)})`, sticky: false };
	}
	return { sticky };
}

/**
 * Checks a custom root component by component, creating the missing ones (0700). Never throws: filesystem errors
 * become the problem text.
 */
export function prepareStoreRoot(path: string, who: Identity = { uid: process.getuid?.() }): StoreRootCheck {
	const textProblem = pathTextProblem(path);
	if (textProblem) return { ok: false, problem: textProblem };
	const { root } = parse(path);
	const parts = path
		.slice(root.length)
		.split(/[\\/]+/)
		.filter((c) => c !== "");
	let current = root;
	let belowSticky = false;
	try {
		const rootStats = lstatSync(root);
		const rootCheck = componentProblem(root, rootStats, who, false);
		if (rootCheck.problem) return { ok: false, problem: rootCheck.problem };
		belowSticky = rootCheck.sticky;
		for (const part of parts) {
			current = current.endsWith(sep) || current.endsWith("/") ? `${current}${part}` : `${current}${sep}${part}`;
			let stats = lstatOrMissing(current);
			if (!stats) {
				mkdirSync(current, { mode: 0o700 });
				chmodSync(current, 0o700); // the umask may have narrowed or (rarely) widened the mode
				stats = lstatSync(current);
			}
			const check = componentProblem(current, stats, who, belowSticky);
			if (check.problem) return { ok: false, problem: check.problem };
			belowSticky ||= check.sticky;
		}
	} catch (error) {
		return { ok: false, problem: `${current} cannot be used (${(error as Error).message})` };
	}
	return { ok: true, root: current };
}

/** The message a turn fails with when the chosen root is unsafe. */
export function unsafeRootMessage(choice: StoreRootChoice, problem: string): string {
	const fix =
		choice.kind === "custom" && choice.source === "env"
			? `Fix or unset ${ENV_STATE_ROOT}`
			: "Fix or remove local.storeRoot in cursor-sdk.json";
	return `Unsafe Cursor state root ${describeChoice(choice)}: ${problem}. ${fix}; the Cursor conversation state is never stored there or silently elsewhere.`;
}
