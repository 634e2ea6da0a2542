// Text rules shared by replay cards, trace lines and lifecycle lines: scrubbing, bounding, workspace-relative paths.
import { isAbsolute, relative, sep } from "node:path";
import { redactSecrets } from "../sdk/errors.ts";

/** Bounds of one replayed result (the same order as Pi's own tools: 2000 lines / 50 KB). */
export const RESULT_MAX_LINES = 2000;
export const RESULT_MAX_CHARS = 50_000;
/** Bound of one string argument of a card (a command, a file's content). */
export const ARG_MAX_CHARS = 20_000;
/** Bound of a one-line summary or trace. */
export const LINE_MAX_CHARS = 200;

// CSI/OSC escape sequences, then any other C0/C1 control character except tab and newline.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Secrets redacted, terminal escapes and control characters removed, `\r\n` → `\n`. */
export function sanitize(text: string, secrets: readonly (string | undefined)[] = []): string {
	const plain = text.replace(/\r\n?/g, "\n").replace(ANSI, "").replace(CONTROL, "");
	return redactSecrets(plain, secrets, { content: true });
}

export interface Bounded {
	text: string;
	truncated: boolean;
}

/** Keeps the first lines/characters (file contents, search results) and says what was left out. */
export function boundHead(text: string, maxLines = RESULT_MAX_LINES, maxChars = RESULT_MAX_CHARS): Bounded {
	const lines = text.split("\n");
	if (lines.length <= maxLines && text.length <= maxChars) return { text, truncated: false };
	let kept = lines.slice(0, maxLines).join("\n");
	if (kept.length > maxChars) kept = kept.slice(0, maxChars);
	const shown = kept.split("\n").length;
	return { text: `${kept}\n\n[Showing the first ${shown} of ${lines.length} lines]`, truncated: true };
}

/** Keeps the last lines/characters (command output, where the end matters most). */
export function boundTail(text: string, maxLines = RESULT_MAX_LINES, maxChars = RESULT_MAX_CHARS): Bounded {
	const lines = text.split("\n");
	if (lines.length <= maxLines && text.length <= maxChars) return { text, truncated: false };
	let kept = lines.slice(-maxLines).join("\n");
	if (kept.length > maxChars) kept = kept.slice(kept.length - maxChars);
	const shown = kept.split("\n").length;
	return { text: `[Showing the last ${shown} of ${lines.length} lines]\n\n${kept}`, truncated: true };
}

/** Bounds one string argument without changing its type. */
export function boundArg(text: string, max = ARG_MAX_CHARS): string {
	return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Collapses whitespace to one line and bounds it (summaries, trace lines). */
export function oneLine(text: string, max = LINE_MAX_CHARS): string {
	const flat = text.replace(/\s+/g, " ").trim();
	return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A workspace path as the user knows it: relative to `cwd` when inside it (`.` for cwd itself), else unchanged. */
export function displayPath(path: string, cwd: string): string {
	if (!isAbsolute(path)) return path;
	const rel = relative(cwd, path);
	if (rel === "") return ".";
	if (rel.startsWith("..") || isAbsolute(rel)) return path;
	return sep === "/" ? rel : rel.split(sep).join("/");
}

/** Rewrites `<cwd>/` prefixes inside free text (diff headers, tool messages) to workspace-relative paths. */
export function relativizeIn(text: string, cwd: string): string {
	if (cwd.length < 2) return text;
	const prefix = cwd.endsWith(sep) ? cwd : `${cwd}${sep}`;
	return text.split(prefix).join("");
}
