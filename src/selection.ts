import type { ModelThinkingLevel } from "@earendil-works/pi-ai";
import { defaultVariant, paramValue } from "./catalog/capabilities.ts";
import { levelTarget } from "./catalog/thinking-map.ts";
import type { CatalogItem, CatalogParamValue, RowMeta } from "./catalog/types.ts";
import { closestVariant } from "./catalog/variant-match.ts";

/** What is sent to Cursor as `ModelSelection` (fresh, mutable arrays the SDK can take as they are). */
export interface BuiltModelSelection {
	id: string;
	params: CatalogParamValue[];
}

/**
 * Base ids whose outgoing `context` is omitted when it equals the catalog default variant's context (Grok 4.7
 * rejects some explicit default-context selections; see the spec's "Grok 4.7 Default-context Compatibility").
 */
const OMIT_DEFAULT_CONTEXT_BASE_IDS: readonly string[] = ["grok-4.7"];

/**
 * Builds the Cursor `ModelSelection` for one turn.
 *
 * - Starts from the catalog default variant (`isDefault`, else the first).
 * - `level` is Pi's level name as the stream receives it (`undefined` or `"off"` = off). Off with a boolean
 *   `thinking` toggle sends `thinking=false` and omits the effort param; otherwise it sends the level param's
 *   `none`/`off`. Enabled levels send the mapped value (`xhigh` → `xhigh`, else `extra-high`; `max` → `max`) plus
 *   `thinking=true` when the toggle exists. Levels with no catalog value keep the catalog default.
 * - `fast` is the effective extension state (`undefined` = catalog default); a `:fast`/`:slow` row overrides it.
 * - The result is always one real catalog variant (carrying undeclared params such as `cyber`), chosen by
 *   {@link closestVariant} when the requested combination does not exist, minus the omissions above and the
 *   Grok 4.7 default-context omission.
 * - Without variants, only requested values the parameters declare are sent, in declaration order.
 */
export function buildModelSelection(
	meta: RowMeta,
	item: CatalogItem,
	level: ModelThinkingLevel | undefined,
	fast: boolean | undefined,
): BuiltModelSelection {
	if (item.id !== meta.baseId) {
		throw new Error(`Catalog item ${item.id} does not match row ${meta.id} (${meta.baseId})`);
	}
	const { capabilities } = meta;
	const requested = new Map<string, string>();
	if (meta.context !== undefined) requested.set("context", meta.context);
	const target = levelTarget(capabilities, level ?? "off");
	for (const param of target?.set ?? []) requested.set(param.id, param.value);
	const effectiveFast = meta.forcedFast ?? fast;
	if (capabilities.fast && effectiveFast !== undefined) requested.set("fast", String(effectiveFast));

	const variants = item.variants ?? [];
	const defaults = defaultVariant(item)?.params ?? [];
	const chosen =
		variants.length === 0
			? declaredParams(item, requested)
			: (closestVariant(variants, defaults, requested, priority(meta))?.params ?? []);

	// Omit (e.g. the effort param under thinking=false) only when the variant really carries the off values.
	const honoured = target?.set.every((param) => paramValue(chosen, param.id) === param.value) ?? false;
	const omit = new Set(honoured ? target?.omit : []);
	// The baseline is the catalog default variant, not the selected context or speed override.
	const defaultContext = paramValue(defaults, "context");
	const omitsDefaultContext = OMIT_DEFAULT_CONTEXT_BASE_IDS.includes(meta.baseId) && defaultContext !== undefined;
	if (omitsDefaultContext && paramValue(chosen, "context") === defaultContext) omit.add("context");
	return {
		id: meta.selectionId,
		params: chosen.filter((param) => !omit.has(param.id)).map((param) => ({ id: param.id, value: param.value })),
	};
}

/**
 * Search priority when no variant offers every requested value: the row's context (its identity and
 * `contextWindow`) is kept first, then the thinking toggle, then the thinking level, then fast.
 */
function priority(meta: RowMeta): string[] {
	const { levelParam } = meta.capabilities;
	return ["context", "thinking", ...(levelParam === undefined ? [] : [levelParam]), "fast"];
}

function declaredParams(item: CatalogItem, requested: ReadonlyMap<string, string>): CatalogParamValue[] {
	return (item.parameters ?? []).flatMap((param) => {
		const value = requested.get(param.id);
		return value !== undefined && param.values.some((entry) => entry.value === value) ? [{ id: param.id, value }] : [];
	});
}
