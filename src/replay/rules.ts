// One rule per Cursor SDK ToolType: its title word, one-line summary, Pi arguments (when a native Pi tool's schema
// fits) and result text. Pure; anything without a rule gets the generic one.
import type { NativeToolName } from "./mapping.ts";
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

export type Obj = Record<string, unknown>;
export const asObj = (value: unknown): Obj | undefined =>
	value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Obj) : undefined;
export const str = (o: Obj | undefined, key: string): string | undefined =>
	typeof o?.[key] === "string" ? (o[key] as string) : undefined;
const num = (o: Obj | undefined, key: string): number | undefined =>
	typeof o?.[key] === "number" && Number.isFinite(o[key]) ? (o[key] as number) : undefined;
const bool = (o: Obj | undefined, key: string): boolean | undefined =>
	typeof o?.[key] === "boolean" ? (o[key] as boolean) : undefined;
const arr = (o: Obj | undefined, key: string): unknown[] => (Array.isArray(o?.[key]) ? (o[key] as unknown[]) : []);

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
const PRE_BOUND = RESULT_MAX_CHARS * 4;
const firstPart = (text: string): string => (text.length > PRE_BOUND ? text.slice(0, PRE_BOUND) : text);
const lastPart = (text: string): string => (text.length > PRE_BOUND ? text.slice(-PRE_BOUND) : text);
/** Scrubbed text for the result body. */
export const clean = (env: Env, text: string): string => sanitize(text, env.secrets);
/** A scrubbed, bounded one-line summary. */
const line = (env: Env, text: string | undefined): string | undefined => {
	if (text === undefined) return undefined;
	const out = oneLine(clean(env, text));
	return out === "" ? undefined : out;
};
const path = (env: Env, p: string | undefined): string | undefined =>
	p === undefined ? undefined : clean(env, displayPath(p, env.cwd));

