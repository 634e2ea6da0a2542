import type { ContextWindowTable } from "./types.ts";

/** Used only when a context-window table has no `default` entry. */
export const FALLBACK_DEFAULT_CONTEXT_WINDOW = 200_000;

/** Output-token ceiling: the SDK exposes no output limit, so stay well inside every window. */
const MAX_OUTPUT_TOKENS = 32_000;

/** A registered Pi id and the Cursor selection it stands for. */
export interface SelectableId {
	readonly id: string;
	readonly baseId: string;
	readonly context: string | undefined;
}

/** `272k` → 272000, `1m` → 1000000, `1.5m` → 1500000; anything else → undefined. */
export function parseContextLabel(value: string): number | undefined {
	const match = /^(\d+(?:\.\d+)?)([km])$/i.exec(value.trim());
	if (match === null) return undefined;
	const scale = match[2]?.toLowerCase() === "m" ? 1_000_000 : 1_000;
	const tokens = Math.round(Number(match[1]) * scale);
	return tokens > 0 ? tokens : undefined;
}

/** Conservative `maxTokens`: a quarter of the window, capped at 32000. */
export function conservativeMaxTokens(contextWindow: number): number {
	return Math.min(MAX_OUTPUT_TOKENS, Math.floor(contextWindow / 4));
}

/**
 * Selections that reach the same Cursor model and context are equivalent: aliases and `:fast`/`:slow` change
 * neither the model nor its window.
 */
function equivalenceKey(baseId: string, context: string | undefined): string {
	return JSON.stringify([baseId, context ?? null]);
}

/** The table's own entry for `id` (never an inherited member such as `toString`). */
function entryOf(table: ContextWindowTable, id: string): number | undefined {
	return Object.hasOwn(table, id) ? table[id] : undefined;
}

/** Observed windows grouped by equivalent selection, for table keys that name a current selectable id. */
export function groupObservations(
	table: ContextWindowTable,
	selectables: readonly SelectableId[],
): ReadonlyMap<string, readonly number[]> {
	const groups = new Map<string, number[]>();
	for (const selectable of selectables) {
		const observed = entryOf(table, selectable.id);
		if (selectable.id === "default" || observed === undefined) continue;
		const key = equivalenceKey(selectable.baseId, selectable.context);
		groups.set(key, [...(groups.get(key) ?? []), observed]);
	}
	return groups;
}

/**
 * Pi `contextWindow` for a non-virtual row, in order of preference:
 * 1. the observation for this exact id;
 * 2. the smallest observation for an equivalent selection (another alias, or a `:fast`/`:slow` key);
 * 3. the catalog context label (`272k` → 272000);
 * 4. the observation for the base id;
 * 5. the table's `default`.
 * Observations record default/non-Max limits and win over the label even when lower (`claude-opus-4-8@1m` → 300000).
 */
export function resolveContextWindow(
	table: ContextWindowTable,
	observations: ReadonlyMap<string, readonly number[]>,
	row: SelectableId,
): number {
	const exact = row.id === "default" ? undefined : entryOf(table, row.id);
	if (exact !== undefined) return exact;
	const equivalent = observations.get(equivalenceKey(row.baseId, row.context));
	if (equivalent !== undefined && equivalent.length > 0) return Math.min(...equivalent);
	const label = row.context === undefined ? undefined : parseContextLabel(row.context);
	if (label !== undefined) return label;
	return entryOf(table, row.baseId) ?? entryOf(table, "default") ?? FALLBACK_DEFAULT_CONTEXT_WINDOW;
}

/** Problems with a context-window table against the current catalog, for the generator. */
export interface ContextWindowReport {
	/** Keys (other than `default`) that name no current selectable id. */
	readonly unknownKeys: readonly string[];
	/** Groups of keys for equivalent selections that disagree, each with its values. */
	readonly conflicts: readonly (readonly { readonly key: string; readonly value: number }[])[];
}

export function checkContextWindowTable(
	table: ContextWindowTable,
	selectables: readonly SelectableId[],
): ContextWindowReport {
	const byId = new Map(selectables.map((selectable) => [selectable.id, selectable]));
	const unknownKeys = Object.keys(table).filter((key) => key !== "default" && !byId.has(key));
	const groups = new Map<string, { key: string; value: number }[]>();
	for (const [key, value] of Object.entries(table)) {
		const selectable = byId.get(key);
		if (selectable === undefined || key === "default") continue;
		const group = equivalenceKey(selectable.baseId, selectable.context);
		groups.set(group, [...(groups.get(group) ?? []), { key, value }]);
	}
	const conflicts = [...groups.values()].filter((entries) => new Set(entries.map((entry) => entry.value)).size > 1);
	return { unknownKeys, conflicts };
}
