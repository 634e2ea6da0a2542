// Paths that source files name, checked by test/unit/repo-boundary.test.ts: nothing may reach outside the checkout.
import { dirname, isAbsolute, relative, resolve } from "node:path";

export interface BoundaryViolation {
	file: string;
	line: number;
	path: string;
}

/** Names a file's own folder (`import.meta.dir`, `__dirname`, `dirname(fileURLToPath(import.meta.url))`). */
const FILE_DIR = /^(import\.meta\.dir(name)?|__dirname|dirname\(fileURLToPath\(import\.meta\.url\)\))$/;
/** Names the repository root (`REPO_ROOT`, `ROOT`). */
const REPO_ROOT_NAME = /^(REPO_ROOT|ROOT)$/;
const STRING = /^(["'`])([^"'`$]*)\1$/;

function outside(root: string, path: string): boolean {
	const rel = relative(root, path);
	return rel === ".." || rel.startsWith("../") || isAbsolute(rel);
}

/** Splits a call's argument list at top-level commas. */
function splitArgs(text: string): string[] {
	const args: string[] = [];
	let depth = 0;
	let current = "";
	for (const ch of text) {
		if (ch === "(" || ch === "[" || ch === "{") depth++;
		if (ch === ")" || ch === "]" || ch === "}") depth--;
		if (ch === "," && depth === 0) {
			args.push(current.trim());
			current = "";
		} else current += ch;
	}
	if (current.trim()) args.push(current.trim());
	return args;
}

/**
 * The paths in `source` (a file at `file`, relative to `root`) that resolve outside `root`:
 * - relative paths (`"../x"`, or a bare `../x` in a shell script), from the file's folder (scripts: the root);
 * - `join`/`resolve` calls whose first argument is the file's folder or the repository root, followed by literals;
 * - absolute literals into the machine's work tree (the `work` folder at the filesystem root).
 */
export function boundaryViolations(root: string, file: string, source: string): BoundaryViolation[] {
	const fileDir = dirname(resolve(root, file));
	// Scripts and package.json run from the repository root; code resolves from its own folder.
	const relativeBase = /\.(ts|mts|js|mjs|cjs)$/.test(file) ? fileDir : root;
	const found: BoundaryViolation[] = [];
	const lines = source.split("\n");
	lines.forEach((text, index) => {
		const report = (path: string) => {
			if (!found.some((v) => v.line === index + 1 && v.path === path)) found.push({ file, line: index + 1, path });
		};
		// Relative paths, quoted (code) or bare (shell words).
		for (const match of text.matchAll(/(?:^|[\s=(:"'`])(\.\.?\/[^"'`$\s;)]*)/g)) {
			const path = match[1] ?? "";
			if (outside(root, resolve(relativeBase, path))) report(path);
		}
		for (const match of text.matchAll(/(["'`])(\/work\/[^"'`]*)\1/g)) report(match[2] ?? "");
		for (const match of text.matchAll(/\b(?:join|resolve)\(([^()]*(?:\([^()]*(?:\([^()]*\))?[^()]*\))?[^()]*)\)/g)) {
			const [first, ...rest] = splitArgs(match[1] ?? "");
			const base = first && FILE_DIR.test(first) ? fileDir : first && REPO_ROOT_NAME.test(first) ? root : undefined;
			if (!base) continue;
			const parts: string[] = [];
			for (const arg of rest) {
				const literal = STRING.exec(arg)?.[2];
				if (literal === undefined) break;
				parts.push(literal);
			}
			if (outside(root, resolve(base, ...parts))) report(`${first}, ${parts.join(", ")}`);
		}
	});
	return found;
}
