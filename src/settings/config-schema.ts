// What `cursor-sdk.json` may hold, as a TypeBox schema, and how a file's text becomes settings. A partly invalid file
// keeps its valid parts and names each invalid field in one warning; such a file is never rewritten. Pure.
import { type TSchema, Type } from "typebox";
import { Value } from "typebox/value";
import { defineOwn, describeValue, isRecord } from "./plain-data.ts";

/** The validated subset of `cursor-sdk.json` this package uses. Invalid parts are left out. */
export interface CursorSdkUserConfig {
	/** Global fast defaults keyed by selected SDK model id or alias (older files may use base catalog ids). */
	readonly fastDefaults?: Readonly<Record<string, boolean>>;
	readonly local?: LocalConfig;
	/** `"local"` or `"cloud"`, raw: an invalid value fails Cursor turns closed (src/settings/runtime.ts). */
	readonly runtime?: unknown;
	/** Raw `cloud` section (user level only; validated when a cloud turn reads it, src/cloud/options.ts). */
	readonly cloud?: unknown;
	/** Raw `subagents` entries (validated per entry by settings/subagents.ts, so one bad entry spoils nothing else). */
	readonly subagents?: Readonly<Record<string, unknown>>;
}

export interface LocalConfig {
	/** Local HTTP/1.1/SSE transport default (user level only). */
	readonly useHttp1ForAgent?: boolean;
	/** Cursor's classifier-backed auto-review for local runs (user or trusted project). */
	readonly autoReview?: boolean;
	/** Cursor's local sandbox (user or trusted project). */
	readonly sandboxOptions?: { readonly enabled?: boolean };
	/** Custom root of the per-session SDK stores (user level only; validated when a turn uses it). */
	readonly storeRoot?: string;
}

/** The raw top-level JSON object handed to update mutators (unknown fields included). */
export type ConfigDocument = Record<string, unknown>;

// Every node a warning can name says what it expects. A node whose children say it too keeps its valid children
// (one warning line per invalid child); any other node is kept or dropped whole. Unknown fields are allowed.
const TRUE_OR_FALSE = "true or false";
const CONFIG_SCHEMA = Type.Object({
	fastDefaults: Type.Optional(
		Type.Record(Type.String(), Type.Boolean({ expect: TRUE_OR_FALSE }), {
			expect: "an object mapping model ids to true/false",
		}),
	),
	local: Type.Optional(
		Type.Object(
			{
				useHttp1ForAgent: Type.Optional(Type.Boolean({ expect: TRUE_OR_FALSE })),
				autoReview: Type.Optional(Type.Boolean({ expect: TRUE_OR_FALSE })),
				sandboxOptions: Type.Optional(
					Type.Object({ enabled: Type.Optional(Type.Boolean()) }, { expect: 'an object like {"enabled": true}' }),
				),
				/** A blank root counts as unset. */
				storeRoot: Type.Optional(Type.String({ expect: "an absolute directory path", blankIsUnset: true })),
			},
			{ expect: "an object" },
		),
	),
	subagents: Type.Optional(
		Type.Record(Type.String(), Type.Unknown(), { expect: "an object mapping names to definitions" }),
	),
	runtime: Type.Optional(Type.Unknown()),
	cloud: Type.Optional(Type.Unknown()),
});

interface SchemaNode {
	readonly expect?: string;
	readonly blankIsUnset?: boolean;
	readonly properties?: Readonly<Record<string, SchemaNode>>;
	readonly patternProperties?: Readonly<Record<string, SchemaNode>>;
}

/** The schema of each child `value` has (known properties of an object; every entry of a record). */
function children(node: SchemaNode, value: Record<string, unknown>): [string, SchemaNode][] {
	if (node.properties) {
		return Object.entries(node.properties).filter(([key]) => Object.hasOwn(value, key));
	}
	const entry = Object.values(node.patternProperties ?? {})[0];
	return entry ? Object.keys(value).map((key) => [key, entry]) : [];
}

