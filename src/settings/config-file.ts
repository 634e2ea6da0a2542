/**
 * The user-level `cursor-sdk.json` in Pi's agent directory.
 *
 * Reading never throws: malformed JSON, a non-object top level or wrongly typed values produce one actionable
 * warning and the bad parts are ignored. Writing is a lock-protected read-modify-write with an atomic replace; a file
 * that does not validate is never rewritten, and fields this package does not know are preserved.
 *
 * The API key is never stored here (Pi's auth storage owns it); updates that would add an API-key-like field are
 * refused.
 */

import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { atomicWrite, PRIVATE_FILE_MODE, removeQuietly, resolveWriteTarget } from "../fs/atomic-file.ts";
import { redactSecrets } from "../sdk/errors.ts";

export const CURSOR_SDK_CONFIG_FILENAME = "cursor-sdk.json";

/** Path of the user config inside Pi's agent directory (for example `~/.pi/agent`). */
export function userConfigPath(agentDir: string): string {
	return path.join(agentDir, CURSOR_SDK_CONFIG_FILENAME);
}

/** The validated subset of `cursor-sdk.json` this package uses. Invalid parts are left out. */
export interface CursorSdkUserConfig {
	/** Global fast defaults keyed by selected SDK model id or alias (older files may use base catalog ids). */
	readonly fastDefaults?: Readonly<Record<string, boolean>>;
	readonly local?: LocalConfig;
	/** Raw `subagents` entries (validated per entry by settings/subagents.ts, so one bad entry spoils nothing else). */
	readonly subagents?: Readonly<Record<string, unknown>>;
}

export interface LocalConfig {
	/** Local HTTP/1.1/SSE transport default (user level only). */
	readonly useHttp1ForAgent?: boolean;
	/** Cursor's classifier-backed auto-review for local runs (user or trusted project). */
	readonly autoReview?: boolean;
	/** Cursor's local sandbox (user or trusted project). */
	readonly sandboxOptions?: { readonly enabled?: boolean };
	/** Custom root of the per-session SDK stores (user level only; validated when a turn uses it). */
	readonly storeRoot?: string;
}

/** The raw top-level JSON object handed to update mutators (unknown fields included). */
export type ConfigDocument = Record<string, unknown>;

export interface ConfigReadResult {
	/** The validated settings; `{}` when the file is missing or unusable. */
	readonly config: CursorSdkUserConfig;
	/** One actionable message naming the file and every problem, when the file is unusable or partly invalid. */
	readonly warning?: string;
	/** Whether the file exists. */
	readonly exists: boolean;
}

export type ConfigUpdateFailureReason = "invalid-file" | "lock-timeout" | "io-error" | "invalid-update";

export type ConfigUpdateResult =
	| {
			readonly ok: true;
			/** False when the mutation left the content unchanged (or the mutator returned `false`). */
			readonly written: boolean;
			readonly config: CursorSdkUserConfig;
	  }
	| { readonly ok: false; readonly reason: ConfigUpdateFailureReason; readonly message: string };

/**
 * Mutates the raw document in place. Return `false` to skip the write. The document has already been validated, so
 * `fastDefaults`/`local`, when present, are plain objects. Use {@link setFastDefault} / {@link setUseHttp1ForAgent}.
 */
export type ConfigMutator = (document: ConfigDocument, current: CursorSdkUserConfig) => unknown;

export interface ConfigFileOptions {
	/** Total time to wait for the lock before giving up (default 5000 ms). */
	readonly lockTimeoutMs?: number;
	/** A lock file older than this is considered abandoned and removed (default 10000 ms). */
	readonly lockStaleMs?: number;
}

const DEFAULT_LOCK_TIMEOUT_MS = 5_000;
const DEFAULT_LOCK_STALE_MS = 10_000;
const FILE_MODE = PRIVATE_FILE_MODE;
const DIR_MODE = 0o700;
const MAX_LISTED_PROBLEMS = 6;

