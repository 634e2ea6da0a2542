// Generates the bundled offline catalog from the captured data in data/:
//   src/catalog/fallback-models.generated.ts   (sanitized Cursor.models.list() items)
//   src/catalog/context-windows.generated.ts   (observed default/non-Max context windows)
//
//   bun build/generate-catalog.ts [--data <dir>] [--out <dir>] [--check]
//
// --data   directory holding cursor-model-catalog.json and cursor-context-windows.json
//          (default: <repo>/data)
// --out    directory to write to / compare against (default: <repo>/src/catalog)
// --check  byte-compare instead of writing; exit 1 when a file is missing or stale
//
// Output is deterministic: no timestamps, only the capture dates recorded in the data.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checkContextWindowTable } from "../src/catalog/context.ts";
import { buildCatalog } from "../src/catalog/rows.ts";
import { sanitizeCatalog, sanitizeContextWindows } from "../src/catalog/sanitize.ts";
import type { CatalogItem } from "../src/catalog/types.ts";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CATALOG_FILE = "cursor-model-catalog.json";
const CONTEXT_WINDOWS_FILE = "cursor-context-windows.json";
const MODELS_OUTPUT = "fallback-models.generated.ts";
const WINDOWS_OUTPUT = "context-windows.generated.ts";
const USAGE = "usage: bun build/generate-catalog.ts [--data <dir>] [--out <dir>] [--check]";
/** Biome counts a tab as this many columns against the 120-column line width. */
const TAB_WIDTH = 2;
const LINE_WIDTH = 120;

interface Options {
	readonly dataDir: string;
	readonly outDir: string;
	readonly check: boolean;
}

function main(argv: readonly string[]): number {
	const options = parseArgs(argv);
	if (typeof options === "string") {
		console.error(options);
		console.error(USAGE);
		return 2;
	}

	const catalogJson = readJson(join(options.dataDir, CATALOG_FILE));
	const windowsJson = readJson(join(options.dataDir, CONTEXT_WINDOWS_FILE));
	const models = sanitizeCatalog(arrayField(catalogJson, "models", CATALOG_FILE));
	const sdkVersion = stringField(catalogJson, "sdkVersion", CATALOG_FILE);
	const catalogDate = captureDate(catalogJson, CATALOG_FILE);
	const windowsDate = captureDate(windowsJson, CONTEXT_WINDOWS_FILE);
	const windows = sanitizeContextWindows(recordField(windowsJson, "contextWindows", CONTEXT_WINDOWS_FILE));

	const declaredCount = (catalogJson as { modelCount?: unknown }).modelCount;
	if (typeof declaredCount === "number" && declaredCount !== models.length) {
		console.error(`${CATALOG_FILE}: modelCount says ${declaredCount} but ${models.length} models are valid`);
		return 1;
	}

	// Keep only windows for current selectable ids; equivalent selections must agree.
	const { meta } = buildCatalog(models, windows);
	const report = checkContextWindowTable(windows, [...meta.values()]);
	if (report.conflicts.length > 0) {
		for (const group of report.conflicts) {
			console.error(`conflicting context windows: ${group.map((entry) => `${entry.key}=${entry.value}`).join(", ")}`);
		}
		return 1;
	}
	for (const key of report.unknownKeys) {
		console.error(`omitting context window for ${key}: not a current selectable model id`);
		delete windows[key];
	}

	const outputs = new Map([
		[MODELS_OUTPUT, renderModels(models, sdkVersion, catalogDate)],
		[WINDOWS_OUTPUT, renderWindows(windows, windowsDate, sdkVersion, models.length)],
	]);

	if (options.check) {
		const stale = [...outputs].filter(([name, text]) => {
			const path = join(options.outDir, name);
			return !existsSync(path) || readFileSync(path, "utf8") !== text;
		});
		for (const [name] of stale) {
			console.error(`${display(join(options.outDir, name))} is stale; run: bun build/generate-catalog.ts`);
		}
		if (stale.length > 0) return 1;
		console.log(`catalog up to date: ${models.length} models, ${Object.keys(windows).length} context windows`);
		return 0;
	}

	mkdirSync(options.outDir, { recursive: true });
	for (const [name, text] of outputs) writeFileSync(join(options.outDir, name), text);
	console.log(`wrote ${models.length} models (@cursor/sdk ${sdkVersion}, ${catalogDate}):`);
	for (const item of models) console.log(`  ${item.id}`);
	console.log(`wrote ${Object.keys(windows).length} context windows (${windowsDate}) to ${display(options.outDir)}`);
	return 0;
}

