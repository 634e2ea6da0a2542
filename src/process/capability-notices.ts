// Capability notices: two SDK console warnings mean a Cursor capability is silently missing, yet they arrive as raw
// log text that garbles Pi's TUI. While a Cursor send runs, such a warning is replaced by a notice with fixed
// guidance (no paths or SDK metadata), shown at most once per kind per request.
//
// Like the INFO-frame filter, the hook lives on the console object (installed once); listeners are per extension
// instance. An identical line printed by an unrelated emitter during a send would be taken for the SDK's.

import { ANSI_SGR } from "./quiet-diagnostics.ts";

export const CAPABILITY_NOTICE_TYPE = "pi-cursor-sdk:capability-notice";

export type CapabilityKind = "native-parser" | "plugin-confinement";

export const CAPABILITY_GUIDANCE: Readonly<Record<CapabilityKind, string>> = {
	"native-parser":
		"Cursor's shell command analysis is unavailable: the SDK's native parser (tree-sitter) was not found. Reinstall pi-cursor-sdk (npm install), or unset a stale CURSOR_TREE_SITTER_VENDOR_DIR; /cursor-doctor shows details.",
	"plugin-confinement":
		"Cursor skipped a local plugin because its symlink points outside the plugins directory. Copy the plugin into the directory instead of linking it; /cursor-doctor shows details.",
};

/** The capability a console line reports as missing, if it is one of the SDK's known warnings. */
export function classifyCapabilityWarning(text: string): CapabilityKind | undefined {
	const plain = text.replace(ANSI_SGR, "");
	if (/shell-parser: tree-sitter natives are unavailable/.test(plain)) return "native-parser";
	if (/loadUserLocalPlugin \S+ rejected: (symlink target .* is outside|failed to resolve symlink)/.test(plain)) {
		return "plugin-confinement";
	}
	return undefined;
}

/** Returns true when it took care of the warning (the raw line is then not printed). */
export type CapabilityListener = (kind: CapabilityKind) => boolean;

const HOOK = Symbol.for("pi-cursor-sdk.capability-notices");

type HookedConsole = Console & { [HOOK]?: Set<CapabilityListener> };

function installHook(target: HookedConsole): Set<CapabilityListener> {
	const existing = target[HOOK];
	if (existing) return existing;
	const listeners = new Set<CapabilityListener>();
	target[HOOK] = listeners;
	for (const method of ["warn", "error", "log"] as const) {
		const original = target[method];
		target[method] = (...args: unknown[]) => {
			const kind = listeners.size > 0 ? classifyCapabilityWarning(args.map(String).join(" ")) : undefined;
			let handled = false;
			if (kind) {
				for (const listener of [...listeners]) {
					try {
						handled = listener(kind) || handled;
					} catch {
						// a broken listener must not swallow the console
					}
				}
			}
			if (!handled) original.apply(target, args);
		};
	}
	return listeners;
}

/** Listens for capability warnings on `target` (default: the process console); returns the unsubscribe function. */
export function watchCapabilityWarnings(listener: CapabilityListener, target: Console = console): () => void {
	const listeners = installHook(target as HookedConsole);
	listeners.add(listener);
	return () => {
		listeners.delete(listener);
	};
}

/** Decides, per request, which notices to show: each kind once while a send of this request is running. */
export class CapabilityNotices {
	private active = 0;
	private shown = new Set<CapabilityKind>();

	/** A new request (a Cursor send started): every kind may be shown again. */
	requestStarted(): void {
		if (this.active === 0) this.shown = new Set();
		this.active++;
	}

	requestEnded(): void {
		this.active = Math.max(0, this.active - 1);
	}

	/**
	 * What to do with a warning: `"show"` (first of its kind in this request), `"drop"` (already shown) or `"ignore"`
	 * (no send of ours is running: not ours to handle).
	 */
	decide(kind: CapabilityKind): "show" | "drop" | "ignore" {
		if (this.active === 0) return "ignore";
		if (this.shown.has(kind)) return "drop";
		this.shown.add(kind);
		return "show";
	}
}
