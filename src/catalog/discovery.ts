import type { CursorSdk } from "../sdk/cursor-sdk.ts";
import { classifyCursorError } from "../sdk/errors.ts";
import { sanitizeCatalog } from "./sanitize.ts";
import type { CatalogItem } from "./types.ts";

export const DISCOVERY_TIMEOUT_MS = 15_000;

/**
 * Live `Cursor.models.list` with the effective key, bounded by a timeout and Pi's abort signal (the SDK sets
 * neither). Throws a scrubbed, actionable error; never returns an empty catalog.
 */
export async function discoverModels(
	sdk: CursorSdk,
	apiKey: string,
	signal: AbortSignal,
	timeoutMs = DISCOVERY_TIMEOUT_MS,
): Promise<CatalogItem[]> {
	const bounded = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
	const aborted = new Promise<never>((_, reject) => {
		const fail = () =>
			reject(
				new Error(
					signal.aborted
						? "Cursor model refresh was cancelled"
						: `Cursor model refresh timed out after ${timeoutMs} ms`,
				),
			);
		if (bounded.aborted) fail();
		bounded.addEventListener("abort", fail, { once: true });
	});
	let raw: unknown[];
	try {
		raw = await Promise.race([sdk.listModels(apiKey), aborted]);
	} catch (error) {
		throw new Error(`Could not refresh Cursor models: ${classifyCursorError(error, [apiKey]).message}`);
	}
	const items = sanitizeCatalog(raw);
	if (items.length === 0) throw new Error("Could not refresh Cursor models: Cursor returned no usable models.");
	return items;
}