interface ParsedConfigText {
	readonly config: CursorSdkUserConfig;
	/** Present only when the whole file is usable (valid JSON object with correctly typed known fields). */
	readonly document?: ConfigDocument;
	readonly warning?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing and validation (pure)
// ---------------------------------------------------------------------------------------------------------------

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describeValue(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "an array";
	if (typeof value === "object") return "an object";
	// A key or a URL with userinfo pasted into the wrong field is redacted before the value is shortened.
	const text = redactSecrets(JSON.stringify(value) ?? String(value));
	return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
	Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Validates a parsed top-level object, returning the usable subset plus one line per problem. */
function validateDocument(document: Record<string, unknown>): { config: CursorSdkUserConfig; problems: string[] } {
	const problems: string[] = [];
	let fastDefaults: Record<string, boolean> | undefined;
	let local: { -readonly [K in keyof LocalConfig]: LocalConfig[K] } | undefined;
	let subagents: Record<string, unknown> | undefined;

	if (Object.hasOwn(document, "fastDefaults")) {
		const raw = document.fastDefaults;
		if (!isPlainObject(raw)) {
			problems.push(`"fastDefaults" must be an object mapping model ids to true/false (found ${describeValue(raw)})`);
		} else {
			fastDefaults = Object.create(null) as Record<string, boolean>;
			for (const [key, value] of Object.entries(raw)) {
				if (typeof value === "boolean") defineOwn(fastDefaults, key, value);
				else problems.push(`"fastDefaults.${key}" must be true or false (found ${describeValue(value)})`);
			}
		}
	}

	if (Object.hasOwn(document, "local")) {
		const raw = document.local;
		if (!isPlainObject(raw)) {
			problems.push(`"local" must be an object (found ${describeValue(raw)})`);
		} else {
			local = {};
			if (Object.hasOwn(raw, "useHttp1ForAgent")) {
				const value = raw.useHttp1ForAgent;
				if (typeof value === "boolean") local.useHttp1ForAgent = value;
				else problems.push(`"local.useHttp1ForAgent" must be true or false (found ${describeValue(value)})`);
			}
			if (Object.hasOwn(raw, "autoReview")) {
				const value = raw.autoReview;
				if (typeof value === "boolean") local.autoReview = value;
				else problems.push(`"local.autoReview" must be true or false (found ${describeValue(value)})`);
			}
			if (Object.hasOwn(raw, "sandboxOptions")) {
				const value = raw.sandboxOptions;
				const enabled = isPlainObject(value) && Object.hasOwn(value, "enabled") ? value.enabled : undefined;
				if (isPlainObject(value) && (enabled === undefined || typeof enabled === "boolean")) {
					local.sandboxOptions = enabled === undefined ? {} : { enabled };
				} else {
					problems.push(
						`"local.sandboxOptions" must be an object like {"enabled": true} (found ${describeValue(value)})`,
					);
				}
			}
			if (Object.hasOwn(raw, "storeRoot")) {
				const value = raw.storeRoot;
				if (typeof value === "string") {
					if (value.trim() !== "") local.storeRoot = value;
				} else {
					problems.push(`"local.storeRoot" must be an absolute directory path (found ${describeValue(value)})`);
				}
			}
		}
	}

	if (Object.hasOwn(document, "subagents")) {
		const raw = document.subagents;
		if (isPlainObject(raw)) {
			subagents = Object.create(null) as Record<string, unknown>;
			for (const [name, value] of Object.entries(raw)) defineOwn(subagents, name, value);
		} else {
			problems.push(`"subagents" must be an object mapping names to definitions (found ${describeValue(raw)})`);
		}
	}

	const config: {
		fastDefaults?: Record<string, boolean>;
		local?: LocalConfig;
		subagents?: Record<string, unknown>;
	} = {};
	if (fastDefaults !== undefined) config.fastDefaults = fastDefaults;
	if (local !== undefined) config.local = local;
	if (subagents !== undefined) config.subagents = subagents;
	return { config, problems };
}

const NOT_REWRITTEN = "pi-cursor-sdk will not save settings to this file until it is fixed.";

function invalidValuesWarning(filePath: string, problems: readonly string[]): string {
	const listed = problems.slice(0, MAX_LISTED_PROBLEMS).join("; ");
	const more = problems.length > MAX_LISTED_PROBLEMS ? `; and ${problems.length - MAX_LISTED_PROBLEMS} more` : "";
	return `Cursor settings file ${filePath} has invalid values, which are ignored: ${listed}${more}. Fix or remove them; ${NOT_REWRITTEN}`;
}

/**
 * Parses the text of a `cursor-sdk.json`. Whitespace-only text is an empty config. Never throws; a file that is not
 * valid JSON, not an object, or has wrongly typed known fields yields exactly one warning and no `document`.
 */
export function parseUserConfigText(text: string, filePath: string): ParsedConfigText {
	const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
	if (body.trim() === "") return { config: {}, document: {} };
	let parsed: unknown;
	try {
		parsed = JSON.parse(body);
	} catch (error) {
		const detail = error instanceof Error ? error.message : String(error);
		return {
			config: {},
			warning: `Cursor settings file ${filePath} is not valid JSON (${detail}) and is ignored. Fix the JSON or delete the file; ${NOT_REWRITTEN}`,
		};
	}
	if (!isPlainObject(parsed)) {
		return {
			config: {},
			warning: `Cursor settings file ${filePath} must contain a JSON object ({ ... }) but contains ${describeValue(parsed)}, so it is ignored. Replace its content with an object or delete the file; ${NOT_REWRITTEN}`,
		};
	}
	const { config, problems } = validateDocument(parsed);
	if (problems.length > 0) return { config, warning: invalidValuesWarning(filePath, problems) };
	return { config, document: parsed };
}

// ---------------------------------------------------------------------------------------------------------------
// Mutation helpers for update()
// ---------------------------------------------------------------------------------------------------------------

function objectField(document: ConfigDocument, key: string): Record<string, unknown> {
	const existing = document[key];
	if (Object.hasOwn(document, key) && isPlainObject(existing)) return existing;
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
		if (isPlainObject(local)) delete local.useHttp1ForAgent;
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
	if (!isPlainObject(value)) return;
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

// ---------------------------------------------------------------------------------------------------------------
// Filesystem helpers
// ---------------------------------------------------------------------------------------------------------------

function errorCode(error: unknown): string | undefined {
	return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
}

function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

function randomSuffix(): string {
	return randomBytes(6).toString("hex");
}

function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

interface HeldLock {
	readonly lockPath: string;
	readonly token: string;
}

async function breakStaleLock(lockPath: string, observed: fs.Stats): Promise<void> {
	const grave = `${lockPath}.stale.${process.pid}.${randomSuffix()}`;
	try {
		await fsp.rename(lockPath, grave);
	} catch {
		return; // someone else removed or replaced it first
	}
	let moved: fs.Stats | undefined;
	try {
		moved = await fsp.lstat(grave);
	} catch {
		return;
	}
	const same = moved.ino === observed.ino && moved.dev === observed.dev && moved.mtimeMs === observed.mtimeMs;
	if (!same) {
		// We raced and moved a fresh lock another writer had just created: put it back without clobbering anything.
		try {
			await fsp.link(grave, lockPath);
		} catch {
			// a newer lock already exists
		}
	}
	await removeQuietly(grave);
}

async function acquireLock(
	lockPath: string,
	timeoutMs: number,
	staleMs: number,
): Promise<HeldLock | { readonly timeout: true }> {
	const token = `${process.pid}.${randomSuffix()}`;
	const deadline = Date.now() + timeoutMs;
	let delay = 5;
	for (;;) {
		try {
			const handle = await fsp.open(lockPath, "wx", FILE_MODE);
			try {
				await handle.writeFile(JSON.stringify({ pid: process.pid, token, createdAt: new Date().toISOString() }));
			} finally {
				await handle.close();
			}
			return { lockPath, token };
		} catch (error) {
			if (errorCode(error) !== "EEXIST") throw error;
		}
		let stats: fs.Stats | undefined;
		try {
			stats = await fsp.lstat(lockPath);
		} catch (error) {
			if (errorCode(error) === "ENOENT") continue; // released meanwhile: retry at once
			throw error;
		}
		if (Date.now() - stats.mtimeMs > staleMs) {
			await breakStaleLock(lockPath, stats);
			continue;
		}
		const remaining = deadline - Date.now();
		if (remaining <= 0) return { timeout: true };
		await sleep(Math.min(remaining, delay + Math.floor(Math.random() * delay)));
		delay = Math.min(delay * 2, 100);
	}
}

async function releaseLock(lock: HeldLock): Promise<void> {
	try {
		const content = await fsp.readFile(lock.lockPath, "utf8");
		if (!content.includes(lock.token)) return; // our lock was broken as stale; leave the new owner's lock alone
	} catch {
		return;
	}
	await removeQuietly(lock.lockPath);
}

// ---------------------------------------------------------------------------------------------------------------
// The file adapter
// ---------------------------------------------------------------------------------------------------------------

/**
 * Adapter for one `cursor-sdk.json` path. Updates from one instance are queued; updates from other instances or
 * processes are serialized by the `<file>.lock` file.
 */
export class CursorSdkConfigFile {
	readonly path: string;
	readonly lockPath: string;
	readonly #lockTimeoutMs: number;
	readonly #lockStaleMs: number;
	#queue: Promise<unknown> = Promise.resolve();

	constructor(filePath: string, options: ConfigFileOptions = {}) {
		this.path = filePath;
		this.lockPath = `${filePath}.lock`;
		this.#lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
		this.#lockStaleMs = options.lockStaleMs ?? DEFAULT_LOCK_STALE_MS;
	}

	/** Reads and validates the file. Never throws. */
	async read(): Promise<ConfigReadResult> {
		let text: string;
		try {
			text = await fsp.readFile(this.path, "utf8");
		} catch (error) {
			return this.#readFailure(error);
		}
		return this.#fromText(text);
	}

	/** Synchronous variant of {@link read}. Never throws. */
	readSync(): ConfigReadResult {
		let text: string;
		try {
			text = fs.readFileSync(this.path, "utf8");
		} catch (error) {
			return this.#readFailure(error);
		}
		return this.#fromText(text);
	}

	/**
	 * Lock-protected read-modify-write. The mutator sees the current raw document (unknown fields included). An
	 * unusable file is refused with the same warning {@link read} reports and left byte-identical. Never throws.
	 */
	update(mutator: ConfigMutator): Promise<ConfigUpdateResult> {
		const run = this.#queue.then(
			() => this.#updateLocked(mutator),
			() => this.#updateLocked(mutator),
		);
		this.#queue = run;
		return run;
	}

	/** Saves `fastDefaults[modelKey] = fast`, touching no other key. */
	setFastDefault(modelKey: string, fast: boolean): Promise<ConfigUpdateResult> {
		return this.update((document) => {
			setFastDefault(document, modelKey, fast);
		});
	}

	/** Saves `local.useHttp1ForAgent` (or removes it for `undefined`). */
	setUseHttp1ForAgent(value: boolean | undefined): Promise<ConfigUpdateResult> {
		return this.update((document) => {
			setUseHttp1ForAgent(document, value);
		});
	}

	#readFailure(error: unknown): ConfigReadResult {
		if (errorCode(error) === "ENOENT") return { config: {}, exists: false };
		return {
			config: {},
			exists: true,
			warning: `Cursor settings file ${this.path} cannot be read (${errorText(error)}) and is ignored. Check that it is a readable file; ${NOT_REWRITTEN}`,
		};
	}

	#fromText(text: string): ConfigReadResult {
		const parsed = parseUserConfigText(text, this.path);
		return parsed.warning === undefined
			? { config: parsed.config, exists: true }
			: { config: parsed.config, warning: parsed.warning, exists: true };
	}