export interface Success {
	text: string;
	isError?: boolean;
	exitCode?: number;
	truncated?: boolean;
	diff?: string;
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

function shellText(value: Obj, env: Env): Success {
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

function grepLines(union: Obj | undefined, env: Env): string[] {
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

function lsLines(node: Obj | undefined, env: Env, depth: number, out: string[]): void {
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
function editArguments(
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
function displayDiff(edits: { oldText: string; newText: string }[]): string {
	return edits
		.map((e) =>
			[...e.oldText.split("\n").map((l) => `- ${l}`), ...e.newText.split("\n").map((l) => `+ ${l}`)].join("\n"),
		)
		.join("\n   ...\n");
}

function taskSummary(args: Obj, value: Obj | undefined, env: Env): string | undefined {
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

function stepLine(step: unknown, env: Env): string | undefined {
	const s = asObj(step);
	const message = asObj(s?.message);
	switch (str(s, "type")) {
		case "assistantMessage":
			return str(message, "text");
		case "toolCall": {
			const kind = str(message, "type") ?? "";
			const rule = RULES[kind];
			const summary = rule?.summary(asObj(message?.args) ?? {}, env);
			return `• Cursor ${rule ? labelOf(kind, rule, env) : "tool"}${summary ? `: ${summary}` : ""}`;
		}
		default:
			return undefined;
	}
}

const RULES: Record<string, Rule> = {
	shell: {
		label: "shell",
		summary: (args, env) => line(env, str(args, "command")),
		native: (args, env) => {
			const command = str(args, "command");
			// Cursor's timeout unit is undocumented; Pi's is seconds: the card leaves it out rather than guess.
			return command === undefined
				? undefined
				: { name: "bash", arguments: { command: boundArg(clean(env, command)) } };
		},
		success: (value, _args, env) => shellText(value, env),
	},
	read: {
		label: "read",
		summary: (args, env) => path(env, str(args, "path")),
		native: (args, env) => {
			const p = path(env, str(args, "path"));
			return p === undefined ? undefined : { name: "read", arguments: { path: p } };
		},
		success: (value, _args, env) => headText(clean(env, firstPart(str(value, "content") ?? "")), "(empty file)"),
	},
	grep: {
		label: "grep",
		summary: (args, env) => {
			const where = path(env, str(args, "path"));
			return line(env, `/${str(args, "pattern") ?? ""}/${where ? ` in ${where}` : ""}`);
		},
		native: (args, env) => {
			const pattern = str(args, "pattern");
			if (pattern === undefined) return undefined;
			const p = path(env, str(args, "path"));
			const glob = str(args, "glob");
			const ignoreCase = bool(args, "caseInsensitive");
			const context = num(args, "context");
			const limit = num(args, "headLimit");
			return {
				name: "grep",
				arguments: {
					pattern: boundArg(clean(env, pattern)),
					...(p !== undefined ? { path: p } : {}),
					...(glob !== undefined ? { glob: clean(env, glob) } : {}),
					...(ignoreCase !== undefined ? { ignoreCase } : {}),
					...(context !== undefined ? { context } : {}),
					...(limit !== undefined ? { limit } : {}),
				},
			};
		},
		success: (value, _args, env) => {
			const results = asObj(value.workspaceResults) ?? {};
			const lines = [...Object.values(results), value.activeEditorResult].flatMap((u) => grepLines(asObj(u), env));
			return headText(clean(env, lines.join("\n")), "No matches found");
		},
	},
	glob: {
		label: "glob",
		summary: (args, env) => {
			const where = path(env, str(args, "targetDirectory"));
			return line(env, `${str(args, "globPattern") ?? ""}${where ? ` in ${where}` : ""}`);
		},
		native: (args, env) => {
			const pattern = str(args, "globPattern");
			if (pattern === undefined) return undefined;
			const p = path(env, str(args, "targetDirectory"));
			return { name: "find", arguments: { pattern: clean(env, pattern), ...(p !== undefined ? { path: p } : {}) } };
		},
		success: (value, _args, env) => {
			const files = arr(value, "files").flatMap((f) => (typeof f === "string" ? [path(env, f) ?? f] : []));
			const body = headText(files.join("\n"), "No files found matching pattern");
			const total = num(value, "totalFiles");
			const cut = value.clientTruncated === true || value.ripgrepTruncated === true;
			if (!cut) return body;
			return {
				...body,
				text: `${body.text}\n\n[Cursor truncated the results: ${files.length} of ${total ?? "more"} files]`,
			};
		},
	},
	ls: {
		label: "ls",
		summary: (args, env) => path(env, str(args, "path")),
		native: (args, env) => {
			const p = path(env, str(args, "path"));
			return p === undefined ? undefined : { name: "ls", arguments: { path: p } };
		},
		success: (value, _args, env) => {
			const out: string[] = [];
			lsLines(asObj(value.directoryTreeRoot), env, 0, out);
			return headText(clean(env, out.join("\n")), "(empty directory)");
		},
	},
	edit: {
		label: "edit",
		summary: (args, env) => path(env, str(args, "path")),
		native: (args, env) => {
			const edit = editArguments(args, env);
			return edit ? { name: "edit", arguments: edit } : undefined;
		},
		success: (value, args, env) => {
			const added = num(value, "linesAdded");
			const removed = num(value, "linesRemoved");
			const counts = added !== undefined || removed !== undefined ? ` (+${added ?? 0} −${removed ?? 0})` : "";
			const head = `Edited ${path(env, str(args, "path")) ?? "a file"}${counts}`;
			const diffString = str(value, "diffString");
			const diff = diffString ? boundHead(clean(env, relativizeIn(diffString, env.cwd))) : undefined;
			const edit = editArguments(args, env);
			return {
				text: diff ? `${head}\n\n${diff.text}` : head,
				...(diff?.truncated ? { truncated: true } : {}),
				...(edit ? { diff: displayDiff(edit.edits) } : {}),
			};
		},
	},
	write: {
		label: "write",
		summary: (args, env) => path(env, str(args, "path")),
		native: (args, env) => {
			const p = path(env, str(args, "path"));
			const content = str(args, "fileText");
			if (p === undefined || content === undefined) return undefined;
			return { name: "write", arguments: { path: p, content: boundArg(clean(env, content)) } };
		},
		success: (value, args, env) => {
			const target = path(env, str(value, "path") ?? str(args, "path")) ?? "a file";
			const lines = num(value, "linesCreated");
			const size = num(value, "fileSize");
			const facts = [lines !== undefined ? `${lines} lines` : "", size !== undefined ? `${size} bytes` : ""]
				.filter(Boolean)
				.join(", ");
			return { text: `Wrote ${target}${facts ? ` (${facts})` : ""}` };
		},
	},
	delete: {
		label: "delete",
		summary: (args, env) => path(env, str(args, "path")),
		success: (value, args, env) => {
			const size = num(value, "fileSize");
			return {
				text: `Deleted ${path(env, str(args, "path")) ?? "a file"}${size !== undefined ? ` (${size} bytes)` : ""}`,
			};
		},
	},
	readLints: {
		label: "diagnostics",
		summary: (args, env) =>
			line(
				env,
				arr(args, "paths")
					.flatMap((p) => (typeof p === "string" ? [path(env, p) ?? p] : []))
					.join(", "),
			),
		success: (value, _args, env) => {
			const lines = arr(value, "fileDiagnostics").flatMap((f) => {
				const file = asObj(f);
				const diagnostics = arr(file, "diagnostics").map((d) => {
					const diag = asObj(d);
					const start = asObj(asObj(diag?.range)?.start);
					const at = start ? `${(num(start, "line") ?? 0) + 1}:${(num(start, "character") ?? 0) + 1} ` : "";
					const source = [str(diag, "source"), str(diag, "code")].filter(Boolean).join(" ");
					return `  ${str(diag, "severity") ?? "info"} ${at}${str(diag, "message") ?? ""}${source ? ` (${source})` : ""}`;
				});
				return [`${path(env, str(file, "path")) ?? ""}: ${diagnostics.length} diagnostics`, ...diagnostics];
			});
			const total = num(value, "totalDiagnostics") ?? 0;
			return headText(clean(env, [...lines, `${total} diagnostics in total`].join("\n")), "No diagnostics");
		},
	},
	updateTodos: {
		label: "todos",
		summary: (args, env) => {
			const todos = arr(args, "todos").map(asObj);
			const done = todos.filter((t) => str(t, "status") === "completed").length;
			return line(env, `${todos.length} todos, ${done} completed`);
		},
		success: (value, args, env) => {
			const todos = arr(value, "todos").length > 0 ? arr(value, "todos") : arr(args, "todos");
			const marks: Record<string, string> = { completed: "[x]", inProgress: "[~]", cancelled: "[-]" };
			const lines = todos.map((t) => {
				const todo = asObj(t);
				return `${marks[str(todo, "status") ?? ""] ?? "[ ]"} ${str(todo, "content") ?? ""}`;
			});
			return headText(clean(env, lines.join("\n")), "No todos");
		},
	},
	createPlan: {
		label: "plan",
		summary: (args, env) =>
			line(
				env,
				str(args, "plan")
					?.split("\n")
					.find((l) => l.trim() !== ""),
			),
		success: (_value, args, env) => headText(clean(env, (str(args, "plan") ?? "").trim()), "(empty plan)"),
	},
	task: {
		label: "subagent",
		summary: (args, env) => taskSummary(args, undefined, env),
		success: (value, args, env) => {
			const steps = arr(value, "conversationSteps")
				.map((s) => stepLine(s, env))
				.filter((s): s is string => s !== undefined && s.trim() !== "");
			const facts = [
				taskSummary(args, value, env),
				num(value, "durationMs") !== undefined ? `took ${((num(value, "durationMs") ?? 0) / 1000).toFixed(1)} s` : "",
				value.isBackground === true
					? `running in the background (${str(value, "backgroundReason") ?? "unspecified"})`
					: "",
			].filter(Boolean);
			const body = [facts.join(" · "), ...steps, str(value, "resultSuffix") ?? ""].filter((p) => p.trim() !== "");
			return headText(
				clean(env, body.join("\n\n")),
				`Cursor ${env.taskWording === "task" ? "task" : "subagent"} finished`,
			);
		},
	},
	generateImage: {
		label: "image",
		summary: (args, env) => line(env, str(args, "description")),
		// The image bytes (`imageData`) are never copied into the session.
		success: (value, args, env) => ({
			text: `Generated image ${path(env, str(value, "filePath") ?? str(args, "filePath")) ?? ""}`.trim(),
		}),
	},
	mcp: {
		label: "MCP",
		summary: (args, env) => {
			const provider = str(args, "providerIdentifier");
			const tool = str(args, "toolName");
			return line(env, provider && tool ? `${provider}/${tool}` : (tool ?? provider));
		},
		success: (value, _args, env) => {
			const parts = arr(value, "content").map((c) => {
				const item = asObj(c);
				const text = str(asObj(item?.text), "text");
				if (text !== undefined) return text;
				const image = asObj(item?.image);
				return image ? `[image${str(image, "mimeType") ? ` ${str(image, "mimeType")}` : ""}]` : "";
			});
			return { ...headText(clean(env, parts.join("\n")), "(no content)"), isError: value.isError === true };
		},
	},
	semSearch: {
		label: "semantic search",
		summary: (args, env) => line(env, str(args, "query")),
		success: (value, _args, env) =>
			headText(clean(env, relativizeIn(str(value, "results") ?? "", env.cwd)), "No results"),
	},
	recordScreen: {
		label: "screen recording",
		summary: (args, env) => line(env, str(args, "mode")?.toLowerCase().replace(/_/g, " ")),
		success: (value, args, env) => {
			const where = path(env, str(value, "path"));
			const ms = num(value, "recordingDurationMs");
			const facts = [where ? `saved ${where}` : "", ms !== undefined ? `${(ms / 1000).toFixed(1)} s` : ""];
			const text = facts.filter(Boolean).join(", ");
			return { text: text || `${str(args, "mode") ?? "recording"} done` };
		},
	},
	// Not in SDK 1.0.32's union; later SDKs report it. Shown with the generic renderer.
	computerUse: {
		label: "computerUse",
		summary: (args, env) => line(env, str(args, "action") ?? str(args, "type")),
		success: (value, _args, env) => genericText(value, env),
	},
};

function genericText(value: unknown, env: Env): Success {
	if (value === undefined || (asObj(value) && Object.keys(value as Obj).length === 0)) return { text: "Done" };
	let json: string;
	try {
		json = typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? "");
	} catch {
		json = "(unprintable result)";
	}
	return headText(clean(env, relativizeIn(json, env.cwd)), "Done");
}

function unknownRule(kind: string): Rule {
	return {
		label: kind,
		summary: () => undefined,
		success: (value, _args, env) => genericText(value, env),
	};
}

/** The rule for an SDK tool type; an unknown type (or none) gets a generic one. */
export function ruleFor(kind: string): Rule {
	return Object.hasOwn(RULES, kind) ? (RULES[kind] as Rule) : unknownRule(kind);
}

/** The SDK tool type of a call; a future kind the SDK passes through raw has none. */
export function cursorToolType(toolCall: unknown): string {
	const type = str(asObj(toolCall), "type");
	return type && /^[A-Za-z][A-Za-z0-9_-]{0,40}$/.test(type) ? type : "unknown";
}
