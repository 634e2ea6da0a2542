// One provider turn attached to a live SDK run: SDK events become this assistant message, until a batch of Cursor
// tool calls ends it (`toolUse`), the run ends, or the turn's watch ends it.
import type { ToolCall as PiToolCall, TranscriptContext } from "@earendil-works/pi-ai";
import type { TurnRuntime } from "../runtime/types.ts";
import type { InteractionUpdate, RunResult } from "../sdk/cursor-sdk.ts";
import { type CursorError, classifyCursorError, scrubText } from "../sdk/errors.ts";
import type { LiveEvent, LiveRun, RunSettlement } from "./live-run.ts";
import { LoopYield } from "./loop-yield.ts";
import { notifyObserver, type SendOutcome, type TurnObserver } from "./observer.ts";
import { LIFECYCLE_DELAY_MS, type ToolDisplay } from "./tools.ts";
import { type TurnTranslator, wellFormedUpdate } from "./translate.ts";
import type { TurnSetup } from "./types.ts";
import { ABORTED, type TurnFailure, type TurnWatch } from "./watch.ts";

/**
 * A run that ended with an error although nobody cancelled it. The SDK reports a broken stream as "aborted" (e.g.
 * `[unknown] [aborted] aborted`); that is a lost connection, not the user's abort, and its internal wording would read
 * as one, so only the rest of the detail (if any) is shown.
 */
function runFailure(result: RunResult, secrets: readonly string[]): CursorError {
	const { message: reported, code } = (result.error ?? {}) as { message?: unknown; code?: unknown };
	const text = typeof reported === "string" && reported.trim() !== "" ? reported : "Cursor run failed";
	// A cloud run reports its code apart (`{code, message}`); the classification reads it as `[code] message`.
	const message = typeof code === "string" && !text.startsWith("[") ? `[${code}] ${text}` : text;
	if (/\baborted\b/i.test(message) && !/\[(unauthenticated|resource_exhausted)\]/.test(message)) {
		const detail = scrubText(message.replace(/\[[a-z_]+\]|\baborted\b/gi, " ").replace(/\s+/g, " "), secrets)
			.replace(/^[\s:.,;-]+|[\s:.,;-]+$/g, "")
			.trim();
		return {
			kind: "network",
			message: `The connection to Cursor was lost before the answer finished (network error${detail ? `: ${detail}` : ""}). Retry; the partial answer above is kept.`,
		};
	}
	return classifyCursorError(new Error(message), secrets);
}

/**
 * A run that failed while Pi's steering had not reached it: the agent is replaced, so the message goes, with the whole
 * conversation, to a new Cursor agent at the next send (wording kept clear of Pi's retry patterns: it changes nothing
 * about whether Pi retries).
 */
function withSteerLost(failure: TurnFailure): TurnFailure {
	if (failure.kind === "aborted") return failure;
	return {
		kind: failure.kind,
		message: `${failure.message}${/[.!?]$/.test(failure.message) ? "" : "."} Your steering message had not reached Cursor's turn: the next send gives it, with the whole conversation, to a new Cursor agent.`,
	};
}

const textDelta = (text: string) => ({ type: "text-delta", text }) as InteractionUpdate;

export function notifySendEnded(
	observer: TurnObserver | undefined,
	live: LiveRun,
	outcome: SendOutcome,
	translator?: TurnTranslator,
	failure?: TurnFailure,
): void {
	if (!observer?.sendEnded) return;
	translator?.applyUsage(outcome === "finished");
	const estimated = translator?.usageEstimate;
	notifyObserver(observer, "sendEnded", {
		...live.send,
		outcome,
		rawUsage: live.rawUsage,
		mappedUsage: translator?.message.usage,
		...(estimated ? { usageEstimate: estimated } : {}),
		...(failure ? { error: failure.message } : {}),
		...(failure && failure.kind !== "aborted" ? { errorKind: failure.kind } : {}),
		endedAt: Date.now(),
	});
}

/**
 * One provider turn attached to a live run: SDK events become this assistant message, until a batch of Cursor tool
 * calls ends it (`toolUse`), the run ends, or the watch ends the turn.
 */
