// One Pi provider turn on a Cursor model. A fresh turn sends the prompt and starts a live SDK run; when Cursor's own
// tool calls complete, the turn ends its assistant message with them (`toolUse`), Pi shows them through our replay
// tools and calls again with their results, and that call continues the same run (no new send) until the next batch
// or the final answer. Every phase races the turn's watch (Pi's abort and Cursor's response deadlines).
import {
	type AssistantMessageEventStream,
	createAssistantMessageEventStream,
	type Message,
	type Model,
	type ToolCall as PiToolCall,
	type SimpleStreamOptions,
	type TranscriptContext,
} from "@earendil-works/pi-ai";
import type { BridgeCallHandler } from "../bridge/calls.ts";
import type { BridgeServer } from "../bridge/server.ts";
import type { CursorPrompt } from "../prompt/transcript.ts";
import type { InteractionUpdate, ModelSelection, RunResult, SDKAgent } from "../sdk/cursor-sdk.ts";
import { type CursorError, classifyCursorError, scrubText } from "../sdk/errors.ts";
import { quietSdkDiagnostics } from "../sdk/quiet-diagnostics.ts";
import { type LiveEvent, LiveRun, type RunSettlement } from "./live-run.ts";
import { LoopYield } from "./loop-yield.ts";
import { notifyObserver, type SendOutcome, type SendStarted, type TurnObserver } from "./observer.ts";
import { LIFECYCLE_DELAY_MS, type ToolDisplay } from "./tools.ts";
import { TurnTranslator, wellFormedUpdate } from "./translate.ts";
import { ABORTED, type TurnFailure, type TurnTimeouts, TurnWatch } from "./watch.ts";

export type CursorMode = "agent" | "plan";

/** Everything a turn needs, resolved from the model row, Pi's options and the effective settings. */
export interface TurnSetup {
	apiKey: string;
	/** Cursor catalog base model: agents are pooled per base model (context and params change per send). */
	baseModelId: string;
	selection: ModelSelection;
	mode: CursorMode;
	timeouts: TurnTimeouts;
	/** How long a run waiting for Pi's tool results is kept (`PI_CURSOR_LIVE_RUN_IDLE_DISPOSE_MS`). */
	liveRunIdleMs: number;
}

/** Where a turn's SDK agent and prompt come from (a fresh agent per turn, or the session pool). */
export interface AgentLease {
	agent: SDKAgent;
	prompt: CursorPrompt;
	kind: SendStarted["kind"];
	/**
	 * Called exactly once when the run is over, before the terminal event (awaited). `covered`: the messages of the
	 * run's last provider turn (the first prompt plus the tool calls and results Cursor's conversation already holds).
	 */
	release(outcome: SendOutcome, covered?: readonly Message[]): void | Promise<void>;
	/** Starts the run's Pi tool bridge (absent: nothing to bridge, the bridge is off, or a summary). */
	bridge?: (handler: BridgeCallHandler) => Promise<BridgeServer>;
}

export interface TurnRuntime {
	/**
	 * Resolves the model and settings for this request, or explains why the turn cannot run. `continuing`: the request
	 * continues a live run (its agent and store are already in use; configuration is re-read at the next send).
	 */
	prepare(model: Model<string>, options: SimpleStreamOptions | undefined, continuing: boolean): TurnSetup | CursorError;
	/** Leases an agent; every wait races `watch`, and `watch.startSdkWork()` is called once the turn owns the agent. */
	acquire(setup: TurnSetup, messages: readonly Message[], watch: TurnWatch): Promise<AgentLease>;
	/** The session's live run that a request with Pi's `signal` may continue (never compaction or tree summaries). */
	liveRun(signal: AbortSignal | undefined): LiveRun | undefined;
	/** Makes `run` the session's live run (undefined: none), giving up a previous one. */
	keepLive(run: LiveRun | undefined): void;
	/** `run` is over: it is no longer the session's live run (nothing is given up). */
	dropLive(run: LiveRun): void;
	/** How this request shows Cursor's tool activity. */
	toolDisplay(context: TranscriptContext, setup: TurnSetup): ToolDisplay;
	observer?: TurnObserver;
}

