/**
 * Cursor-only session state persisted as Pi custom entries (`pi.appendEntry(customType, data)`), which appear on the
 * session branch as `{ type: "custom", customType, data }`. The in-memory state is only a cache rebuilt from the
 * branch on `session_start` (startup, resume, fork, reload) with {@link restoreSessionState}. Entries are checked
 * against their schemas when restored: a malformed one is ignored.
 */
import { Type } from "typebox";
import { Value } from "typebox/value";
import { defineOwn } from "./plain-data.ts";
import { type CursorRuntime, RUNTIMES } from "./runtime.ts";

export const FAST_ENTRY_TYPE = "pi-cursor-sdk:fast";
export const MODE_ENTRY_TYPE = "pi-cursor-sdk:mode";
export const HTTP_ENTRY_TYPE = "pi-cursor-sdk:http";
export const RUNTIME_ENTRY_TYPE = "pi-cursor-sdk:runtime";

export const CURSOR_MODES = ["agent", "plan"] as const;
/** Cursor SDK conversation mode (`AgentModeOption`). */
export type CursorMode = (typeof CURSOR_MODES)[number];

export interface FastEntryData {
	/** The selected SDK model id or alias the preference belongs to. */
	readonly modelKey: string;
	readonly fast: boolean;
}
export interface ModeEntryData {
	readonly mode: CursorMode;
}
export interface HttpEntryData {
	/** `true`/`false` pin the session transport; `null` clears the session preference (fall through to env/user). */
	readonly useHttp1: boolean | null;
}

/** Cursor-only state for one session branch. */
export interface CursorSessionState {
	/** Per-session fast preference keyed by selected SDK model id/alias (own properties only). */
	readonly fast: Readonly<Record<string, boolean>>;
	/** Session SDK mode, `undefined` when never set on this branch. */
	readonly mode: CursorMode | undefined;
	/** Session HTTP/1.1 preference: `undefined` (never set) or `null` (cleared) fall through to env/user config. */
	readonly useHttp1: boolean | null | undefined;
	/** Session runtime (`/cursor-runtime`), `undefined` when never set on this branch. */
	readonly runtime: CursorRuntime | undefined;
}

/** A custom entry ready for `pi.appendEntry(entry.customType, entry.data)`. */
export type SessionStateEntry =
	| { readonly customType: typeof FAST_ENTRY_TYPE; readonly data: FastEntryData }
	| { readonly customType: typeof MODE_ENTRY_TYPE; readonly data: ModeEntryData }
	| { readonly customType: typeof HTTP_ENTRY_TYPE; readonly data: HttpEntryData }
	| { readonly customType: typeof RUNTIME_ENTRY_TYPE; readonly data: { readonly runtime: CursorRuntime } };

/** Returns the state of a branch with no Cursor entries. */
export function emptySessionState(): CursorSessionState {
	return {
		fast: Object.create(null) as Record<string, boolean>,
		mode: undefined,
		useHttp1: undefined,
		runtime: undefined,
	};
}

/** True for `"agent"` / `"plan"`. */
export function isCursorMode(value: unknown): value is CursorMode {
	return value === "agent" || value === "plan";
}

/** Builds the entry recording a session fast preference for `modelKey`. */
export function fastEntry(modelKey: string, fast: boolean): SessionStateEntry {
	return { customType: FAST_ENTRY_TYPE, data: { modelKey, fast } };
}

/** Builds the entry recording the session SDK mode. */
export function modeEntry(mode: CursorMode): SessionStateEntry {
	return { customType: MODE_ENTRY_TYPE, data: { mode } };
}

/** Builds the entry recording the session HTTP/1.1 preference (`null` clears it). */
export function httpEntry(useHttp1: boolean | null): SessionStateEntry {
	return { customType: HTTP_ENTRY_TYPE, data: { useHttp1 } };
}

/** Builds the entry recording the session runtime. */
export function runtimeEntry(runtime: CursorRuntime): SessionStateEntry {
	return { customType: RUNTIME_ENTRY_TYPE, data: { runtime } };
}

const FAST_DATA = Type.Object({ modelKey: Type.String({ minLength: 1 }), fast: Type.Boolean() });
const MODE_DATA = Type.Object({ mode: Type.Union(CURSOR_MODES.map((mode) => Type.Literal(mode))) });
const HTTP_DATA = Type.Object({ useHttp1: Type.Union([Type.Boolean(), Type.Null()]) });
const RUNTIME_DATA = Type.Object({ runtime: Type.Union(RUNTIMES.map((runtime) => Type.Literal(runtime))) });
/** A custom entry on a session branch (`data` is checked by its type's schema). */
const CUSTOM_ENTRY = Type.Object({
	type: Type.Literal("custom"),
	customType: Type.String(),
	data: Type.Optional(Type.Unknown()),
	timestamp: Type.Optional(Type.Unknown()),
});

/**
 * Applies one custom entry (`customType` + `data`) to `state`, returning a new state. Entries of other types or with
 * malformed data return `state` unchanged. Use this to update the in-memory cache after a successful `appendEntry`.
 */
export function applySessionEntry(state: CursorSessionState, customType: string, data: unknown): CursorSessionState {
	switch (customType) {
		case FAST_ENTRY_TYPE: {
			if (!Value.Check(FAST_DATA, data)) return state;
			const next = Object.assign(Object.create(null) as Record<string, boolean>, state.fast);
			defineOwn(next, data.modelKey, data.fast);
			return { ...state, fast: next };
		}
		case MODE_ENTRY_TYPE:
			return Value.Check(MODE_DATA, data) ? { ...state, mode: data.mode } : state;
		case HTTP_ENTRY_TYPE:
			return Value.Check(HTTP_DATA, data) ? { ...state, useHttp1: data.useHttp1 } : state;
		case RUNTIME_ENTRY_TYPE:
			return Value.Check(RUNTIME_DATA, data) ? { ...state, runtime: data.runtime } : state;
		default:
			return state;
	}
}

/**
 * Rebuilds Cursor session state from a branch (`ctx.sessionManager.getBranch()`, root → leaf). The last valid entry
 * of each kind wins (per model key for fast); non-custom and malformed entries are ignored. With `since` (epoch ms),
 * only the entries Pi stamped at or after it count: the choices commands made since a run started (an entry without
 * a readable timestamp is older).
 */
export function restoreSessionState(branchEntries: readonly unknown[], since?: number): CursorSessionState {
	let state = emptySessionState();
	for (const entry of branchEntries) {
		if (!Value.Check(CUSTOM_ENTRY, entry)) continue;
		if (since !== undefined && !(stampOf(entry.timestamp) >= since)) continue;
		state = applySessionEntry(state, entry.customType, entry.data);
	}
	return state;
}

/** Pi's ISO timestamp of an entry in epoch ms (NaN when absent or unreadable). */
function stampOf(timestamp: unknown): number {
	return typeof timestamp === "string" ? Date.parse(timestamp) : Number.NaN;
}