function parseArgs(argv: readonly string[]): Options | string {
	let dataDir = join(REPO_ROOT, "data");
	let outDir = join(REPO_ROOT, "src", "catalog");
	let check = false;
	for (let index = 0; index < argv.length; index++) {
		const arg = argv[index];
		if (arg === "--check") check = true;
		else if (arg === "--data" || arg === "--out") {
			const value = argv[++index];
			if (value === undefined || value.startsWith("--")) return `${arg} needs a directory`;
			if (arg === "--data") dataDir = resolve(value);
			else outDir = resolve(value);
		} else return `unknown argument: ${arg}`;
	}
	return { dataDir, outDir, check };
}

function renderModels(models: readonly CatalogItem[], sdkVersion: string, capturedOn: string): string {
	return [
		"// Generated by build/generate-catalog.ts. Do not edit; regenerate with `bun build/generate-catalog.ts`.",
		`// Source: Cursor.models.list() captured with @cursor/sdk ${sdkVersion} on ${capturedOn}; ${models.length} models.`,
		"// Sanitized: id, displayName, description, aliases (deduplicated), parameters, variants; sorted by id.",
		'import type { CatalogItem } from "./types.ts";',
		"",
		`export const FALLBACK_CATALOG_SDK_VERSION = ${JSON.stringify(sdkVersion)};`,
		`export const FALLBACK_CATALOG_CAPTURED_ON = ${JSON.stringify(capturedOn)};`,
		`export const FALLBACK_CATALOG_MODEL_COUNT = ${models.length};`,
		"",
		// One JSON string rather than an object literal: Pi's loader transpiles the bundle with Babel on first load, and
		// a string is one token where the literal is thousands of nodes (JSON.parse is also faster to evaluate).
		"export const FALLBACK_MODELS: readonly CatalogItem[] = JSON.parse(",
		`\t'${JSON.stringify(models).replaceAll("\\", "\\\\").replaceAll("'", "\\'")}',`,
		");",
		"",
	].join("\n");
}

function renderWindows(
	windows: Readonly<Record<string, number>>,
	capturedOn: string,
	sdkVersion: string,
	modelCount: number,
): string {
	const count = Object.keys(windows).length;
	return [
		"// Generated by build/generate-catalog.ts. Do not edit; regenerate with `bun build/generate-catalog.ts`.",
		`// Source: default (non-Max) context windows observed from Cursor SDK checkpoints, captured on ${capturedOn};`,
		`// ${count} entries, validated against the @cursor/sdk ${sdkVersion} catalog (${modelCount} models).`,
		"// Keys are selectable Pi model ids; `default` covers models nothing else does.",
		'import type { ContextWindowTable } from "./types.ts";',
		"",
		`export const CONTEXT_WINDOWS_CAPTURED_ON = ${JSON.stringify(capturedOn)};`,
		"",
		`export const FALLBACK_CONTEXT_WINDOWS: ContextWindowTable = ${literal(windows, 0, 0)};`,
		"",
	].join("\n");
}

/**
 * A TypeScript literal laid out the way Biome formats it, so `biome check` accepts the output unchanged:
 * objects whose values are all primitives go on one line when they fit, other objects are expanded; arrays go on
 * one line when they fit unless they hold several multi-property objects (Biome always breaks those).
 * `column` is where the literal starts on its line.
 */
function literal(value: unknown, depth: number, column: number): string {
	if (Array.isArray(value)) return arrayLiteral(value, depth, column);
	if (typeof value === "object" && value !== null)
		return objectLiteral(value as Record<string, unknown>, depth, column);
	return JSON.stringify(value);
}