	async #updateLocked(mutator: ConfigMutator): Promise<ConfigUpdateResult> {
		try {
			await fsp.mkdir(path.dirname(this.path), { recursive: true, mode: DIR_MODE });
		} catch (error) {
			return { ok: false, reason: "io-error", message: this.#ioMessage(error) };
		}
		let lock: HeldLock | { readonly timeout: true };
		try {
			lock = await acquireLock(this.lockPath, this.#lockTimeoutMs, this.#lockStaleMs);
		} catch (error) {
			return { ok: false, reason: "io-error", message: this.#ioMessage(error) };
		}
		if ("timeout" in lock) {
			return {
				ok: false,
				reason: "lock-timeout",
				message: `Could not save Cursor settings to ${this.path}: another process holds ${this.lockPath}. Try again; if no other pi is running, delete the lock file.`,
			};
		}
		try {
			return await this.#modify(mutator);
		} catch (error) {
			return { ok: false, reason: "io-error", message: this.#ioMessage(error) };
		} finally {
			await releaseLock(lock);
		}
	}

	async #modify(mutator: ConfigMutator): Promise<ConfigUpdateResult> {
		let text: string | undefined;
		try {
			text = await fsp.readFile(this.path, "utf8");
		} catch (error) {
			if (errorCode(error) !== "ENOENT") {
				return { ok: false, reason: "invalid-file", message: this.#readFailure(error).warning ?? errorText(error) };
			}
		}
		const parsed = text === undefined ? { config: {}, document: {} } : parseUserConfigText(text, this.path);
		if (parsed.document === undefined) {
			return { ok: false, reason: "invalid-file", message: parsed.warning ?? `Cannot use ${this.path}.` };
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
		if (decision === false || after === before) return { ok: true, written: false, config: parsed.config };

		const recheck = validateDocument(document);
		if (recheck.problems.length > 0) {
			return {
				ok: false,
				reason: "invalid-update",
				message: `Refusing to save Cursor settings to ${this.path}: ${recheck.problems.join("; ")}.`,
			};
		}
		const keyField = addedApiKeyField(snapshot, document);
		if (keyField !== undefined) {
			return {
				ok: false,
				reason: "invalid-update",
				message: `Refusing to save "${keyField}" to ${this.path}: API keys are never stored in cursor-sdk.json. Use /login or CURSOR_API_KEY.`,
			};
		}
		const indent = text === undefined ? "\t" : detectIndent(text);
		const target = await resolveWriteTarget(this.path);
		await atomicWrite(target, `${JSON.stringify(document, null, indent)}\n`);
		return { ok: true, written: true, config: recheck.config };
	}

	#ioMessage(error: unknown): string {
		return `Could not save Cursor settings to ${this.path}: ${errorText(error)}`;
	}
}