export class ProviderTurn {
	private readonly display: ToolDisplay;
	private readonly loop = new LoopYield();
	private readonly secrets: string[];
	private readonly lifecycleTimers = new Set<ReturnType<typeof setTimeout>>();
	private resolveEnd: () => void = () => {};
	private readonly end = new Promise<void>((resolve) => {
		this.resolveEnd = resolve;
	});
	private over = false;
	private translateError: unknown;
	/**
	 * Set when the run finished with Pi's steering it did not take (`LiveRun.deferred`): the lease is still held and
	 * the caller sends those messages as a follow-up on the same agent, continuing this assistant message.
	 */
	followUp: { live: LiveRun; messages: LiveRun["deferred"] } | undefined;
	/**
	 * Set by a fresh send on the pooled agent: a key rejection before any output is then the agent's stale session
	 * (it idled), not the key. The lease is released (the agent replaced) and `recreate` asks for one more send.
	 */
	recreateOnAuthFailure = false;
	recreate = false;

	constructor(
		private readonly runtime: TurnRuntime,
		private readonly translator: TurnTranslator,
		private readonly context: TranscriptContext,
		setup: TurnSetup,
		private readonly watch: TurnWatch,
		private readonly live: LiveRun,
	) {
		this.display = runtime.toolDisplay(context, setup);
		this.secrets = [setup.apiKey];
	}

	/** Streams the live run into this message until the turn ends. */
	async follow(): Promise<void> {
		const onWatch = () => void this.stop(this.watch.failure ?? ABORTED);
		this.watch.signal.addEventListener("abort", onWatch, { once: true });
		if (this.watch.failure) onWatch();
		else {
			this.live.attach({
				event: (event) => this.event(event),
				settled: (settlement) => void this.settled(settlement),
			});
		}
		await this.end;
		this.watch.signal.removeEventListener("abort", onWatch);
	}

	private event(event: LiveEvent): Promise<void> | undefined {
		this.watch.activity();
		if (this.over || event.kind === "step") return undefined;
		if (event.kind === "bridge-call") {
			// An expired or cancelled call was already answered by the bridge: never shown to Pi.
			if (!event.call.signal.aborted) {
				const { call } = event;
				const args = call.args as PiToolCall["arguments"]; // JSON from the MCP request
				this.split([{ type: "toolCall", id: call.toolCallId, name: call.piName, arguments: args }]);
			}
			return undefined;
		}
		const update = wellFormedUpdate(event.update);
		if (!update) return undefined; // malformed: ignored, the turn goes on
		try {
			return this.update(update);
		} catch (error) {
			// The SDK swallows callback errors: remember the first and stop the run ourselves.
			this.translateError ??= error;
			void this.live.run?.cancel().catch(() => {});
			return undefined;
		}
	}

	private update(update: InteractionUpdate): Promise<void> | undefined {
		const { translator, live, display } = this;
		switch (update.type) {
			case "tool-call-started":
				if (!display.print) translator.update(update); // print mode: the answer stays one block of text
				live.tools.started(update.callId, update.toolCall);
				this.scheduleLifecycle(update.callId);
				return undefined;
			case "tool-call-completed": {
				if (!display.print) translator.update(update);
				const effect = live.tools.completed(update.callId, update.toolCall, display);
				if (effect.line) translator.note(effect.line);
				if (effect.answer) {
					// Its own paragraph: text before and after it stays apart.
					const text = `${live.producedText ? "\n\n" : ""}${effect.answer}\n\n`;
					translator.update({ type: "text-delta", text } as InteractionUpdate);
					live.producedText = true;
				}
				if (live.tools.batchReady && !display.print) this.split();
				return undefined;
			}
			case "shell-output-delta": // shown on its card by the live run
				return undefined;
			case "turn-ended":
				if (update.usage) live.rawUsage = update.usage;
				translator.update(update);
				return undefined;
			case "text-delta":
			case "thinking-delta":
				if (update.type === "text-delta" && update.text) live.producedText = true;
				translator.update(update);
				return this.loop.afterVisibleDelta();
			default:
				translator.update(update);
				return undefined;
		}
	}

	/**
	 * A long-running Cursor tool that is still running after a moment: a shell command becomes its `bash` card now
	 * (the message ends with it, its output follows live); anything else gets one line in the thinking.
	 */
	private scheduleLifecycle(callId: string): void {
		const timer = setTimeout(() => {
			this.lifecycleTimers.delete(timer);
			if (this.over) return;
			const running = this.live.tools.startRunning(callId, this.display);
			if (running) {
				this.split([running]);
				return;
			}
			const line = this.live.tools.lifecycle(callId, this.display);
			if (line) this.translator.note(line);
		}, LIFECYCLE_DELAY_MS);
		timer.unref?.();
		this.lifecycleTimers.add(timer);
	}

