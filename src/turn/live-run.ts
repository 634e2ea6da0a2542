// One SDK run that may span several Pi provider turns. When Cursor's tool calls end a Pi assistant message
// (`toolUse`), the run goes on in the SDK while Pi shows the calls; what the SDK reports meanwhile is buffered, and
// the provider call that brings Pi's tool results attaches again and continues streaming the same run.
import type { Message, UserMessage } from "@earendil-works/pi-ai";
import type { BridgeCall, BridgeContent, BridgeToolResult } from "../bridge/calls.ts";
import type { BridgeRun } from "../bridge/run.ts";
import type { InteractionUpdate, Run, RunResult, SteerOutcome } from "../sdk/cursor-sdk.ts";
import type { SendStarted } from "./observer.ts";
import { steerText } from "./steer.ts";
import { RunTools } from "./tools.ts";
import type { AgentLease } from "./types.ts";
import type { CursorTurnUsage } from "./usage.ts";

export type LiveEvent =
	| { kind: "update"; update: InteractionUpdate }
	| { kind: "step" }
	/** Cursor called a Pi tool through the bridge: Pi must run it (a `toolCall` in the message) and answer. */
	| { kind: "bridge-call"; call: BridgeCall };

export type RunSettlement = { result: RunResult } | { error: unknown };

export interface LiveSink {
	/** One SDK event; the sink may return a promise the SDK should wait for (e.g. to let Pi draw). */
	event(event: LiveEvent): Promise<void> | undefined;
	/** The run ended (after every event it produced). */
	settled(settlement: RunSettlement): void;
}

export class LiveRun {
	/** The Pi tool-call ids of the last `toolUse` message: the next provider call must answer all of them. */
	awaiting: ReadonlySet<string> = new Set();
	/** Cursor's tool calls of this run, across provider turns. */
	readonly tools = new RunTools();
	/** Whether the run produced assistant text (in any of its messages). */
	producedText = false;
	/** The latest `turn-ended` usage, exactly as the SDK reported it. */
	rawUsage: CursorTurnUsage | undefined;
	/** The SDK run, once `send` returned. */
	run: Run | undefined;
	/** The run's Pi tool bridge (closed with the run). */
	bridge: BridgeRun | undefined;
	/** Pi's steering that Cursor's running turn did not take: sent as a follow-up on the same agent when the run ends. */
	readonly deferred: UserMessage[] = [];
	/** Steers still waiting for Cursor's answer (the run's end waits for them: a revert adds to `deferred`). */
	private readonly steers = new Set<Promise<void>>();
	/** Bridged calls handed to Pi, by Pi tool-call id: Pi's result goes back into the same MCP request. */
	private readonly bridged = new Map<string, (result: BridgeToolResult) => void>();
	private readonly buffer: LiveEvent[] = [];
	private sink: LiveSink | undefined;
	private settlement: RunSettlement | undefined;
	private idleTimer: ReturnType<typeof setTimeout> | undefined;
	private done = false;

	constructor(
		readonly lease: AgentLease,
		public send: SendStarted,
		/** Disposes a run left waiting for Pi this long (`PI_CURSOR_LIVE_RUN_IDLE_DISPOSE_MS`). */
		private readonly idleDisposeMs: number,
		/** Called once when the run is given up (cancelled and its lease released). */
		private readonly onDispose: (run: LiveRun) => void,
	) {}

	/** Starts following the SDK run's outcome. */
	started(run: Run): void {
		this.run = run;
		run.wait().then(
			(result) => this.settle({ result }),
			(error: unknown) => this.settle({ error }),
		);
	}

	get attached(): boolean {
		return this.sink !== undefined;
	}

	get disposed(): boolean {
		return this.done;
	}

	/**
	 * Pi's steering of this run: into Cursor's running turn with `Run.steer` when `intoRun` (local runs) and the
	 * messages are text; else, or when Cursor answers `revert_to_followup` (or the steer fails), kept in `deferred`.
	 */
	steer(messages: readonly UserMessage[], intoRun: boolean): void {
		const text = steerText(messages);
		const run = this.run;
		if (!intoRun || text === undefined || !run?.steer || this.settlement) {
			this.deferred.push(...messages);
			return;
		}
		const outcome: Promise<SteerOutcome> = run.steer(text).catch(() => "revert_to_followup" as const);
		const answered = outcome.then((answer) => {
			this.steers.delete(answered);
			if (answer !== "complete_delivered") this.deferred.push(...messages);
		});
		this.steers.add(answered);
	}

	/** Whether Pi's steering of this run waits for Cursor's answer or for a follow-up (it has not reached Cursor). */
	get steerPending(): boolean {
		return this.deferred.length > 0 || this.steers.size > 0;
	}

