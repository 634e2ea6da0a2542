// Edits to `cursor-sdk.json`: a mutation of the raw document (unknown fields kept), refused when the file is unusable,
// when the result would not validate, or when it would add an API key (Pi's auth storage owns the key). Pure: the
// adapter (config-file.ts) reads, locks and writes.
import {
	type ConfigDocument,
	type CursorSdkUserConfig,
	parseUserConfigText,
	validateDocument,
} from "./config-schema.ts";
import { defineOwn, isRecord } from "./plain-data.ts";

/**
 * Mutates the raw document in place. Return `false` to skip the write. The document has already been validated, so
 * `fastDefaults`/`local`, when present, are plain objects. Use {@link setFastDefault} / {@link setUseHttp1ForAgent}.
 */
export type ConfigMutator = (document: ConfigDocument, current: CursorSdkUserConfig) => unknown;

export type ConfigUpdateFailureReason = "invalid-file" | "lock-timeout" | "io-error" | "invalid-update";

export type ConfigEdit =
	/** `text` is the new file content, absent when the mutation changed nothing (or the mutator returned `false`). */
	| { readonly ok: true; readonly text?: string; readonly config: CursorSdkUserConfig }
	| { readonly ok: false; readonly reason: ConfigUpdateFailureReason; readonly message: string };

function objectField(document: ConfigDocument, key: string): Record<string, unknown> {
	const existing = document[key];
	if (Object.hasOwn(document, key) && isRecord(existing)) return existing;
	const created: Record<string, unknown> = {};
	defineOwn(document, key, created);
	return created;
}

/** Sets `fastDefaults[modelKey]` (only that key) in a raw document. */
export function setFastDefault(document: ConfigDocument, modelKey: string, fast: boolean): void {
	defineOwn(objectField(document, "fastDefaults"), modelKey, fast);
}

/** Sets `local.useHttp1ForAgent`, or removes it when `value` is `undefined`. */
export function setUseHttp1ForAgent(document: ConfigDocument, value: boolean | undefined): void {
	if (value === undefined) {
		const local = document.local;
		if (isRecord(local)) delete local.useHttp1ForAgent;
		return;
	}
	defineOwn(objectField(document, "local"), "useHttp1ForAgent", value);
}

const API_KEY_NAME = /^(?:cursor[_-]?)?api[_-]?key$/i;

function apiKeyPaths(value: unknown, prefix: string, out: Map<string, string>): void {
	if (Array.isArray(value)) {
		value.forEach((item, index) => {
			apiKeyPaths(item, `${prefix}[${index}]`, out);
		});
		return;
	}
	if (!isRecord(value)) return;
	for (const [key, child] of Object.entries(value)) {
		const childPath = prefix === "" ? key : `${prefix}.${key}`;
		if (API_KEY_NAME.test(key)) out.set(childPath, JSON.stringify(child) ?? "");
		apiKeyPaths(child, childPath, out);
	}
}

/** Returns the path of an API-key-like field the mutation added or changed, if any. */
function addedApiKeyField(before: unknown, after: unknown): string | undefined {
	const old = new Map<string, string>();
	const now = new Map<string, string>();
	apiKeyPaths(before, "", old);
	apiKeyPaths(after, "", now);
	for (const [fieldPath, value] of now) if (old.get(fieldPath) !== value) return fieldPath;
	return undefined;
}

function detectIndent(text: string): string {
	const match = /\n([ \t]+)\S/.exec(text);
	return match?.[1] ?? "\t";
}

function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/**
 * Applies `mutator` to the file's text (`undefined`: no file yet). The new text keeps the file's indentation and
 * every field the mutator did not touch.
 */
export function editConfigText(text: string | undefined, filePath: string, mutator: ConfigMutator): ConfigEdit {
	const parsed = text === undefined ? { config: {}, document: {} } : parseUserConfigText(text, filePath);
	if (parsed.document === undefined) {
		return { ok: false, reason: "invalid-file", message: parsed.warning ?? `Cannot use ${filePath}.` };
	}
	const document = parsed.document;
	const before = JSON.stringify(document);
	const snapshot: unknown = JSON.parse(before);
	let decision: unknown;
	try {
		decision = mutator(document, parsed.config);
	} catch (error) {
		return { ok: false, reason: "invalid-update", message: `Cursor settings update failed: ${errorText(error)}` };
	}
	const after = JSON.stringify(document);
	if (decision === false || after === before) return { ok: true, config: parsed.config };

	const recheck = validateDocument(document);
	if (recheck.problems.length > 0) {
		return {
			ok: false,
			reason: "invalid-update",
			message: `Refusing to save Cursor settings to ${filePath}: ${recheck.problems.join("; ")}.`,
		};
	}
	const keyField = addedApiKeyField(snapshot, document);
	if (keyField !== undefined) {
		return {
			ok: false,
			reason: "invalid-update",
			message: `Refusing to save "${keyField}" to ${filePath}: API keys are never stored in cursor-sdk.json. Use /login or CURSOR_API_KEY.`,
		};
	}
	const indent = text === undefined ? "\t" : detectIndent(text);
	return { ok: true, text: `${JSON.stringify(document, null, indent)}\n`, config: recheck.config };
}