	/**
	 * Ends this message with the batch of Cursor's tool calls (replay cards) and `bridged` Pi tool calls; the run goes
	 * on, buffered, until Pi calls again with the results.
	 */
	private split(bridged: PiToolCall[] = []): void {
		const replay = this.display.replay;
		const cards = replay ? this.live.tools.takeBatch().map((card) => replay.toolCallBlock(card)) : [];
		const blocks = [...cards, ...bridged];
		if (blocks.length === 0) return;
		this.finishTurn();
		this.live.detach(new Set(blocks.map((block) => block.id)));
		this.translator.toolUse(blocks);
		this.resolveEnd();
	}

	private async settled(settlement: RunSettlement): Promise<void> {
		if (this.over) return;
		const outcome = this.outcomeOf(settlement);
		for (const effect of this.live.tools.incomplete(
			{ status: outcome.status, producedText: this.live.producedText },
			this.display,
		)) {
			if (effect.line) this.translator.note(effect.line);
		}
		// Cards still to show come first; the next provider call then reports how the run ended.
		if (this.live.tools.hasBatch && !this.display.print && outcome.status !== "cancelled") {
			this.split();
			return;
		}
		if (outcome.failure) await this.fail(outcome.failure);
		else await this.finish(outcome.result);
	}

	private outcomeOf(settlement: RunSettlement): {
		status: "finished" | "error" | "cancelled";
		failure?: TurnFailure;
		result?: RunResult;
	} {
		if ("error" in settlement) {
			return { status: "error", failure: classifyCursorError(settlement.error, this.secrets) };
		}
		const { result } = settlement;
		if (this.translateError !== undefined) {
			const error = this.translateError;
			const reason = scrubText(error instanceof Error ? error.message : String(error), this.secrets);
			return { status: "error", failure: { kind: "backend", message: `Cursor stream translation failed: ${reason}` } };
		}
		if (result.status === "finished") return { status: "finished", result };
		if (result.status === "cancelled") return { status: "cancelled", failure: ABORTED };
		return { status: "error", failure: runFailure(result, this.secrets) };
	}

	/** The run finished: the final answer ends the message (or Pi's steering it did not take follows it). */
	private async finish(result: RunResult | undefined): Promise<void> {
		await this.live.steered();
		if (this.over) return;
		if (this.live.deferred.length > 0) {
			this.finishTurn();
			this.live.close();
			this.runtime.dropLive(this.live);
			notifySendEnded(this.runtime.observer, this.live, "finished", this.translator);
			this.followUp = { live: this.live, messages: [...this.live.deferred] };
			this.resolveEnd();
			return;
		}
		this.finishTurn();
		this.live.close();
		this.runtime.dropLive(this.live);
		if (this.live.rawUsage && !this.translator.rawUsage) {
			this.translator.update({ type: "turn-ended", usage: this.live.rawUsage } as InteractionUpdate);
		}
		notifySendEnded(this.runtime.observer, this.live, "finished", this.translator);
		const epilogue = result && this.live.lease.finished?.(result);
		await this.live.lease.release("finished", this.context.messages);
		const finalText = typeof result?.result === "string" && result.result.trim() !== "" ? result.result : undefined;
		if (epilogue) {
			if (!this.live.producedText && finalText) this.translator.update(textDelta(finalText));
			const answered = this.live.producedText || finalText !== undefined;
			this.translator.update(textDelta(answered ? `\n\n${epilogue}` : epilogue));
			this.live.producedText = true;
		}
		this.translator.finish(this.live.producedText ? undefined : finalText);
		this.resolveEnd();
	}

	/** The run failed: the turn ends with Pi's `error` (or `aborted`), the agent is replaced. */
	async fail(failure: TurnFailure): Promise<void> {
		if (this.over) return;
		this.finishTurn();
		this.live.close();
		this.runtime.dropLive(this.live);
		const outcome = failure.kind === "aborted" ? "aborted" : "error";
		notifySendEnded(this.runtime.observer, this.live, outcome, this.translator, failure);
		await this.live.lease.release(outcome);
		if (this.recreateOnAuthFailure && failure.kind === "auth" && this.translator.message.content.length === 0) {
			this.recreate = true;
		} else this.translator.fail(this.live.steerPending && outcome === "error" ? withSteerLost(failure) : failure);
		this.resolveEnd();
	}

	/**
	 * The watch ended the turn (Pi's abort, a deadline): stop at once. The run is cancelled in the background and its
	 * lease released (the pooled agent is replaced); Pi gets the terminal event without waiting for the SDK.
	 */
	async stop(failure: TurnFailure): Promise<void> {
		if (this.over) return;
		void this.live.run?.cancel().catch(() => {});
		await this.fail(failure);
	}

	private finishTurn(): void {
		this.over = true;
		this.watch.dispose();
		for (const timer of this.lifecycleTimers) clearTimeout(timer);
		this.lifecycleTimers.clear();
	}
}
