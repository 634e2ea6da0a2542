// Cursor's own tool calls during one run: which started calls are still open, which completed ones wait to be shown
// as Pi tool cards (a batch ends the current assistant message), and what becomes a plain activity line instead.
import type { Message, ToolCall as PiToolCall } from "@earendil-works/pi-ai";
import { BRIDGE_SERVER_NAME } from "../bridge/snapshot.ts";
import { IN_PROCESS_SERVER_NAME } from "../bridge/transport.ts";
import type { MapContext, ReplayCard } from "../replay/mapping.ts";
import { cursorToolType, mapCompletedToolCall, mapIncompleteToolCall } from "../replay/mapping.ts";
import { incompleteReason, lifecycleLine, type RunOutcome } from "../replay/policy.ts";
import type { CursorReplay } from "../replay/replay.ts";
import type { RunningCard } from "../replay/running.ts";
import { ShellTracker } from "../replay/shell.ts";
import { sanitize } from "../replay/text.ts";
import { formatActivityLine, formatPrintTrace } from "../replay/trace.ts";

/** How long a long-running Cursor tool runs before it gets a lifecycle line (fast completions get none). */
export const LIFECYCLE_DELAY_MS = 1_000;

/** Where a turn shows Cursor's tool activity. */
export interface ToolDisplay {
	/** The replay subsystem; undefined shows every call as an activity line. */
	replay: CursorReplay | undefined;
	/** Print mode: no cards; one trace line per call on stderr. */
	print: boolean;
	/** The request's tool names (Pi only runs declared tools). */
	declared: ReadonlySet<string> | undefined;
	context: MapContext;
	/** Writes a print-mode trace line (stderr). */
	trace(line: string): void;
}

/**
 * Cursor's MCP call of a bridged Pi tool, through the loopback server or in process (we pass no other in-process
 * tools): Pi itself runs and shows that tool, so no Cursor card.
 */
function isBridgeCall(toolCall: unknown): boolean {
	const call = toolCall as { type?: unknown; args?: { providerIdentifier?: unknown } } | undefined;
	const provider = call?.args?.providerIdentifier;
	return call?.type === "mcp" && (provider === BRIDGE_SERVER_NAME || provider === IN_PROCESS_SERVER_NAME);
}

/** The tools a request declares: Pi's system messages add and remove them as the conversation goes. */
export function declaredTools(messages: readonly Message[]): Set<string> {
	const names = new Set<string>();
	for (const message of messages) {
		if (message.role !== "system") continue;
		for (const tool of message.toolsAdded ?? []) names.add(tool.name);
		for (const tool of message.toolsRemoved ?? []) names.delete(tool.name);
	}
	return names;
}

/** What a tool event asks of the current assistant message. */
export interface ToolEffect {
	/** A line to show in the message's thinking (activity without a card, or a lifecycle line). */
	line?: string;
	/** Print mode: text for the answer itself (Cursor's plan, which `pi -p` prints). */
	answer?: string;
}

export class RunTools {
	/** Started calls not yet completed: call id → the SDK's tool call. */
	readonly open = new Map<string, { toolCall: unknown; startedAt: number }>();
	private readonly shells = new ShellTracker();
	private batch: ReplayCard[] = [];
	/** Calls shown as cards while they run (by the call id they started under). */
	private readonly running = new Map<string, { card: RunningCard; toolCall: unknown; context: MapContext }>();

	started(callId: string, toolCall: unknown): void {
		if (isBridgeCall(toolCall)) return;
		this.open.set(callId, { toolCall, startedAt: Date.now() });
		this.shells.started(callId, toolCall);
	}

	/** The lifecycle line of a call still running (long-running kinds only). */
	lifecycle(callId: string, display: ToolDisplay): string | undefined {
		const open = this.open.get(callId);
		return open && !display.print ? lifecycleLine(open.toolCall, display.context) : undefined;
	}

