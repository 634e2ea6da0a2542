import type { CursorSdk } from "../sdk/cursor-sdk.ts";
import { classifyCursorError } from "../sdk/errors.ts";
import { sanitizeCatalog } from "./sanitize.ts";
import type { CatalogItem } from "./types.ts";

/** Every discovery failure message starts with this; the text after it is already classified and scrubbed. */
export const REFRESH_ERROR_PREFIX = "Could not refresh Cursor models:";

/** The refresh was cancelled by Pi or ran out of time (not an SDK failure, so it is not classified). */
class RefreshInterrupted extends Error {}

/**
 * Live `Cursor.models.list` with the effective key, bounded by a timeout and Pi's abort signal (the SDK sets
 * neither). Throws a scrubbed, actionable error starting with {@link REFRESH_ERROR_PREFIX}; never returns an empty
 * catalog.
 */
export async function discoverModels(
	sdk: CursorSdk,
	apiKey: string,
	signal: AbortSignal,
	timeoutMs: number,
): Promise<CatalogItem[]> {
	const bounded = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
	const aborted = new Promise<never>((_, reject) => {
		const fail = () =>
			reject(
				new RefreshInterrupted(
					signal.aborted
						? "the refresh was cancelled."
						: `Cursor did not answer within ${timeoutMs} ms (timed out). Check your connection and retry.`,
				),
			);
		if (bounded.aborted) fail();
		bounded.addEventListener("abort", fail, { once: true });
	});
	let raw: unknown;
	try {
		raw = await Promise.race([sdk.listModels(apiKey), aborted]);
	} catch (error) {
		const detail = error instanceof RefreshInterrupted ? error.message : classifyCursorError(error, [apiKey]).message;
		throw new Error(`${REFRESH_ERROR_PREFIX} ${detail}`);
	}
	const items = sanitizeCatalog(raw);
	if (items.length === 0) throw new Error(`${REFRESH_ERROR_PREFIX} Cursor returned no usable models.`);
	return items;
}
