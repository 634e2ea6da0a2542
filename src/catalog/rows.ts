import { unambiguousAliases } from "./aliases.ts";
import { contextValues, defaultVariant, rowCapabilities } from "./capabilities.ts";
import { conservativeMaxTokens, groupObservations, resolveContextWindow, type SelectableId } from "./context.ts";
import { compareIds } from "./sanitize.ts";
import { buildThinkingLevelMap, isPiControllable, matchingThinkingLevel } from "./thinking-map.ts";
import type {
	BuiltCatalog,
	CatalogItem,
	CatalogParamValue,
	ContextWindowTable,
	CursorModelRow,
	ModelCapabilities,
	RowMeta,
	ThinkingLevelMap,
} from "./types.ts";

/** Pi `api` of every Cursor row; the provider's stream implementation is registered under it. */
export const CURSOR_API = "cursor-sdk";

/**
 * One selectable Cursor model shape: a context value (or none), what it can control, and what follows from that.
 * Every row of the shape (its aliases, `:fast`/`:slow`) shares it, so the thinking rules run once per shape (Pi
 * builds these rows at every start).
 */
interface Shape {
	readonly context: string | undefined;
	readonly contextLabel: string | undefined;
	readonly capabilities: ModelCapabilities;
	readonly reasoning: boolean;
	/** Only for reasoning shapes. */
	readonly thinkingLevelMap: ThinkingLevelMap | undefined;
	readonly defaultParams: readonly CatalogParamValue[];
	readonly defaultThinkingLevel: RowMeta["defaultThinkingLevel"];
}

interface PlannedRow extends SelectableId {
	readonly item: CatalogItem;
	readonly selectionId: string;
	readonly forcedFast: boolean | undefined;
	readonly shape: Shape;
}

/**
 * Turns catalog items into Pi rows plus their runtime metadata.
 *
 * Rows per base model (models in code-unit id order, duplicates of an id ignored after the first):
 * - one row per `context` value in SDK order (`id@ctx`), or a single row (`id`) without a context parameter;
 * - within each context: the base id first, then each unambiguous alias in catalog order (`alias@ctx`);
 * - each of those is followed by `:fast` then `:slow` when that context offers both `fast=true` and `fast=false`.
 * `:fast`/`:slow` rows copy the metadata of the row they suffix and only force the outgoing `fast` param.
 */
export function buildCatalog(items: readonly CatalogItem[], contextWindows: ContextWindowTable): BuiltCatalog {
	const models = uniqueById(items);
	const shapes = new Map(models.map((item) => [item.id, shapesOf(item)]));
	const shapesFor = (item: CatalogItem): readonly Shape[] => shapes.get(item.id) ?? [];
	const aliases = unambiguousAliases(models, (item, selectionId) =>
		shapesFor(item).flatMap((shape) => planSelection(item, selectionId, shape).map((row) => row.id)),
	);

	const planned = models.flatMap((item) =>
		shapesFor(item).flatMap((shape) =>
			[item.id, ...(aliases.get(item.id) ?? [])].flatMap((selectionId) => planSelection(item, selectionId, shape)),
		),
	);
	const observations = groupObservations(contextWindows, planned);

	const rows: CursorModelRow[] = [];
	const meta = new Map<string, RowMeta>();
	for (const plan of planned) {
		const unsuffixed = plan.forcedFast === undefined ? plan.id : plan.id.slice(0, plan.id.lastIndexOf(":"));
		const contextWindow = resolveContextWindow(contextWindows, observations, { ...plan, id: unsuffixed });
		rows.push(toRow(plan, contextWindow));
		meta.set(plan.id, toMeta(plan));
	}
	return { rows, meta };
}

function uniqueById(items: readonly CatalogItem[]): CatalogItem[] {
	const seen = new Set<string>();
	return [...items]
		.sort((a, b) => compareIds(a.id, b.id))
		.filter((item) => {
			if (seen.has(item.id)) return false;
			seen.add(item.id);
			return true;
		});
}

function shapesOf(item: CatalogItem): readonly Shape[] {
	const defaultParams = (defaultVariant(item)?.params ?? []).map((param) => ({ id: param.id, value: param.value }));
	const contexts = contextValues(item);
	const shape = (context: string | undefined, contextLabel: string | undefined): Shape => {
		const capabilities = rowCapabilities(item, context, contexts);
		const reasoning = isPiControllable(capabilities);
		return {
			context,
			contextLabel,
			capabilities,
			reasoning,
			thinkingLevelMap: reasoning ? buildThinkingLevelMap(capabilities) : undefined,
			defaultParams,
			defaultThinkingLevel: reasoning ? matchingThinkingLevel(capabilities, defaultParams) : undefined,
		};
	};
	if (contexts.length === 0) return [shape(undefined, undefined)];
	const labels = item.parameters?.find((param) => param.id === "context")?.values ?? [];
	return contexts.map((context) =>
		shape(context, labels.find((entry) => entry.value === context)?.displayName ?? context),
	);
}

function planSelection(item: CatalogItem, selectionId: string, shape: Shape): PlannedRow[] {
	const id = shape.context === undefined ? selectionId : `${selectionId}@${shape.context}`;
	const row = { id, baseId: item.id, context: shape.context, item, selectionId, shape };
	const plain: PlannedRow = { ...row, forcedFast: undefined };
	if (!shape.capabilities.fast) return [plain];
	return [plain, { ...row, id: `${id}:fast`, forcedFast: true }, { ...row, id: `${id}:slow`, forcedFast: false }];
}

function toRow(plan: PlannedRow, contextWindow: number): CursorModelRow {
	const { reasoning, thinkingLevelMap } = plan.shape;
	const row: CursorModelRow = {
		id: plan.id,
		name: rowName(plan),
		api: CURSOR_API,
		reasoning,
		input: ["text", "image"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow,
		maxTokens: conservativeMaxTokens(contextWindow),
	};
	if (thinkingLevelMap) row.thinkingLevelMap = { ...thinkingLevelMap };
	return row;
}

/** `Display Name`, `Display Name (1M)`, `Display Name (1M, Fast)`, `Display Name (Slow)`; whitespace collapsed. */
function rowName(plan: PlannedRow): string {
	const speed = plan.forcedFast === undefined ? undefined : plan.forcedFast ? "Fast" : "Slow";
	const qualifiers = [plan.shape.contextLabel, speed].filter((part) => part !== undefined);
	const name = plan.item.displayName.replace(/\s+/g, " ").trim() || plan.item.id;
	return qualifiers.length === 0 ? name : `${name} (${qualifiers.join(", ")})`;
}

function toMeta(plan: PlannedRow): RowMeta {
	const { capabilities, defaultParams, defaultThinkingLevel } = plan.shape;
	return {
		id: plan.id,
		baseId: plan.baseId,
		selectionId: plan.selectionId,
		context: plan.context,
		forcedFast: plan.forcedFast,
		defaultParams: defaultParams.map((param) => ({ ...param })),
		defaultThinkingLevel,
		capabilities,
	};
}
