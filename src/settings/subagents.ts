// `cursor-sdk.json` top-level `subagents` → the SDK's `AgentOptions.agents` (custom agent definitions). Pure.
import { createHash } from "node:crypto";
import type { ModelThinkingLevel } from "@earendil-works/pi-ai";
import { type TSchema, Type } from "typebox";
import { Value } from "typebox/value";
import { defaultVariant } from "../catalog/capabilities.ts";
import type { CatalogState } from "../catalog/state.ts";
import { matchingThinkingLevel, PI_THINKING_LEVELS } from "../catalog/thinking-map.ts";
import type { AgentDefinition, ModelSelection } from "../sdk/cursor-sdk.ts";
import { buildModelSelection } from "../selection.ts";
import { defineOwn, isRecord } from "./plain-data.ts";

/** Our naming policy for definitions (not an SDK restriction): short, starts with a letter, no spaces. */
export const SUBAGENT_NAME = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;

// One entry; each field says why an entry that fails it is skipped (the first failing field, in this order, is named).
const NON_BLANK = "\\S";
const ENTRY_FIELDS = {
	description: Type.String({ pattern: NON_BLANK, reason: "description is missing or blank" }),
	prompt: Type.String({ pattern: NON_BLANK, reason: "prompt is missing or blank" }),
	model: Type.Optional(Type.String({ reason: 'model must be a model id or "inherit"' })),
	thinking: Type.Optional(
		Type.Union(
			PI_THINKING_LEVELS.map((level) => Type.Literal(level)),
			{ reason: `thinking must be one of ${PI_THINKING_LEVELS.join(", ")}` },
		),
	),
	fast: Type.Optional(Type.Boolean({ reason: "fast must be true or false" })),
};
const ENTRY = Type.Object(ENTRY_FIELDS);
const NOT_AN_ENTRY = "must be an object with description and prompt";

/** Why an object that is not a usable entry is skipped: its first failing field. */
function skipReason(raw: Record<string, unknown>): string {
	const required: readonly string[] = ENTRY.required;
	for (const [key, field] of Object.entries(ENTRY.properties) as [string, TSchema & { reason?: string }][]) {
		const fails = Object.hasOwn(raw, key) ? !Value.Check(field, raw[key]) : required.includes(key);
		if (fails && field.reason) return field.reason;
	}
	return NOT_AN_ENTRY;
}

/** One usable entry, validated and trimmed; fields the extension does not know are gone. */
export interface SubagentEntry {
	readonly name: string;
	readonly description: string;
	readonly prompt: string;
	/** A Pi model id of the `cursor` provider (`composer-2`, `gpt-5.5@1m`, `grok-4.6:slow`), or `inherit`. */
	readonly model?: string;
	readonly thinking?: ModelThinkingLevel;
	readonly fast?: boolean;
}

export interface SubagentSet {
	readonly entries: readonly SubagentEntry[];
	/** Entries that were left out, with the reason (for one warning). */
	readonly skipped: readonly { readonly name: string; readonly reason: string }[];
}

export const NO_SUBAGENTS: SubagentSet = { entries: [], skipped: [] };

type Checked = { ok: true; entry: SubagentEntry } | { ok: false; reason: string };

function checkEntry(name: string, raw: unknown): Checked {
	if (!SUBAGENT_NAME.test(name)) {
		return { ok: false, reason: "names start with a letter and use at most 64 letters, digits, '.', '_' or '-'" };
	}
	if (!isRecord(raw)) return { ok: false, reason: NOT_AN_ENTRY };
	if (!Value.Check(ENTRY, raw)) return { ok: false, reason: skipReason(raw) };
	const entry: { -readonly [K in keyof SubagentEntry]: SubagentEntry[K] } = {
		name,
		description: raw.description.trim(),
		prompt: raw.prompt.trim(),
	};
	const model = raw.model?.trim();
	if (model) entry.model = model;
	if (raw.thinking !== undefined) entry.thinking = raw.thinking;
	if (raw.fast !== undefined) entry.fast = raw.fast;
	return { ok: true, entry };
}

