import type {
	CatalogItem,
	CatalogParameter,
	CatalogParameterValue,
	CatalogParamValue,
	CatalogVariant,
} from "./types.ts";

/** Text Pi can carry as a model id after `cursor/`: no whitespace or control characters, no `@`/`:` suffix marks. */
const MODEL_ID_TEXT = /^[^\s@:\p{Cc}]+$/u;
/** Longer is no model a user could pick or read in a list (Cursor's ids are under 50 characters). */
export const MAX_MODEL_ID_LENGTH = 256;

/**
 * Whether `text` can be (part of) a registered Pi model id: a base id, an alias or a context value, at most
 * {@link MAX_MODEL_ID_LENGTH} characters.
 */
export function isModelIdText(text: string): boolean {
	return text.length <= MAX_MODEL_ID_LENGTH && MODEL_ID_TEXT.test(text);
}

/**
 * Catalog sanitizer shared by the fallback generator and live discovery.
 *
 * Keeps only `id`, `displayName`, `description`, `aliases` (deduplicated, first occurrence wins), `parameters` and
 * `variants` (each with its own known fields), drops malformed entries (and a non-array payload) instead of throwing,
 * drops entries whose id Pi could not select or is too long (see {@link isModelIdText}), keeps the first of duplicate model ids and
 * stable-sorts by id (code-unit order, independent of locale).
 */
export function sanitizeCatalog(raw: unknown): CatalogItem[] {
	const seen = new Set<string>();
	const items: CatalogItem[] = [];
	if (!Array.isArray(raw)) return items;
	for (const entry of raw) {
		const item = sanitizeItem(entry);
		if (item === undefined || seen.has(item.id)) continue;
		seen.add(item.id);
		items.push(item);
	}
	return items.sort((a, b) => compareIds(a.id, b.id));
}

/** Code-unit string order: deterministic across locales and runtimes. */
export function compareIds(a: string, b: string): number {
	if (a < b) return -1;
	return a > b ? 1 : 0;
}

/** Keeps positive finite numbers (rounded down to whole tokens). Key order: `default` first, then code-unit order. */
export function sanitizeContextWindows(raw: unknown): Record<string, number> {
	const table: Record<string, number> = {};
	if (!isRecord(raw)) return table;
	const keys = Object.keys(raw)
		.filter((key) => key.length > 0)
		.sort((a, b) => (a === "default" ? -1 : b === "default" ? 1 : compareIds(a, b)));
	for (const key of keys) {
		const value = raw[key];
		if (typeof value === "number" && Number.isFinite(value) && value > 0) table[key] = Math.floor(value);
	}
	return table;
}

function sanitizeItem(raw: unknown): CatalogItem | undefined {
	if (!isRecord(raw) || typeof raw.id !== "string" || !isModelIdText(raw.id)) return undefined;
	const item: {
		id: string;
		displayName: string;
		description?: string;
		aliases?: string[];
		parameters?: CatalogParameter[];
		variants?: CatalogVariant[];
		// Without a display name (or with a blank one) the model is shown under its id, never dropped.
	} = {
		id: raw.id,
		displayName: typeof raw.displayName === "string" && raw.displayName.trim() ? raw.displayName : raw.id,
	};
	if (typeof raw.description === "string") item.description = raw.description;
	if (Array.isArray(raw.aliases)) item.aliases = [...new Set(raw.aliases.filter(isNonEmptyString))];
	if (Array.isArray(raw.parameters)) item.parameters = compact(raw.parameters.map(sanitizeParameter));
	if (Array.isArray(raw.variants)) item.variants = compact(raw.variants.map(sanitizeVariant));
	return item;
}

function sanitizeParameter(raw: unknown): CatalogParameter | undefined {
	if (!isRecord(raw) || !isNonEmptyString(raw.id) || !Array.isArray(raw.values)) return undefined;
	const values = compact(raw.values.map(sanitizeParameterValue));
	return typeof raw.displayName === "string"
		? { id: raw.id, displayName: raw.displayName, values }
		: { id: raw.id, values };
}

function sanitizeParameterValue(raw: unknown): CatalogParameterValue | undefined {
	if (!isRecord(raw) || typeof raw.value !== "string") return undefined;
	return typeof raw.displayName === "string"
		? { value: raw.value, displayName: raw.displayName }
		: { value: raw.value };
}

function sanitizeVariant(raw: unknown): CatalogVariant | undefined {
	if (!isRecord(raw) || !Array.isArray(raw.params) || typeof raw.displayName !== "string") return undefined;
	const variant: { params: CatalogParamValue[]; displayName: string; description?: string; isDefault?: boolean } = {
		params: compact(raw.params.map(sanitizeParamValue)),
		displayName: raw.displayName,
	};
	if (typeof raw.description === "string") variant.description = raw.description;
	if (typeof raw.isDefault === "boolean") variant.isDefault = raw.isDefault;
	return variant;
}

function sanitizeParamValue(raw: unknown): CatalogParamValue | undefined {
	if (!isRecord(raw) || !isNonEmptyString(raw.id) || typeof raw.value !== "string") return undefined;
	return { id: raw.id, value: raw.value };
}

function compact<T>(values: readonly (T | undefined)[]): T[] {
	return values.filter((value): value is T => value !== undefined);
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
	return typeof value === "string" && value.length > 0;
}