	/** Waits until Cursor answered every steer of this run (the SDK bounds each: 15 s without an answer reverts). */
	async steered(): Promise<void> {
		while (this.steers.size > 0) await Promise.all([...this.steers]);
	}

	/** An SDK event: to the attached provider turn, or buffered until Pi calls again. */
	push(event: LiveEvent): Promise<void> | undefined {
		if (event.kind === "update" && this.showRunning(event.update)) return undefined;
		if (this.sink) return this.sink.event(event);
		this.buffer.push(event);
		return undefined;
	}

	/**
	 * Updates for calls shown while they run go to their cards at once, attached or not (Pi waits on those cards):
	 * live shell output (also passed on, as activity), and the completion of such a call (consumed: already shown).
	 */
	private showRunning(update: unknown): boolean {
		const u = update as { type?: unknown; callId?: unknown; toolCall?: unknown; event?: unknown } | null;
		if (u?.type === "shell-output-delta") this.tools.shellOutput(u.event);
		return (
			u?.type === "tool-call-completed" &&
			typeof u.callId === "string" &&
			this.tools.completeRunning(u.callId, u.toolCall)
		);
	}

	private settle(settlement: RunSettlement): void {
		if (this.settlement) return;
		this.settlement = settlement;
		const status = "error" in settlement ? "error" : settlement.result.status;
		this.tools.endRunning({
			status: status === "finished" || status === "cancelled" ? status : "error",
			producedText: this.producedText,
		});
		this.sink?.settled(settlement);
	}

	/** The bridge's handler: the call goes to Pi through the provider turn, and resolves with Pi's tool result. */
	bridgeCall(call: BridgeCall): Promise<BridgeToolResult> {
		return new Promise((resolve) => {
			this.bridged.set(call.toolCallId, resolve);
			// Expired or cancelled: the bridge has answered Cursor; a result Pi brings later goes nowhere.
			call.signal.addEventListener("abort", () => this.bridged.delete(call.toolCallId), { once: true });
			this.push({ kind: "bridge-call", call });
		});
	}

	/** Whether Cursor still waits for Pi's result of this bridged call (not expired, cancelled or closed). */
	awaitsBridgeResult(toolCallId: string): boolean {
		return this.bridged.has(toolCallId);
	}

	/** Hands Pi's results for bridged calls (the trailing tool results of `messages`) back to Cursor. */
	answer(messages: readonly Message[]): void {
		for (let i = messages.length - 1; i >= 0; i--) {
			const message = messages[i];
			if (message?.role !== "toolResult") break;
			const resolve = this.bridged.get(message.toolCallId);
			if (!resolve) continue;
			this.bridged.delete(message.toolCallId);
			const content: BridgeContent[] = message.content.map((part) =>
				part.type === "text"
					? { type: "text", text: part.text }
					: { type: "image", data: part.data, mimeType: part.mimeType },
			);
			resolve({ content, isError: message.isError });
		}
	}

	/** A provider turn takes over the run: buffered events first, then live ones (and the outcome, if known). */
	attach(sink: LiveSink): void {
		clearTimeout(this.idleTimer);
		this.sink = sink;
		while (this.buffer.length > 0 && this.sink === sink) {
			sink.event(this.buffer.shift() as LiveEvent);
		}
		if (this.sink === sink && this.settlement) sink.settled(this.settlement);
	}

	/**
	 * The provider turn ended with Cursor's tool calls: Pi runs them and calls again. Until then events are
	 * buffered, and a run nobody comes back for is disposed after the idle window.
	 */
	detach(awaiting: ReadonlySet<string>): void {
		this.sink = undefined;
		this.awaiting = awaiting;
		// A bridged call keeps the run (its own deadline bounds it: Pi's tool may wait for a human); so does a card of a
		// call still running (Pi waits on it; the run's end ends the card).
		if ([...awaiting].some((id) => this.bridged.has(id)) || this.tools.showsRunning(awaiting)) return;
		this.idleTimer = setTimeout(() => this.dispose(), this.idleDisposeMs);
		this.idleTimer.unref?.();
	}

	/** The run's last provider turn has ended it (finished or failed): nothing is left to give up. */
	close(): void {
		this.done = true;
		clearTimeout(this.idleTimer);
		this.sink = undefined;
		this.stopServing();
	}

	/** The run is over for Pi: its bridge closes and cards of calls still running end. */
	private stopServing(): void {
		this.tools.endRunning({ status: "cancelled", producedText: this.producedText });
		this.bridged.clear();
		void this.bridge?.close().catch(() => {});
	}

	/** Gives the run up: cancels it in the SDK and releases its lease (the pooled agent is replaced). */
	dispose(): void {
		if (this.done) return;
		this.done = true;
		clearTimeout(this.idleTimer);
		this.sink = undefined;
		this.buffer.length = 0;
		void this.run?.cancel().catch(() => {});
		this.stopServing();
		this.onDispose(this);
	}
}
