import { createHash } from "node:crypto";
import type { Model } from "@earendil-works/pi-ai";
import { FALLBACK_CONTEXT_WINDOWS } from "./context-windows.generated.ts";
import { buildFallbackCatalog, CATALOG_BUILD_ID } from "./fallback-built.ts";
import { FALLBACK_MODELS } from "./fallback-models.generated.ts";
import { applyLearnedWindows, type LearnedWindows } from "./learned-windows.ts";
import { buildCatalog, CURSOR_API } from "./rows.ts";
import type { BuiltCatalog, CatalogItem, ContextWindowTable, CursorModelRow, RowMeta } from "./types.ts";

export const PROVIDER_ID = "cursor";
export const CURSOR_BASE_URL = "https://api.cursor.com";

export type CatalogSource = "fallback" | "cache" | "live";

export interface ResolvedRow {
	meta: RowMeta;
	item: CatalogItem;
}

/**
 * A built catalog as the model cache keeps it beside the items, so that a start after a live refresh does not build
 * the rows again: the rows, their metadata, and the key of what they were built from (the catalog code, the items and
 * the context windows).
 */
export interface StoredBuild {
	key: string;
	rows: CursorModelRow[];
	meta: [string, RowMeta][];
}

/** The Cursor catalog this Pi session currently shows: items, Pi models and per-row metadata, swapped as one. */
export class CatalogState {
	private items: readonly CatalogItem[] = [];
	private itemsById = new Map<string, CatalogItem>();
	private meta: ReadonlyMap<string, RowMeta> = new Map();
	private rows: CursorModelRow[] = [];
	/** Key of what the rows were built from; undefined for the bundled catalog, whose rows dist/index.js carries. */
	private buildKey: string | undefined;
	private piModels: readonly Model<string>[] = [];
	source: CatalogSource = "fallback";

	constructor(
		private readonly contextWindows: ContextWindowTable = FALLBACK_CONTEXT_WINDOWS,
		/** Windows learned from earlier runs (models without a `context` parameter); they win over the table. */
		private readonly learnedWindows: LearnedWindows = {},
	) {
		this.replace(FALLBACK_MODELS, "fallback");
	}

	/** Shows `items`, with the rows of `stored` (what the model cache kept) when they were built from the same. */
	replace(items: readonly CatalogItem[], source: CatalogSource, stored?: unknown): void {
		if (items === this.items) {
			this.source = source; // the same catalog (the cached one is the bundled one): the same rows
			return;
		}
		const windows = applyLearnedWindows(this.contextWindows, items, this.learnedWindows);
		const bundled = items === FALLBACK_MODELS && sameWindows(windows, FALLBACK_CONTEXT_WINDOWS);
		const key = bundled ? undefined : buildKeyOf(items, windows);
		const built =
			key === undefined ? buildFallbackCatalog() : (storedBuild(stored, key) ?? buildCatalog(items, windows));
		this.items = items;
		this.itemsById = new Map(items.map((item) => [item.id, item]));
		this.buildKey = key;
		this.rows = built.rows;
		this.meta = built.meta;
		this.piModels = built.rows.map(
			(row): Model<string> => ({
				id: row.id,
				name: row.name,
				api: CURSOR_API,
				provider: PROVIDER_ID,
				baseUrl: CURSOR_BASE_URL,
				reasoning: row.reasoning,
				...(row.thinkingLevelMap ? { thinkingLevelMap: row.thinkingLevelMap } : {}),
				input: row.input,
				cost: row.cost,
				contextWindow: row.contextWindow,
				maxTokens: row.maxTokens,
			}),
		);
		this.source = source;
	}

	get catalogItems(): readonly CatalogItem[] {
		return this.items;
	}

	get models(): readonly Model<string>[] {
		return this.piModels;
	}

	/** What the model cache should keep beside the items; undefined when the rows are the bundled ones. */
	get storable(): StoredBuild | undefined {
		return this.buildKey === undefined ? undefined : { key: this.buildKey, rows: this.rows, meta: [...this.meta] };
	}

	resolve(modelId: string): ResolvedRow | undefined {
		const meta = this.meta.get(modelId);
		const item = meta ? this.itemsById.get(meta.baseId) : undefined;
		return meta && item ? { meta, item } : undefined;
	}
}

function buildKeyOf(items: readonly CatalogItem[], windows: ContextWindowTable): string {
	return createHash("sha256")
		.update(`${CATALOG_BUILD_ID}\n${JSON.stringify(items)}\n${JSON.stringify(windows)}`)
		.digest("hex");
}

/** The rows `stored` holds if they were built from `key` and are whole (one metadata entry per row). */
function storedBuild(stored: unknown, key: string): BuiltCatalog | undefined {
	const s = stored as Partial<StoredBuild> | null | undefined;
	if (s?.key !== key || !Array.isArray(s.rows) || !Array.isArray(s.meta)) return undefined;
	const entries = s.meta.filter(
		(entry): entry is [string, RowMeta] =>
			Array.isArray(entry) && typeof entry[0] === "string" && typeof entry[1] === "object" && entry[1] !== null,
	);
	const meta = new Map(entries);
	const whole =
		entries.length === s.meta.length &&
		meta.size === s.rows.length &&
		s.rows.every((row) => typeof row?.id === "string" && meta.get(row.id)?.id === row.id);
	return whole ? { rows: s.rows, meta } : undefined;
}

function sameWindows(a: ContextWindowTable, b: ContextWindowTable): boolean {
	const keys = Object.keys(a);
	return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}
