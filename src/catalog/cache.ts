// The live catalog cache (`cursor-sdk-model-list.json` in Pi's agent dir, mode 0600). Entries are keyed by a
// fingerprint of the API key (a truncated SHA-256), never the key itself.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { atomicWrite } from "../fs/atomic-file.ts";
import { FALLBACK_MODELS } from "./fallback-models.generated.ts";
import { sanitizeCatalog } from "./sanitize.ts";
import type { CatalogItem } from "./types.ts";

export const MODEL_CACHE_FILENAME = "cursor-sdk-model-list.json";

export interface CachedCatalog {
	fetchedAt: number;
	items: readonly CatalogItem[];
	/** The rows built from the items, as `CatalogState.storable` gave them (checked by `CatalogState.replace`). */
	built?: unknown;
}

interface CacheDocument {
	version: 1;
	entries: Record<string, { fetchedAt: number; items: unknown[]; built?: unknown }>;
}

/** Whether `items` are the bundled catalog, whose rows dist/index.js carries ready-made. */
function isBundled(items: readonly unknown[]): boolean {
	return JSON.stringify(items) === JSON.stringify(FALLBACK_MODELS);
}

export function keyFingerprint(apiKey: string): string {
	return createHash("sha256").update(`pi-cursor-sdk:${apiKey}`).digest("hex").slice(0, 16);
}

export class CatalogCache {
	readonly path: string;

	constructor(agentDir: string) {
		this.path = join(agentDir, MODEL_CACHE_FILENAME);
	}

	private readDocument(): CacheDocument {
		try {
			const parsed = JSON.parse(readFileSync(this.path, "utf8")) as Partial<CacheDocument>;
			const entries = parsed?.entries;
			if (parsed?.version === 1 && entries && typeof entries === "object" && !Array.isArray(entries)) {
				return { version: 1, entries };
			}
		} catch {
			// missing or unreadable cache: the bundled fallback serves
		}
		return { version: 1, entries: {} };
	}

	/**
	 * The cached catalog for this key, expired or not (startup never waits for the network). A catalog that is the
	 * bundled one comes back as `FALLBACK_MODELS` itself, whose rows dist/index.js carries ready-made: every start
	 * reads the cache, and building 241 rows again would be most of our startup.
	 */
	read(apiKey: string): CachedCatalog | undefined {
		const entry = this.readDocument().entries[keyFingerprint(apiKey)];
		if (!entry || typeof entry.fetchedAt !== "number" || !Array.isArray(entry.items)) return undefined;
		const bundled = isBundled(entry.items);
		const items = bundled ? FALLBACK_MODELS : sanitizeCatalog(entry.items);
		return items.length > 0
			? { fetchedAt: entry.fetchedAt, items, built: bundled ? undefined : entry.built }
			: undefined;
	}

	async write(apiKey: string, catalog: CachedCatalog): Promise<void> {
		const document = this.readDocument();
		const { fetchedAt, items, built } = catalog;
		const keep = built !== undefined && !isBundled(items); // the bundled rows come with dist/index.js
		document.entries[keyFingerprint(apiKey)] = { fetchedAt, items: [...items], ...(keep ? { built } : {}) };
		await atomicWrite(this.path, `${JSON.stringify(document)}\n`);
	}
}