	/** A `shell-output-delta`: the live output of the one running shell, shown on its card when it has one. */
	shellOutput(event: unknown): void {
		const progress = this.shells.delta(event);
		const running = progress && this.running.get(progress.callId);
		if (running && progress) {
			running.card.progress(sanitize(progress.text, running.context.secrets).replace(/\n+$/, ""));
		}
	}

	/**
	 * A shell command still running after a moment: the `bash` card to end the message with now, its output following
	 * live (undefined: not a shell, print mode, already shown, or not a card Pi can show).
	 */
	startRunning(callId: string, display: ToolDisplay): PiToolCall | undefined {
		const open = this.open.get(callId);
		if (!open || display.print || !display.replay || this.running.has(callId)) return undefined;
		if (cursorToolType(open.toolCall) !== "shell") return undefined;
		const started = display.replay.startRunning(callId, open.toolCall, display.context, display.declared);
		if (!started) return undefined;
		this.running.set(callId, { card: started.running, toolCall: open.toolCall, context: display.context });
		return started.block;
	}

	/** The completion of a call shown while running: its card gets Cursor's result. False for any other call. */
	completeRunning(callId: string, toolCall: unknown): boolean {
		const startedId = this.running.has(callId) ? callId : this.shells.startedIdOf(callId, toolCall);
		const entry = startedId === undefined ? undefined : this.running.get(startedId);
		if (!entry || startedId === undefined) return false;
		const shell = this.shells.completed(callId, toolCall);
		this.open.delete(startedId);
		this.running.delete(startedId);
		const context = shell?.liveOutput ? { ...entry.context, liveShellOutput: shell.liveOutput } : entry.context;
		entry.card.finish(mapCompletedToolCall(startedId, toolCall, context));
		return true;
	}

	/** The run ended (or was given up) while cards still showed running calls: they end as incomplete. */
	endRunning(outcome: RunOutcome): void {
		for (const [callId, entry] of this.running) {
			this.open.delete(callId);
			entry.card.finish(mapIncompleteToolCall(callId, entry.toolCall, entry.context, incompleteReason(outcome)));
		}
		this.running.clear();
	}

	/** Whether one of these Pi tool-call ids is a card of a call still running. */
	showsRunning(ids: ReadonlySet<string>): boolean {
		return [...this.running.values()].some((entry) => ids.has(entry.card.id));
	}

	completed(callId: string, toolCall: unknown, display: ToolDisplay): ToolEffect {
		if (isBridgeCall(toolCall)) return {}; // Pi shows its own tool's execution
		const shell = this.shells.completed(callId, toolCall);
		this.open.delete(shell?.startedCallId ?? callId);
		const context = shell?.liveOutput ? { ...display.context, liveShellOutput: shell.liveOutput } : display.context;
		if (display.print || !display.replay) {
			const card = mapCompletedToolCall(callId, toolCall, context);
			if (display.print) {
				display.trace(formatPrintTrace(card));
				const plan = card.result.details.plan;
				return plan ? { answer: plan } : {};
			}
			return { line: formatActivityLine(card) };
		}
		const route = display.replay.completed(callId, toolCall, context, display.declared);
		if (route.kind === "card") {
			this.batch.push(route.card);
			return {};
		}
		return { line: formatActivityLine(route.card) };
	}

	/** At the end of the run: calls that started and never completed, shown when the policy says so. */
	incomplete(outcome: RunOutcome, display: ToolDisplay): ToolEffect[] {
		const effects: ToolEffect[] = [];
		for (const [callId, { toolCall }] of this.open) {
			if (display.print || !display.replay) continue;
			const route = display.replay.incomplete(callId, toolCall, display.context, outcome, display.declared);
			if (route?.kind === "card") this.batch.push(route.card);
			else if (route) effects.push({ line: formatActivityLine(route.card) });
		}
		this.open.clear();
		return effects;
	}

	/** Completed cards are waiting and no call is still running: the message can end with them. */
	get batchReady(): boolean {
		return this.batch.length > 0 && this.open.size === 0;
	}

	get hasBatch(): boolean {
		return this.batch.length > 0;
	}

	takeBatch(): ReplayCard[] {
		const cards = this.batch;
		this.batch = [];
		return cards;
	}
}