/** Validates the raw `subagents` object: usable entries in name order, and the skipped ones with reasons. */
export function parseSubagents(raw: unknown): SubagentSet {
	if (!isRecord(raw)) return NO_SUBAGENTS;
	const entries: SubagentEntry[] = [];
	const skipped: { name: string; reason: string }[] = [];
	for (const name of Object.keys(raw).sort()) {
		const checked = checkEntry(name, raw[name]);
		if (checked.ok) entries.push(checked.entry);
		else skipped.push({ name, reason: checked.reason });
	}
	return { entries, skipped };
}

/** A usable (trusted) project set replaces the user set; an empty or all-invalid project set does not. */
export function effectiveSubagents(project: SubagentSet | undefined, user: SubagentSet): SubagentSet {
	return project && project.entries.length > 0 ? project : user;
}

/** One warning naming every skipped entry, or `undefined` when none was skipped. */
export function subagentsWarning(set: SubagentSet, filePath: string): string | undefined {
	if (set.skipped.length === 0) return undefined;
	const listed = set.skipped.map((s) => `"${s.name}" (${s.reason})`).join("; ");
	const noun = set.skipped.length === 1 ? "entry" : "entries";
	return `Cursor subagents in ${filePath}: skipped ${set.skipped.length} unusable ${noun}: ${listed}. Each needs a non-blank description and prompt.`;
}

/**
 * The selection of an explicit subagent model (`thinking`/`fast` as the entry gives them), or `undefined` when the
 * id is not in the catalog (it is then sent as a bare id).
 */
export type SubagentModelResolver = (
	modelId: string,
	thinking: ModelThinkingLevel | undefined,
	fast: boolean | undefined,
) => ModelSelection | undefined;

/**
 * The SDK definitions of a set. Omitted model stays absent and `inherit` stays literal (the SDK makes both inherit
 * the parent's model; thinking and fast cannot override that). The record has no prototype, so names such as
 * `constructor` are plain data.
 */
export function buildSubagentDefinitions(
	set: SubagentSet,
	resolveModel: SubagentModelResolver,
): Record<string, AgentDefinition> {
	const definitions = Object.create(null) as Record<string, AgentDefinition>;
	for (const entry of set.entries) {
		const definition: AgentDefinition = { description: entry.description, prompt: entry.prompt };
		if (entry.model === "inherit") definition.model = "inherit";
		else if (entry.model !== undefined) {
			definition.model = resolveModel(entry.model, entry.thinking, entry.fast) ?? { id: entry.model };
		}
		defineOwn(definitions, entry.name, definition);
	}
	return definitions;
}

/**
 * Order-independent identity of a definition set (names sorted, fixed field order, params sorted), or `undefined`
 * for no definitions: it joins the pool key only when there is something to identify.
 */
export function definitionsDigest(definitions: Readonly<Record<string, AgentDefinition>>): string | undefined {
	const names = Object.keys(definitions).sort();
	if (names.length === 0) return undefined;
	const canonical = names.map((name) => {
		const definition = definitions[name] as AgentDefinition;
		const model = definition.model;
		const modelShape =
			model === undefined || model === "inherit"
				? (model ?? null)
				: [
						model.id,
						[...(model.params ?? [])]
							.map((p) => [p.id, p.value])
							.sort((a, b) => (a[0] === b[0] ? 0 : (a[0] ?? "") < (b[0] ?? "") ? -1 : 1)),
					];
		return [name, definition.description, definition.prompt, modelShape];
	});
	return createHash("sha256").update(JSON.stringify(canonical)).digest("hex").slice(0, 32);
}

/**
 * Resolves explicit subagent models through the Pi catalog rows (ids, aliases, `@context`, `:fast`/`:slow`; a
 * `cursor/` prefix is accepted). A row's forced fast wins over the entry's `fast`; an omitted `thinking` keeps the
 * catalog default's level (the parent's thinking level is not inherited).
 */
export function catalogSubagentResolver(catalog: CatalogState): SubagentModelResolver {
	return (modelId, thinking, fast) => {
		const row = catalog.resolve(modelId.replace(/^cursor\//, ""));
		if (!row) return undefined;
		const level = thinking ?? matchingThinkingLevel(row.meta.capabilities, defaultVariant(row.item)?.params ?? []);
		return buildModelSelection(row.meta, row.item, level, fast);
	};
}
