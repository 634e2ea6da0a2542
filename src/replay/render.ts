// The building blocks of the replay rules (rules.ts): safe readers of the SDK's loosely typed tool values and the
// renderers that turn them into bounded, sanitized card text. Pure.
import {
	boundArg,
	boundHead,
	boundTail,
	displayPath,
	oneLine,
	RESULT_MAX_CHARS,
	relativizeIn,
	sanitize,
} from "./text.ts";
import type { NativeToolName } from "./types.ts";

export type Obj = Record<string, unknown>;
export const asObj = (value: unknown): Obj | undefined =>
	value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Obj) : undefined;
export const str = (o: Obj | undefined, key: string): string | undefined =>
	typeof o?.[key] === "string" ? (o[key] as string) : undefined;
export const num = (o: Obj | undefined, key: string): number | undefined =>
	typeof o?.[key] === "number" && Number.isFinite(o[key]) ? (o[key] as number) : undefined;
export const bool = (o: Obj | undefined, key: string): boolean | undefined =>
	typeof o?.[key] === "boolean" ? (o[key] as boolean) : undefined;
export const arr = (o: Obj | undefined, key: string): unknown[] =>
	Array.isArray(o?.[key]) ? (o[key] as unknown[]) : [];

export interface Env {
	cwd: string;
	secrets: readonly (string | undefined)[];
	liveShellOutput?: string;
	/** `PI_CURSOR_TASK_PRESENTATION=task`: Cursor's `task` calls keep the older "Cursor task" wording. */
	taskWording?: "subagent" | "task";
}

/** What a rule is called in titles: its label, except `task` under the older wording. */
export function labelOf(kind: string, rule: Rule, env: Pick<Env, "taskWording">): string {
	return kind === "task" && env.taskWording === "task" ? "task" : rule.label;
}
// Huge outputs are cut to a generous margin before scrubbing (bounded work); the real bound is applied after it, so
// a secret straddling a cut is never half-shown.
export const PRE_BOUND = RESULT_MAX_CHARS * 4;
export const firstPart = (text: string): string => (text.length > PRE_BOUND ? text.slice(0, PRE_BOUND) : text);
export const lastPart = (text: string): string => (text.length > PRE_BOUND ? text.slice(-PRE_BOUND) : text);
/** Scrubbed text for the result body. */
export const clean = (env: Env, text: string): string => sanitize(text, env.secrets);
/** A scrubbed, bounded one-line summary. */
export const line = (env: Env, text: string | undefined): string | undefined => {
	if (text === undefined) return undefined;
	const out = oneLine(clean(env, text));
	return out === "" ? undefined : out;
};
export const path = (env: Env, p: string | undefined): string | undefined =>
	p === undefined ? undefined : clean(env, displayPath(p, env.cwd));

export interface Success {
	text: string;
	isError?: boolean;
	exitCode?: number;
	truncated?: boolean;
	diff?: string;
	/** createPlan only: the plan's markdown. */
	plan?: string;
}

export interface Rule {
	/** The word after "Cursor " in titles and traces. */
	label: string;
	summary(args: Obj, env: Env): string | undefined;
	/** Pi arguments under a native name, only when they satisfy that tool's schema; else the card is neutral. */
	native?(args: Obj, env: Env): { name: NativeToolName; arguments: Obj } | undefined;
	/** Renders a successful result value. */
	success(value: Obj, args: Obj, env: Env): Success;
}

export function headText(text: string, empty: string): { text: string; truncated?: boolean } {
	if (text.trim() === "") return { text: empty };
	const bounded = boundHead(text);
	return bounded.truncated ? bounded : { text: bounded.text };
}

// --- per-tool renderers ------------------------------------------------------------------------------------

export function shellText(value: Obj, env: Env): Success {
	const stdout = clean(env, lastPart(str(value, "stdout") ?? "")).replace(/\n+$/, "");
	const stderr = clean(env, lastPart(str(value, "stderr") ?? "")).replace(/\n+$/, "");
	const exitCode = num(value, "exitCode") ?? 0;
	const signal = str(value, "signal");
	let body = [stdout, stderr ? `[stderr]\n${stderr}` : ""].filter((part) => part !== "").join("\n");
	if (body === "" && exitCode === 0 && env.liveShellOutput) body = clean(env, env.liveShellOutput).replace(/\n+$/, "");
	const bounded = boundTail(body === "" ? "(no output)" : body);
	const status = `Exit code ${exitCode}${signal ? ` (signal ${clean(env, signal)})` : ""}`;
	return {
		text: `${bounded.text}\n\n${status}`,
		isError: exitCode !== 0,
		exitCode,
		...(bounded.truncated ? { truncated: true } : {}),
	};
}

