import { isModelIdText } from "./sanitize.ts";
import type { CatalogItem } from "./types.ts";

/**
 * The SDK aliases that may become Pi rows, per base id (catalog alias order, duplicates collapsed).
 *
 * An alias is skipped when it equals any base id (its own included), is listed by more than one base model, or
 * would register a Pi id that a base row or another alias also registers (`registeredIds` gives the ids a
 * selection id would register for its model, e.g. `alias@1m`, `alias@1m:fast`). Skipping is symmetric, so the
 * result does not depend on catalog order.
 */
export function unambiguousAliases(
	items: readonly CatalogItem[],
	registeredIds: (item: CatalogItem, selectionId: string) => readonly string[],
): ReadonlyMap<string, readonly string[]> {
	const baseIds = new Set(items.map((item) => item.id));
	const owners = new Map<string, Set<string>>();
	for (const item of items) {
		for (const alias of item.aliases ?? []) {
			const set = owners.get(alias) ?? new Set<string>();
			set.add(item.id);
			owners.set(alias, set);
		}
	}

	const reserved = new Set(items.flatMap((item) => registeredIds(item, item.id)));
	const candidates = items.flatMap((item) =>
		[...new Set(item.aliases ?? [])]
			.filter((alias) => isModelIdText(alias) && !baseIds.has(alias) && owners.get(alias)?.size === 1)
			.map((alias) => ({ item, alias, ids: registeredIds(item, alias) })),
	);
	const claims = new Map<string, number>();
	for (const candidate of candidates) {
		for (const id of new Set(candidate.ids)) claims.set(id, (claims.get(id) ?? 0) + 1);
	}

	const result = new Map<string, string[]>();
	for (const { item, alias, ids } of candidates) {
		if (ids.some((id) => reserved.has(id) || (claims.get(id) ?? 0) > 1)) continue;
		result.set(item.id, [...(result.get(item.id) ?? []), alias]);
	}
	return result;
}
