import type { ModelThinkingLevel } from "@earendil-works/pi-ai";
import type { ProviderModelConfig } from "@earendil-works/pi-coding-agent";

/**
 * Cursor catalog shapes, declared locally so that only the SDK adapter imports `@cursor/sdk`.
 * They mirror `ModelListItem` (and friends) from `@cursor/sdk` 1.0.32 field for field.
 */
export interface CatalogParamValue {
	readonly id: string;
	readonly value: string;
}

export interface CatalogParameterValue {
	readonly value: string;
	readonly displayName?: string;
}

export interface CatalogParameter {
	readonly id: string;
	readonly displayName?: string;
	readonly values: readonly CatalogParameterValue[];
}

export interface CatalogVariant {
	readonly params: readonly CatalogParamValue[];
	readonly displayName: string;
	readonly description?: string;
	readonly isDefault?: boolean;
}

export interface CatalogItem {
	readonly id: string;
	readonly displayName: string;
	readonly description?: string;
	readonly aliases?: readonly string[];
	readonly parameters?: readonly CatalogParameter[];
	readonly variants?: readonly CatalogVariant[];
}

/**
 * Observed default (non-Max) context windows keyed by selectable Pi model id (`base`, `alias`, `base@ctx`,
 * `base@ctx:slow`, …). The reserved key `default` is the window for models nothing else covers.
 */
export type ContextWindowTable = Readonly<Record<string, number>>;

/** Cursor params that Pi's thinking level drives through an ordered value list. */
export type LevelParamId = "reasoning" | "effort" | "reasoning_effort";

/** What a catalog item lets the extension control, inferred from its declared parameters and variants. */
export interface ModelCapabilities {
	/** The `reasoning` / `effort` / `reasoning_effort` parameter driven by Pi thinking, if any. */
	readonly levelParam: LevelParamId | undefined;
	/** A boolean `thinking` parameter (declares both `true` and `false`). */
	readonly thinkingToggle: boolean;
	/** Selectable `context` values in SDK order; empty when the model has no context parameter. */
	readonly contextValues: readonly string[];
	/** A boolean `fast` parameter (declares both `true` and `false`). */
	readonly fast: boolean;
	/** Declared values per parameter id, in SDK order. */
	readonly supportedValues: Readonly<Record<string, readonly string[]>>;
}

/** Per-row runtime metadata, kept beside (never inside) the Pi rows. */
export interface RowMeta {
	/** Registered Pi model id, e.g. `gpt-5.5@1m:fast`. */
	readonly id: string;
	/** Cursor catalog base model id. */
	readonly baseId: string;
	/** Id sent to Cursor as `ModelSelection.id`: the base id or an unambiguous alias. */
	readonly selectionId: string;
	/** Cursor `context` value this row selects, if the model has a context parameter. */
	readonly context: string | undefined;
	/** `true` for `:fast`, `false` for `:slow`, `undefined` for ordinary rows. */
	readonly forcedFast: boolean | undefined;
	/** Params of the catalog default variant (`isDefault`, else the first); empty without variants. */
	readonly defaultParams: readonly CatalogParamValue[];
	/** Pi level matching the catalog default variant (`off` included), if the model is Pi-controllable. */
	readonly defaultThinkingLevel: ModelThinkingLevel | undefined;
	readonly capabilities: ModelCapabilities;
}

/** The chat-model member of Pi's `ProviderModelConfig` union: what this extension registers. */
export type CursorModelRow = Extract<ProviderModelConfig, { reasoning: boolean }>;

export type ThinkingLevelMap = NonNullable<CursorModelRow["thinkingLevelMap"]>;

export interface BuiltCatalog {
	readonly rows: CursorModelRow[];
	readonly meta: ReadonlyMap<string, RowMeta>;
}