export function grepLines(union: Obj | undefined, env: Env): string[] {
	const output = asObj(union?.output);
	switch (str(union, "type")) {
		case "content":
			return arr(output, "matches").flatMap((m) => {
				const match = asObj(m);
				const file = path(env, str(match, "file")) ?? "";
				const lineNumber = num(match, "lineNumber");
				const at = lineNumber === undefined ? file : `${file}:${lineNumber}`;
				const context = (key: string) => arr(match, key).filter((c): c is string => typeof c === "string");
				return [
					...context("beforeContext").map((c) => `${file}- ${c}`),
					`${at}: ${str(match, "line") ?? ""}`,
					...context("afterContext").map((c) => `${file}- ${c}`),
				];
			});
		case "files":
			return arr(output, "files").flatMap((f) => (typeof f === "string" ? [path(env, f) ?? f] : []));
		case "count":
			return arr(output, "counts").flatMap((c) => {
				const count = asObj(c);
				return [`${path(env, str(count, "file")) ?? ""}: ${num(count, "count") ?? 0}`];
			});
		default:
			return [];
	}
}

export function lsLines(node: Obj | undefined, env: Env, depth: number, out: string[]): void {
	if (!node || out.length > 5000) return;
	const indent = "  ".repeat(depth);
	const dirs = arr(node, "childrenDirs")
		.map(asObj)
		.filter((d): d is Obj => d !== undefined)
		.sort((a, b) => (str(a, "absPath") ?? "").localeCompare(str(b, "absPath") ?? ""));
	for (const dir of dirs) {
		const abs = str(dir, "absPath") ?? "";
		out.push(`${indent}${abs.split(/[\\/]/).filter(Boolean).pop() ?? abs}/`);
		lsLines(dir, env, depth + 1, out);
	}
	const files = arr(node, "childrenFiles")
		.map((f) => str(asObj(f), "name"))
		.filter((n): n is string => n !== undefined)
		.sort((a, b) => a.localeCompare(b));
	for (const name of files) out.push(`${indent}${name}`);
}

/** Pi's edit arguments from Cursor's, only when they really describe exact replacements Pi's edit understands. */
export function editArguments(
	args: Obj,
	env: Env,
): { path: string; edits: { oldText: string; newText: string }[] } | undefined {
	const p = str(args, "path");
	if (p === undefined) return undefined;
	let edits: unknown[];
	if (Array.isArray(args.edits)) edits = args.edits;
	else if (typeof args.oldText === "string" && typeof args.newText === "string") edits = [args];
	else return undefined;
	if (edits.length === 0) return undefined;
	const out: { oldText: string; newText: string }[] = [];
	for (const edit of edits) {
		const e = asObj(edit);
		const oldText = str(e, "oldText");
		const newText = str(e, "newText");
		// Pi's edit has no replace-all: such an edit cannot be shown truthfully as a Pi edit.
		if (oldText === undefined || newText === undefined || oldText === "" || e?.replaceAll === true) return undefined;
		out.push({ oldText: boundArg(clean(env, oldText)), newText: boundArg(clean(env, newText)) });
	}
	return { path: path(env, p) ?? p, edits: out };
}

/** A diff in Pi's display format (`-`/`+` lines without numbers) for a replayed edit's card. */
export function displayDiff(edits: { oldText: string; newText: string }[]): string {
	return edits
		.map((e) =>
			[...e.oldText.split("\n").map((l) => `- ${l}`), ...e.newText.split("\n").map((l) => `+ ${l}`)].join("\n"),
		)
		.join("\n   ...\n");
}

export function taskSummary(args: Obj, value: Obj | undefined, env: Env): string | undefined {
	const subagent = asObj(args.subagentType);
	const kind = str(subagent, "kind");
	const name = str(subagent, "name");
	const id = str(value, "agentId") ?? str(args, "agentId") ?? str(args, "resume");
	const shortId = id?.replace(/^(agent-|bc-)/, "").slice(0, 8);
	const parts = [
		str(args, "description"),
		kind && kind !== "unspecified" ? (name ? `${kind}/${name}` : kind) : name,
		str(args, "model"),
		shortId,
	].filter((p): p is string => p !== undefined && p !== "");
	return line(env, parts.join(" · "));
}

export function genericText(value: unknown, env: Env): Success {
	if (value === undefined || (asObj(value) && Object.keys(value as Obj).length === 0)) return { text: "Done" };
	let json: string;
	try {
		json = typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? "");
	} catch {
		json = "(unprintable result)";
	}
	return headText(clean(env, relativizeIn(json, env.cwd)), "Done");
}