/** The payload shown to Pi's `before_provider_request` hook; a replacement may change model, mode or prompt text. */
export interface CursorPayload {
	model: ModelSelection;
	mode: CursorMode;
	prompt: string;
	images: number;
}

function applyPayloadReplacement(payload: CursorPayload, replacement: unknown): CursorPayload {
	if (!replacement || typeof replacement !== "object") return payload;
	const r = replacement as Partial<CursorPayload>;
	return {
		model: r.model && typeof r.model.id === "string" ? r.model : payload.model,
		mode: r.mode === "agent" || r.mode === "plan" ? r.mode : payload.mode,
		prompt: typeof r.prompt === "string" ? r.prompt : payload.prompt,
		images: payload.images,
	};
}

export function streamCursorTurn(
	runtime: TurnRuntime,
	model: Model<string>,
	context: TranscriptContext,
	options: SimpleStreamOptions | undefined,
): AssistantMessageEventStream {
	const out = createAssistantMessageEventStream();
	const translator = new TurnTranslator(out, model);
	quietSdkDiagnostics();
	void runTurn(runtime, translator, model, context, options).catch((error: unknown) => {
		translator.fail(options?.signal?.aborted ? ABORTED : classifyCursorError(error, [options?.apiKey]));
	});
	return out;
}

/**
 * A run that ended with an error although nobody cancelled it. The SDK reports a broken stream as "aborted" (e.g.
 * `[unknown] [aborted] aborted`); that is a lost connection, not the user's abort, and its internal wording would read
 * as one, so only the rest of the detail (if any) is shown.
 */
function runFailure(result: RunResult, secrets: readonly string[]): CursorError {
	const reported = (result.error as { message?: unknown } | undefined)?.message;
	const message = typeof reported === "string" && reported.trim() !== "" ? reported : "Cursor run failed";
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

/** Whether `messages` end with Pi's results for every tool call the live run's last message handed to Pi. */
export function answersLiveRun(messages: readonly Message[], awaiting: ReadonlySet<string>): boolean {
	if (awaiting.size === 0 || messages.at(-1)?.role !== "toolResult") return false;
	const answered = new Set<string>();
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i];
		if (message?.role !== "toolResult") break;
		answered.add(message.toolCallId);
	}
	return [...awaiting].every((id) => answered.has(id));
}

async function runTurn(
	runtime: TurnRuntime,
	translator: TurnTranslator,
	model: Model<string>,
	context: TranscriptContext,
	options: SimpleStreamOptions | undefined,
): Promise<void> {
	const previous = runtime.liveRun(options?.signal);
	const continuing =
		previous !== undefined && !previous.attached && answersLiveRun(context.messages, previous.awaiting);
	const setup = runtime.prepare(model, options, continuing);
	if ("kind" in setup) {
		translator.fail(setup);
		return;
	}
	const watch = new TurnWatch(options?.signal, setup.timeouts);
	if (previous && continuing) {
		previous.answer(context.messages); // bridged calls: Pi's results go back into Cursor's MCP requests
		translator.start();
		watch.startSdkWork();
		watch.runStarted();
		await new ProviderTurn(runtime, translator, context, setup, watch, previous).follow();
		return;
	}
	// A new prompt, steering after tool results, or a retry: the previous run is superseded.
	if (previous) runtime.keepLive(undefined);
	await startRun(runtime, translator, model, context, options, setup, watch);
}