function isPartial(node: SchemaNode): boolean {
	const schemas = [...Object.values(node.properties ?? {}), ...Object.values(node.patternProperties ?? {})];
	return schemas.some((child) => child.expect !== undefined);
}

/** A copy holding only what the schema knows (records have no prototype, so every key is plain data). */
function copyKnown(node: SchemaNode, value: unknown): unknown {
	if (!isRecord(value) || (!node.properties && !node.patternProperties)) return value;
	const copy: Record<string, unknown> = node.patternProperties ? Object.create(null) : {};
	for (const [key, child] of children(node, value)) defineOwn(copy, key, copyKnown(child, value[key]));
	return copy;
}

/** The valid part of `value` (`undefined` when none), with one line per invalid field in `problems`. */
function keepValid(node: SchemaNode, value: unknown, path: string, problems: string[]): unknown {
	if (node.blankIsUnset && typeof value === "string" && value.trim() === "") return undefined;
	if (isPartial(node) && isRecord(value)) {
		const kept: Record<string, unknown> = node.patternProperties ? Object.create(null) : {};
		for (const [key, child] of children(node, value)) {
			const valid = keepValid(child, value[key], path === "" ? key : `${path}.${key}`, problems);
			if (valid !== undefined) defineOwn(kept, key, valid);
		}
		return kept;
	}
	if (Value.Check(node as TSchema, value)) return copyKnown(node, value);
	problems.push(`"${path}" must be ${node.expect} (found ${describeValue(value)})`);
	return undefined;
}

/** Validates a parsed top-level object, returning the usable subset plus one line per problem. */
export function validateDocument(document: ConfigDocument): { config: CursorSdkUserConfig; problems: string[] } {
	const problems: string[] = [];
	const config = keepValid(CONFIG_SCHEMA as SchemaNode, document, "", problems) as CursorSdkUserConfig;
	return { config, problems };
}

export interface ParsedConfigText {
	readonly config: CursorSdkUserConfig;
	/** Present only when the whole file is usable (valid JSON object with correctly typed known fields). */
	readonly document?: ConfigDocument;
	readonly warning?: string;
}

export const NOT_REWRITTEN = "pi-cursor-sdk will not save settings to this file until it is fixed.";
const MAX_LISTED_PROBLEMS = 6;

function invalidValuesWarning(filePath: string, problems: readonly string[]): string {
	const listed = problems.slice(0, MAX_LISTED_PROBLEMS).join("; ");
	const more = problems.length > MAX_LISTED_PROBLEMS ? `; and ${problems.length - MAX_LISTED_PROBLEMS} more` : "";
	return `Cursor settings file ${filePath} has invalid values, which are ignored: ${listed}${more}. Fix or remove them; ${NOT_REWRITTEN}`;
}

/**
 * Parses the text of a `cursor-sdk.json`. Whitespace-only text is an empty config. Never throws; a file that is not
 * valid JSON, not an object, or has wrongly typed known fields yields exactly one warning and no `document`.
 */
export function parseUserConfigText(text: string, filePath: string): ParsedConfigText {
	const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
	if (body.trim() === "") return { config: {}, document: {} };
	let parsed: unknown;
	try {
		parsed = JSON.parse(body);
	} catch (error) {
		const detail = error instanceof Error ? error.message : String(error);
		return {
			config: {},
			warning: `Cursor settings file ${filePath} is not valid JSON (${detail}) and is ignored. Fix the JSON or delete the file; ${NOT_REWRITTEN}`,
		};
	}
	if (!isRecord(parsed)) {
		return {
			config: {},
			warning: `Cursor settings file ${filePath} must contain a JSON object ({ ... }) but contains ${describeValue(parsed)}, so it is ignored. Replace its content with an object or delete the file; ${NOT_REWRITTEN}`,
		};
	}
	const { config, problems } = validateDocument(parsed);
	if (problems.length > 0) return { config, warning: invalidValuesWarning(filePath, problems) };
	return { config, document: parsed };
}
