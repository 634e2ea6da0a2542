// `cursor-sdk.json` top-level `subagents` → the SDK's `AgentOptions.agents` (custom agent definitions). Pure.
import { createHash } from "node:crypto";
import type { ModelThinkingLevel } from "@earendil-works/pi-ai";
import { defaultVariant } from "../catalog/capabilities.ts";
import type { CatalogState } from "../catalog/state.ts";
import { matchingThinkingLevel } from "../catalog/thinking-map.ts";
import type { AgentDefinition, ModelSelection } from "../sdk/cursor-sdk.ts";
import { buildModelSelection } from "../selection.ts";

/** Our naming policy for definitions (not an SDK restriction): short, starts with a letter, no spaces. */
export const SUBAGENT_NAME = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;

const THINKING_LEVELS: readonly string[] = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];

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

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function requiredText(entry: Record<string, unknown>, field: "description" | "prompt"): string | undefined {
	const value = Object.hasOwn(entry, field) ? entry[field] : undefined;
	return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

type Checked = { ok: true; entry: SubagentEntry } | { ok: false; reason: string };

function checkEntry(name: string, raw: unknown): Checked {
	if (!SUBAGENT_NAME.test(name)) {
		return { ok: false, reason: "names start with a letter and use at most 64 letters, digits, '.', '_' or '-'" };
	}
	if (!isPlainObject(raw)) return { ok: false, reason: "must be an object with description and prompt" };
	const description = requiredText(raw, "description");
	if (description === undefined) return { ok: false, reason: "description is missing or blank" };
	const prompt = requiredText(raw, "prompt");
	if (prompt === undefined) return { ok: false, reason: "prompt is missing or blank" };
	const entry: { -readonly [K in keyof SubagentEntry]: SubagentEntry[K] } = { name, description, prompt };
	if (Object.hasOwn(raw, "model") && raw.model !== undefined) {
		if (typeof raw.model !== "string") return { ok: false, reason: 'model must be a model id or "inherit"' };
		if (raw.model.trim() !== "") entry.model = raw.model.trim();
	}
	if (Object.hasOwn(raw, "thinking") && raw.thinking !== undefined) {
		if (typeof raw.thinking !== "string" || !THINKING_LEVELS.includes(raw.thinking)) {
			return { ok: false, reason: `thinking must be one of ${THINKING_LEVELS.join(", ")}` };
		}
		entry.thinking = raw.thinking as ModelThinkingLevel;
	}
	if (Object.hasOwn(raw, "fast") && raw.fast !== undefined) {
		if (typeof raw.fast !== "boolean") return { ok: false, reason: "fast must be true or false" };
		entry.fast = raw.fast;
	}
	return { ok: true, entry };
}

/** Validates the raw `subagents` object: usable entries in name order, and the skipped ones with reasons. */
export function parseSubagents(raw: unknown): SubagentSet {
	if (!isPlainObject(raw)) return NO_SUBAGENTS;
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
		Object.defineProperty(definitions, entry.name, {
			value: definition,
			enumerable: true,
			writable: true,
			configurable: true,
		});
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