/** A fresh send: lease the session's agent, send the prompt, and follow the new run. */
async function startRun(
	runtime: TurnRuntime,
	translator: TurnTranslator,
	model: Model<string>,
	context: TranscriptContext,
	options: SimpleStreamOptions | undefined,
	setup: TurnSetup,
	watch: TurnWatch,
): Promise<void> {
	const secrets = [setup.apiKey];
	let lease: AgentLease | undefined;
	let payload: CursorPayload;
	try {
		lease = await runtime.acquire(setup, context.messages, watch);
		watch.startSdkWork();
		payload = {
			model: setup.selection,
			mode: setup.mode,
			prompt: lease.prompt.text,
			images: lease.prompt.images.length,
		};
		payload = applyPayloadReplacement(payload, await watch.race(Promise.resolve(options?.onPayload?.(payload, model))));
		translator.start();
		watch.check();
	} catch (error) {
		watch.dispose();
		await lease?.release(watch.failure?.kind === "aborted" ? "aborted" : "error");
		translator.fail(watch.failure ?? classifyCursorError(error, secrets));
		return;
	}
	const send: SendStarted = {
		agentId: lease.agent.agentId,
		runId: undefined,
		model: payload.model,
		kind: lease.kind,
		startedAt: Date.now(),
	};
	const live = new LiveRun(lease, send, setup.liveRunIdleMs, (run) => {
		// Given up (superseded, compaction, shutdown, idle): the SDK run was cancelled; the agent is replaced.
		notifySendEnded(runtime.observer, run, "aborted");
		void run.lease.release("aborted");
	});
	if (lease.kind !== "summary") runtime.keepLive(live);
	const turn = new ProviderTurn(runtime, translator, context, setup, watch, live);
	const observer = runtime.observer;
	const observeUpdate = observer?.sdkUpdate ? observer : undefined;
	const onDelta = ({ update }: { update: InteractionUpdate }) => {
		if (observeUpdate) notifyObserver(observeUpdate, "sdkUpdate", live.send, update, Date.now());
		return live.push({ kind: "update", update });
	};
	const onStep = ({ step }: { step: unknown }) => {
		notifyObserver(observer, "sdkStep", live.send, step, Date.now());
		return live.push({ kind: "step" });
	};
	const message =
		lease.prompt.images.length > 0 ? { text: payload.prompt, images: lease.prompt.images } : payload.prompt;
	try {
		const startBridge = lease.bridge;
		if (startBridge) {
			live.bridge = await watch.race(
				startBridge((call) => live.bridgeCall(call)),
				(late) => void late.close().catch(() => {}),
			);
		}
		const mcpServers = live.bridge?.mcpServers;
		const run = await watch.race(
			lease.agent.send(message, {
				model: payload.model,
				mode: payload.mode,
				onDelta,
				onStep,
				...(mcpServers ? { mcpServers } : {}),
			}),
			(late) => void late.cancel().catch(() => {}),
		);
		live.started(run);
		live.send = { ...send, runId: run.id };
		notifyObserver(observer, "sendStarted", live.send);
		watch.runStarted();
		await watch.race(Promise.resolve(options?.onResponse?.({ status: 200, headers: {} }, model)));
	} catch (error) {
		// The watch ended the turn, or `send` itself failed: nothing runs, the agent is replaced.
		await turn.stop(watch.failure ?? classifyCursorError(error, secrets));
		return;
	}
	await turn.follow();
}

function notifySendEnded(
	observer: TurnObserver | undefined,
	live: LiveRun,
	outcome: SendOutcome,
	translator?: TurnTranslator,
	error?: string,
): void {
	if (!observer?.sendEnded) return;
	translator?.applyUsage();
	notifyObserver(observer, "sendEnded", {
		...live.send,
		outcome,
		rawUsage: live.rawUsage,
		mappedUsage: translator?.message.usage,
		...(error ? { error } : {}),
		endedAt: Date.now(),
	});
}

/**
 * One provider turn attached to a live run: SDK events become this assistant message, until a batch of Cursor tool
 * calls ends it (`toolUse`), the run ends, or the watch ends the turn.
 */
class ProviderTurn {
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

	/** The run finished: the final answer ends the message. */
	private async finish(result: RunResult | undefined): Promise<void> {
		this.finishTurn();
		this.live.close();
		this.runtime.dropLive(this.live);
		if (this.live.rawUsage && !this.translator.rawUsage) {
			this.translator.update({ type: "turn-ended", usage: this.live.rawUsage } as InteractionUpdate);
		}
		notifySendEnded(this.runtime.observer, this.live, "finished", this.translator);
		await this.live.lease.release("finished", this.context.messages);
		const finalText = typeof result?.result === "string" ? result.result : undefined;
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
		notifySendEnded(this.runtime.observer, this.live, outcome, this.translator, failure.message);
		await this.live.lease.release(outcome);
		this.translator.fail(failure);
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
