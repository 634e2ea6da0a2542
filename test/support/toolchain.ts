// Test-side access to the project's toolchain (build/toolchain.mjs): Node >= 22.19, Bun, Pi versions, compiled Pi.
// Test files run side by side in separate processes (`bun test --parallel`): whatever they share on disk (the staged
// bundle, the toolchain's installs) is written to a private name first and renamed into place, so that a reader sees
// the old file or the new one, never half of one.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
	copyFileSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmSync,
	symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { underDirLock } from "../../build/dir-lock.mjs";

export const REPO_ROOT = resolve(import.meta.dir, "..", "..");

/** An id for this checkout: what the test files of one checkout share on disk is named after it. */
export const CHECKOUT_ID = createHash("sha256").update(REPO_ROOT).digest("hex").slice(0, 12);

/** Puts a copy of `from` at `to` unless `to` already has the same bytes; atomic for concurrent readers. */
function placeCopy(from: string, to: string): void {
	const bytes = readFileSync(from);
	if (existsSync(to) && readFileSync(to).equals(bytes)) return;
	const temporary = `${to}.${process.pid}.tmp`;
	copyFileSync(from, temporary);
	renameSync(temporary, to);
}

/**
 * The folder `dir`, made once for all the test processes of a run: the first process to get the lock fills a private
 * folder with `fill` and renames it to `dir`, the others wait for `dir` to appear. Folders beside it whose names
 * start with `stalePrefix` (what earlier builds left) are removed when a new one is made.
 */
export function sharedFolder(dir: string, fill: (folder: string) => void, stalePrefix?: string): string {
	underDirLock(
		`${dir}.lock`,
		() => existsSync(dir),
		() => {
			const parent = resolve(dir, "..");
			if (stalePrefix) {
				for (const name of readdirSync(parent)) {
					if (name.startsWith(stalePrefix) && !name.endsWith(".lock"))
						rmSync(join(parent, name), { recursive: true, force: true });
				}
			}
			const scratch = mkdtempSync(`${dir}.filling-`);
			fill(scratch);
			renameSync(scratch, dir);
		},
		// A lock older than 3 minutes was left by a killed test process.
		{ pauseMs: 100, staleMs: 180_000 },
	);
	return dir;
}

/** A symlink at `link` to `target`; another process making the same link first is fine. */
function placeSymlink(target: string, link: string): void {
	if (existsSync(link)) return;
	try {
		symlinkSync(target, link, "dir");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
	}
}

/**
 * The built bundle as users get it: `node_modules/pi-cursor-sdk/dist/index.js` beside its runtime dependencies
 * (`@cursor/sdk` and its platform package) and WITHOUT the Pi packages, which are our devDependencies. Tests load it
 * from there; `test/e2e/one-copy.test.ts` also loads it from the checkout, where Pi's packages sit beside it.
 */
function stageInstalledBundle(): string {
	const built = join(REPO_ROOT, "dist", "index.js");
	// Outside the checkout: Node would otherwise find the Pi packages in the checkout's node_modules, up the tree.
	const modules = join(tmpdir(), `pi-cursor-sdk-installed-${CHECKOUT_ID}`, "node_modules");
	const pkg = join(modules, "pi-cursor-sdk");
	mkdirSync(join(pkg, "dist"), { recursive: true });
	placeCopy(join(REPO_ROOT, "package.json"), join(pkg, "package.json"));
	if (existsSync(built)) placeCopy(built, join(pkg, "dist", "index.js"));
	placeSymlink(join(REPO_ROOT, "node_modules", "@cursor"), join(modules, "@cursor"));
	return join(pkg, "dist", "index.js");
}

export const BUNDLE = stageInstalledBundle();

const ensured = new Map<string, string>();

/**
 * Absolute path of a toolchain item (installing it into `.toolchain/` once when missing; build/toolchain.mjs holds a
 * lock while it installs, so files running side by side wait for one install).
 */
export function ensureTool(tool: string): string {
	let path = ensured.get(tool);
	if (path === undefined) {
		path = execFileSync("node", [join(REPO_ROOT, "build", "toolchain.mjs"), "ensure", tool], {
			stdio: ["ignore", "pipe", "inherit"],
		})
			.toString()
			.trim();
		ensured.set(tool, path);
	}
	return path;
}
