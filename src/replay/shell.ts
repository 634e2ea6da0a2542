// Cursor shell calls of one run: which started call a completion belongs to, and which `shell-output-delta` chunks can
// be shown as live progress. Deltas carry no call id, so they are attributed only while exactly one shell runs.
import { boundTail } from "./text.ts";

/** Live progress shown for a running shell: the last lines only. */
const PROGRESS_MAX_LINES = 40;
const PROGRESS_MAX_CHARS = 4000;
/** Output kept per running shell (a display-only fallback when the completion reports none). */
const KEPT_MAX_CHARS = 50_000;

interface PendingShell {
	argsKey: string;
	output: string;
}

export interface ShellProgress {
	/** The call id of the one running shell. */
	callId: string;
	/** Its output so far, bounded to the last lines. */
	text: string;
}

export interface ShellCompletion {
	/** The call id the shell was started under (may differ from the completion's). */
	startedCallId: string;
	/** Everything the live deltas showed (bounded), for an empty successful completion. */
	liveOutput: string;
}

function argsKeyOf(toolCall: unknown): string | undefined {
	const call = toolCall as { type?: unknown; args?: { command?: unknown; workingDirectory?: unknown } } | undefined;
	if (call?.type !== "shell" || typeof call.args?.command !== "string") return undefined;
	return JSON.stringify([call.args.command, call.args.workingDirectory ?? null]);
}

/** The text of a `shell-output-delta` event (`{case: "stdout"|"stderr", value: {data}}`), else undefined. */
export function shellDeltaText(event: unknown): string | undefined {
	const e = event as { case?: unknown; value?: { data?: unknown } } | undefined;
	if (e?.case !== "stdout" && e?.case !== "stderr") return undefined;
	return typeof e.value?.data === "string" ? e.value.data : undefined;
}

export class ShellTracker {
	private readonly pending = new Map<string, PendingShell>();

	/** A `tool-call-started` update; only shell calls are tracked. */
	started(callId: string, toolCall: unknown): void {
		const argsKey = argsKeyOf(toolCall);
		if (argsKey !== undefined) this.pending.set(callId, { argsKey, output: "" });
	}

	/** A live `shell-output-delta`: progress for the one running shell, or undefined (none, or ambiguous). */
	delta(event: unknown): ShellProgress | undefined {
		if (this.pending.size !== 1) return undefined;
		const text = shellDeltaText(event);
		if (!text) return undefined;
		const [callId, shell] = this.pending.entries().next().value as [string, PendingShell];
		shell.output = (shell.output + text).slice(-KEPT_MAX_CHARS);
		return { callId, text: boundTail(shell.output, PROGRESS_MAX_LINES, PROGRESS_MAX_CHARS).text };
	}

	/**
	 * The started call a completion belongs to: the pending shell with the same call id, else the only pending shell
	 * with identical arguments. Undefined when neither matches (nothing was tracked, or the match would be a guess).
	 */
	startedIdOf(callId: string, toolCall: unknown): string | undefined {
		if (this.pending.has(callId)) return callId;
		const argsKey = argsKeyOf(toolCall);
		const same = [...this.pending].filter(([, shell]) => shell.argsKey === argsKey);
		return argsKey !== undefined && same.length === 1 ? same[0]?.[0] : undefined;
	}

	/** A completed shell call (see {@link startedIdOf}): stops tracking it and returns what its deltas showed. */
	completed(callId: string, toolCall: unknown): ShellCompletion | undefined {
		const startedCallId = this.startedIdOf(callId, toolCall);
		if (startedCallId === undefined) return undefined;
		const shell = this.pending.get(startedCallId) as PendingShell;
		this.pending.delete(startedCallId);
		return { startedCallId, liveOutput: shell.output };
	}

	/** Started shells that never completed (for the incomplete-tool policy). */
	get running(): readonly string[] {
		return [...this.pending.keys()];
	}

	clear(): void {
		this.pending.clear();
	}
}
