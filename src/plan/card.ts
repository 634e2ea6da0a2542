// Cursor's plan as a readable card: its title, its steps and the files it names, each shown once, read from the
// plan's markdown (the SDK reports a plan as one markdown string; Cursor may put `name:`/`todos:` front matter first).
// Pure.

/** A plan as the user reads it. */
export interface PlanCard {
	title: string;
	/** The numbered steps (or to-dos), one line each; empty when the plan has none. */
	steps: string[];
	/** Workspace files the plan names, in order of first mention. */
	files: string[];
	/** The whole plan as Cursor wrote it. */
	text: string;
	/** The plan as the card shows it: without its front matter and without the heading that is its title. */
	body: string;
	/** True when the steps are the front matter's to-dos, which the body does not show. */
	stepsFromTodos: boolean;
}

const MAX_STEPS = 30;
const MAX_FILES = 20;
const MAX_LINE = 160;

/** File extensions a backticked word must end with to count as a file (a bare `process.env` is not one). */
const FILE_EXTENSIONS = new Set(
	(
		"ts tsx mts cts js jsx mjs cjs json jsonc md mdx txt py rb go rs java kt kts swift c h cc cpp hpp cs php " +
		"css scss sass less html htm vue svelte astro yml yaml toml ini cfg conf sh bash zsh fish sql graphql proto " +
		"xml gradle lock example dockerfile tf lua dart ex exs erl scala clj r jl zig nim"
	).split(" "),
);

function bound(text: string, max = MAX_LINE): string {
	const flat = text.replace(/\s+/g, " ").trim();
	return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Markdown emphasis and link syntax dropped from one line (the words stay). */
function plain(line: string): string {
	return line
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
		.replace(/(\*\*|__)(.+?)\1/g, "$2")
		.replace(/(^|\W)[*_](\S.*?)[*_](?=\W|$)/g, "$1$2");
}

const unquote = (value: string) => value.trim().replace(/^(["'])(.*)\1$/, "$2");

/** `---` front matter: its `name`, its to-do contents, and the body after it. */
function frontMatter(text: string): { name?: string; todos: string[]; body: string } {
	const match = /^---[ \t]*\n([\s\S]*?)\n---[ \t]*(?:\n|$)/.exec(text);
	if (!match) return { todos: [], body: text };
	const yaml = match[1] ?? "";
	const name = /^name:[ \t]*(.+)$/m.exec(yaml)?.[1];
	const todos = [...yaml.matchAll(/^[ \t]*(?:-[ \t]+)?content:[ \t]*(.+)$/gm)].map((m) => unquote(m[1] ?? ""));
	return { ...(name ? { name: unquote(name) } : {}), todos: todos.filter(Boolean), body: text.slice(match[0].length) };
}

const HEADING = /^#{1,6}\s+(.+?)\s*#*\s*$/;

function titleOf(lines: readonly string[]): string | undefined {
	for (const line of lines) {
		const heading = HEADING.exec(line);
		if (heading?.[1]) return heading[1];
	}
	const first = lines.find((line) => line.trim() !== "");
	return first?.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "");
}

/** The body without its first line when that line is a heading naming the title (the card's header shows it). */
function withoutTitleHeading(body: string, title: string): string {
	const lines = body.trim().split("\n");
	const heading = HEADING.exec(lines[0] ?? "")?.[1];
	return heading !== undefined && bound(plain(heading)) === title ? lines.slice(1).join("\n").trim() : body.trim();
}

/** Numbered items, else checkbox items, else numbered headings (`### 1. Update the parser`). */
function stepsOf(lines: readonly string[]): string[] {
	const numbered = lines.flatMap((line) => /^ ?\d+[.)]\s+(.+)$/.exec(line)?.[1] ?? []);
	if (numbered.length > 0) return numbered;
	const boxes = lines.flatMap((line) => /^\s*[-*+]\s+\[[ xX]\]\s+(.+)$/.exec(line)?.[1] ?? []);
	if (boxes.length > 0) return boxes;
	return lines.flatMap((line) => /^#{2,6}\s+(?:Step\s+)?\d+[.):]?\s+(.+)$/i.exec(line)?.[1] ?? []);
}

function isFile(word: string): boolean {
	if (/^[a-z][a-z0-9+.-]*:\/\//i.test(word) || /\s/.test(word) || word.startsWith("-")) return false;
	const last = word.split("/").pop() ?? "";
	const dot = last.lastIndexOf(".");
	if (dot <= 0) return false;
	return FILE_EXTENSIONS.has(last.slice(dot + 1).toLowerCase()) && /^[\w@~.\-/+]+$/.test(word);
}

/** Backticked paths and link targets, without `:line` / `#L12` suffixes, once each. */
function filesOf(body: string): string[] {
	const words = [
		...[...body.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? ""),
		...[...body.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? ""),
	];
	const files = words
		.map((word) => word.trim().replace(/(?::\d+(?:[-:]\d+)*|#L\d+(?:-L?\d+)?)$/, ""))
		.filter(isFile)
		.map((word) => word.replace(/^\.\//, ""));
	return [...new Set(files)].slice(0, MAX_FILES);
}

/** The lines outside fenced code blocks (a numbered line in a code sample is not a step). */
function proseLines(body: string): string[] {
	const lines: string[] = [];
	let fenced = false;
	for (const line of body.split("\n")) {
		if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
		else if (!fenced) lines.push(line);
	}
	return lines;
}

/** Reads the card out of a plan's markdown (scrubbed and workspace-relative already). */
export function parsePlan(markdown: string): PlanCard {
	const text = markdown.trim();
	const { name, todos, body } = frontMatter(text);
	const lines = proseLines(body);
	const title = bound(plain(name ?? titleOf(lines) ?? "")) || "Plan";
	const steps = (todos.length > 0 ? todos : stepsOf(lines))
		.map((step) => bound(plain(step)))
		.filter(Boolean)
		.slice(0, MAX_STEPS);
	const shown = withoutTitleHeading(body, title);
	return { title, steps, files: filesOf(body), text, body: shown, stepsFromTodos: todos.length > 0 };
}

/**
 * The card's body, each part once: the front matter's to-dos as numbered steps (the plan's own numbered steps are
 * in its text), the plan as written below its title, then the files it names.
 */
export function planCardText(card: PlanCard): string {
	const parts = [
		card.stepsFromTodos ? card.steps.map((step, i) => `${i + 1}. ${step}`).join("\n") : "",
		card.body,
		card.files.length > 0 ? `Files: ${card.files.join(", ")}` : "",
	].filter((part) => part !== "");
	return parts.length > 0 ? parts.join("\n\n") : card.text;
}
