/**
 * The user-level `cursor-sdk.json` in Pi's agent directory: reading (never throws: problems become one actionable
 * warning and the bad parts are ignored) and lock-protected updates with an atomic replace. What the file may hold is
 * config-schema.ts; how an update changes it (and what it refuses) is config-edits.ts; the lock is config-lock.ts.
 */
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { atomicWrite, resolveWriteTarget } from "../fs/atomic-file.ts";
import {
	type ConfigEdit,
	type ConfigMutator,
	type ConfigUpdateFailureReason,
	editConfigText,
	setFastDefault,
	setUseHttp1ForAgent,
} from "./config-edits.ts";
import { acquireLock, type HeldLock, releaseLock } from "./config-lock.ts";
import { type CursorSdkUserConfig, NOT_REWRITTEN, parseUserConfigText } from "./config-schema.ts";

export const CURSOR_SDK_CONFIG_FILENAME = "cursor-sdk.json";

/** Path of the user config inside Pi's agent directory (for example `~/.pi/agent`). */
export function userConfigPath(agentDir: string): string {
	return path.join(agentDir, CURSOR_SDK_CONFIG_FILENAME);
}

export interface ConfigReadResult {
	/** The validated settings; `{}` when the file is missing or unusable. */
	readonly config: CursorSdkUserConfig;
	/** One actionable message naming the file and every problem, when the file is unusable or partly invalid. */
	readonly warning?: string;
	/** Whether the file exists. */
	readonly exists: boolean;
}

export type ConfigUpdateResult =
	| {
			readonly ok: true;
			/** False when the mutation left the content unchanged (or the mutator returned `false`). */
			readonly written: boolean;
			readonly config: CursorSdkUserConfig;
	  }
	| { readonly ok: false; readonly reason: ConfigUpdateFailureReason; readonly message: string };

export interface ConfigFileOptions {
	/** Total time to wait for the lock before giving up (default 5000 ms). */
	readonly lockTimeoutMs?: number;
	/** A lock file older than this is considered abandoned and removed (default 10000 ms). */
	readonly lockStaleMs?: number;
}

const DEFAULT_LOCK_TIMEOUT_MS = 5_000;
const DEFAULT_LOCK_STALE_MS = 10_000;
const DIR_MODE = 0o700;

function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

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
	readSync(): ConfigReadResult {
		let text: string;
		try {
			text = fs.readFileSync(this.path, "utf8");
		} catch (error) {
			return this.#readFailure(error);
		}
		const parsed = parseUserConfigText(text, this.path);
		return parsed.warning === undefined
			? { config: parsed.config, exists: true }
			: { config: parsed.config, warning: parsed.warning, exists: true };
	}

	/**
	 * Lock-protected read-modify-write. The mutator sees the current raw document (unknown fields included). An
	 * unusable file is refused with the same warning {@link readSync} reports and left byte-identical. Never throws.
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
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return { config: {}, exists: false };
		return {
			config: {},
			exists: true,
			warning: `Cursor settings file ${this.path} cannot be read (${errorText(error)}) and is ignored. Check that it is a readable file; ${NOT_REWRITTEN}`,
		};
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
			const failure = this.#readFailure(error);
			if (failure.warning !== undefined) return { ok: false, reason: "invalid-file", message: failure.warning };
		}
		const edit: ConfigEdit = editConfigText(text, this.path, mutator);
		if (!edit.ok) return edit;
		if (edit.text === undefined) return { ok: true, written: false, config: edit.config };
		await atomicWrite(await resolveWriteTarget(this.path), edit.text);
		return { ok: true, written: true, config: edit.config };
	}

	#ioMessage(error: unknown): string {
		return `Could not save Cursor settings to ${this.path}: ${errorText(error)}`;
	}
}
