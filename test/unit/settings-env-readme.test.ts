// README's environment variable tables are the user's reference: they must name exactly the variables the code's
// table reads, with the same defaults; and no module reads a variable except through that table.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { ENV_VARS, type EnvVar, shownDefault } from "../../src/settings/env.ts";
import { REPO_ROOT } from "../support/toolchain.ts";

interface ReadmeRow {
	readonly names: readonly string[];
	readonly shown: string;
}

/** Rows of every `| Variable | Default | Meaning |` table; `_SECONDS` after `X_MS` names `X_SECONDS`. */
function readmeRows(markdown: string): ReadmeRow[] {
	const rows: ReadmeRow[] = [];
	let inTable = false;
	for (const line of markdown.split("\n")) {
		const cells = line.split("|").map((cell) => cell.trim());
		if (!line.startsWith("|")) {
			inTable = false;
			continue;
		}
		if (cells[1] === "Variable" && cells[2] === "Default") {
			inTable = true;
			continue;
		}
		if (!inTable || /^-+$/.test(cells[1] ?? "")) continue;
		const names: string[] = [];
		for (const [, token = ""] of (cells[1] ?? "").matchAll(/`([A-Z0-9_]+)`/g)) {
			const previous = names.at(-1);
			names.push(token.startsWith("_") && previous ? previous.replace(/_[A-Z]+$/, token) : token);
		}
		rows.push({ names, shown: cells[2] ?? "" });
	}
	return rows;
}

const rows = readmeRows(readFileSync(join(REPO_ROOT, "README.md"), "utf8"));
const variables: EnvVar<unknown>[] = Object.values(ENV_VARS);
const codeDefaults = new Map<string, string>();
for (const variable of variables) {
	for (const name of [variable.name, ...(variable.also ? [variable.also.name] : [])]) {
		codeDefaults.set(name, shownDefault(variable));
	}
}
const readmeDefaults = new Map(rows.flatMap((row) => row.names.map((name) => [name, row.shown] as const)));

test("README's tables were found", () => {
	expect(rows.length).toBeGreaterThan(20);
	expect(rows.every((row) => row.names.length > 0)).toBe(true);
});

test("every variable the code reads is in README, and README lists no variable the code does not read", () => {
	const missingFromReadme = [...codeDefaults.keys()].filter((name) => !readmeDefaults.has(name));
	const unknownToCode = [...readmeDefaults.keys()].filter((name) => !codeDefaults.has(name));
	expect({ missingFromReadme, unknownToCode }).toEqual({ missingFromReadme: [], unknownToCode: [] });
});

test("README shows each variable's default as the code's table has it", () => {
	const differing = [...readmeDefaults]
		.filter(([name, shown]) => codeDefaults.has(name) && codeDefaults.get(name) !== shown)
		.map(([name, shown]) => `${name}: README "${shown}", code "${codeDefaults.get(name)}"`);
	expect(differing).toEqual([]);
});

function sourceFiles(dir: string): [string, string][] {
	return readdirSync(dir, { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
		.map((entry) => {
			const path = join(entry.parentPath, entry.name);
			return [relative(REPO_ROOT, path), readFileSync(path, "utf8")];
		});
}

test("src/ reads PI_CURSOR_*/CURSOR_* variables only through the table, and names no variable it lacks", () => {
	const known = new Set(codeDefaults.keys());
	const directReads: string[] = [];
	const unknownNames: string[] = [];
	for (const [file, source] of sourceFiles(join(REPO_ROOT, "src"))) {
		if (file === join("src", "settings", "env.ts")) continue;
		for (const match of source.matchAll(/(?:\.|\[\s*["'`])((?:PI_)?CURSOR_[A-Z0-9_]+)\b/g)) {
			directReads.push(`${file}: ${match[1]}`);
		}
		for (const [name = ""] of source.matchAll(/\bPI_CURSOR_[A-Z0-9_]*[A-Z0-9]\b/g)) {
			if (!known.has(name)) unknownNames.push(`${file}: ${name}`);
		}
	}
	expect({ directReads, unknownNames }).toEqual({ directReads: [], unknownNames: [] });
});
