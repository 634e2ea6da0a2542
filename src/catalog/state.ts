import type { Model } from "@earendil-works/pi-ai";
import { FALLBACK_CONTEXT_WINDOWS } from "./context-windows.generated.ts";
import { buildFallbackCatalog } from "./fallback-built.ts";
import { FALLBACK_MODELS } from "./fallback-models.generated.ts";
import { applyLearnedWindows, type LearnedWindows } from "./learned-windows.ts";
import { buildCatalog, CURSOR_API } from "./rows.ts";
import type { CatalogItem, ContextWindowTable, RowMeta } from "./types.ts";

export const PROVIDER_ID = "cursor";
export const CURSOR_BASE_URL = "https://api.cursor.com";

export type CatalogSource = "fallback" | "cache" | "live";

export interface ResolvedRow {
	meta: RowMeta;
	item: CatalogItem;
}

/** The Cursor catalog this Pi session currently shows: items, Pi models and per-row metadata, swapped as one. */
export class CatalogState {
	private items: readonly CatalogItem[] = [];
	private itemsById = new Map<string, CatalogItem>();
	private meta: ReadonlyMap<string, RowMeta> = new Map();
	private piModels: readonly Model<string>[] = [];
	source: CatalogSource = "fallback";

	constructor(
		private readonly contextWindows: ContextWindowTable = FALLBACK_CONTEXT_WINDOWS,
		/** Windows learned from earlier runs (models without a `context` parameter); they win over the table. */
		private readonly learnedWindows: LearnedWindows = {},
	) {
		this.replace(FALLBACK_MODELS, "fallback");
	}

	replace(items: readonly CatalogItem[], source: CatalogSource): void {
		if (items === this.items) {
			this.source = source; // the same catalog (the cached one is the bundled one): the same rows
			return;
		}
		const windows = applyLearnedWindows(this.contextWindows, items, this.learnedWindows);
		const built =
			items === FALLBACK_MODELS && sameWindows(windows, FALLBACK_CONTEXT_WINDOWS)
				? buildFallbackCatalog()
				: buildCatalog(items, windows);
		this.items = items;
		this.itemsById = new Map(items.map((item) => [item.id, item]));
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

	resolve(modelId: string): ResolvedRow | undefined {
		const meta = this.meta.get(modelId);
		const item = meta ? this.itemsById.get(meta.baseId) : undefined;
		return meta && item ? { meta, item } : undefined;
	}
}

function sameWindows(a: ContextWindowTable, b: ContextWindowTable): boolean {
	const keys = Object.keys(a);
	return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}
