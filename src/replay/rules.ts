// One rule per Cursor SDK ToolType: its title word, one-line summary, Pi arguments (when a native Pi tool's schema
// fits) and result text. Pure; anything without a rule gets the generic one.

import { parsePlan, planCardText } from "../plan/card.ts";
import {
	arr,
	asObj,
	bool,
	clean,
	displayDiff,
	type Env,
	editArguments,
	firstPart,
	genericText,
	grepLines,
	headText,
	labelOf,
	line,
	lsLines,
	num,
	type Obj,
	path,
	type Rule,
	shellText,
	str,
	taskSummary,
} from "./render.ts";
import { boundArg, boundHead, relativizeIn } from "./text.ts";

/** A call whose only argument is a path: its summary, and the native Pi call with that path. */
const pathCall = (name: "read" | "ls"): Pick<Rule, "summary" | "native"> => ({
	summary: (args, env) => path(env, str(args, "path")),
	native: (args, env) => {
		const p = path(env, str(args, "path"));
		return p === undefined ? undefined : { name, arguments: { path: p } };
	},
});

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
		...pathCall("read"),
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
		...pathCall("ls"),
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
		summary: (args, env) => {
			const plan = planText(args, env);
			return plan ? line(env, parsePlan(plan).title) : undefined;
		},
		// The card reads as title (its header), steps and files; `plan` keeps the markdown for /cursor-plan.
		success: (_value, args, env) => {
			const plan = planText(args, env);
			return plan ? { ...headText(planCardText(parsePlan(plan)), "(empty plan)"), plan } : { text: "(empty plan)" };
		},
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

/** Cursor's plan markdown: scrubbed, workspace-relative, bounded. */
function planText(args: Obj, env: Env): string {
	return boundHead(clean(env, relativizeIn(firstPart(str(args, "plan") ?? ""), env.cwd)).trim()).text;
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