function arrayLiteral(items: readonly unknown[], depth: number, column: number): string {
	if (items.length === 0) return "[]";
	const forceBreak = items.length > 1 && items.every((item) => isObject(item) && Object.keys(item).length > 1);
	if (!forceBreak && items.every(isFlat)) {
		const inline = `[${items.map((item) => literal(item, depth, 0)).join(", ")}]`;
		if (fits(column, inline, 1)) return inline;
	}
	const inner = indent(depth + 1);
	const lines = items.map((item) => `${inner}${literal(item, depth + 1, width(inner))},`);
	return `[\n${lines.join("\n")}\n${indent(depth)}]`;
}

function objectLiteral(record: Record<string, unknown>, depth: number, column: number): string {
	const entries = Object.entries(record).filter(([, value]) => value !== undefined);
	if (entries.length === 0) return "{}";
	if (entries.every(([, value]) => !isObject(value) && !Array.isArray(value))) {
		const inline = `{ ${entries.map(([key, value]) => `${propertyKey(key)}: ${JSON.stringify(value)}`).join(", ")} }`;
		if (fits(column, inline, 1)) return inline;
	}
	const inner = indent(depth + 1);
	const lines = entries.map(([key, value]) => {
		const prefix = `${inner}${propertyKey(key)}: `;
		return `${prefix}${literal(value, depth + 1, width(prefix))},`;
	});
	return `{\n${lines.join("\n")}\n${indent(depth)}}`;
}

/** Flat values may share a line: primitives and objects of primitives. */
function isFlat(value: unknown): boolean {
	if (Array.isArray(value)) return false;
	if (!isObject(value)) return true;
	return Object.values(value).every((entry) => !isObject(entry) && !Array.isArray(entry));
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function propertyKey(key: string): string {
	return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key);
}

/** Whether `text` fits on a line that starts at `column` and ends with `trailing` more characters (`,` or `;`). */
function fits(column: number, text: string, trailing: number): boolean {
	return column + text.length + trailing <= LINE_WIDTH;
}

function indent(depth: number): string {
	return "\t".repeat(depth);
}

function width(prefix: string): number {
	return prefix.replace(/\t/g, " ".repeat(TAB_WIDTH)).length;
}

function readJson(path: string): unknown {
	if (!existsSync(path)) throw new Error(`missing ${path} (pass --data <dir>)`);
	return JSON.parse(readFileSync(path, "utf8"));
}

function arrayField(json: unknown, field: string, file: string): unknown[] {
	const value = (json as Record<string, unknown> | null)?.[field];
	if (!Array.isArray(value)) throw new Error(`${file}: "${field}" must be an array`);
	return value;
}

function recordField(json: unknown, field: string, file: string): Record<string, unknown> {
	const value = (json as Record<string, unknown> | null)?.[field];
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		throw new Error(`${file}: "${field}" must be an object`);
	}
	return value as Record<string, unknown>;
}

function stringField(json: unknown, field: string, file: string): string {
	const value = (json as Record<string, unknown> | null)?.[field];
	if (typeof value !== "string" || value.length === 0) throw new Error(`${file}: "${field}" must be a string`);
	return value;
}

/** `capturedOn`, else `generatedOn`, else the first ISO date in `description`. */
function captureDate(json: unknown, file: string): string {
	const record = (json ?? {}) as Record<string, unknown>;
	for (const field of ["capturedOn", "generatedOn"]) {
		const value = record[field];
		if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
	}
	const match = typeof record.description === "string" ? /\b\d{4}-\d{2}-\d{2}\b/.exec(record.description) : null;
	if (match === null) throw new Error(`${file}: no capture date (capturedOn, generatedOn or a date in description)`);
	return match[0];
}

function display(path: string): string {
	const rel = relative(process.cwd(), path);
	return rel.length > 0 && !rel.startsWith("..") ? rel : path;
}

try {
	process.exitCode = main(process.argv.slice(2));
} catch (error) {
	console.error(`generate-catalog: ${error instanceof Error ? error.message : String(error)}`);
	process.exitCode = 1;
}
