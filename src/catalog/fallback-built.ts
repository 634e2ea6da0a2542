// The bundled fallback catalog as Pi rows and row metadata. Every Pi start shows it (a cached or live catalog replaces
// it later) and building its 241 rows is a measurable part of our startup, so dist/index.js carries the result:
// build/bundle.ts replaces this module by one that parses what `buildFallbackCatalog()` returned at bundle time.
// From source (tests) it is built here, on each call.
import { FALLBACK_CONTEXT_WINDOWS } from "./context-windows.generated.ts";
import { FALLBACK_MODELS } from "./fallback-models.generated.ts";
import { buildCatalog } from "./rows.ts";
import type { BuiltCatalog } from "./types.ts";

/**
 * What the model cache's stored rows must have been built by (`StoredBuild.key` includes it): build/bundle.ts sets it
 * to a digest of src/catalog, so rows an older version stored are built again.
 */
export const CATALOG_BUILD_ID = "source";

export function buildFallbackCatalog(): BuiltCatalog {
	return buildCatalog(FALLBACK_MODELS, FALLBACK_CONTEXT_WINDOWS);
}
