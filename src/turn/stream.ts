// One Pi provider turn on a Cursor model: resolve → send → translate SDK updates into Pi events → done/error/aborted.
// Every phase races the turn's watch (Pi's abort and Cursor's response deadlines), so a stuck SDK never traps Pi.
import {
	type AssistantMessageEventStream,
	createAssistantMessageEventStream,
	type Message,
	type Model,
	type SimpleStreamOptions,
	type TranscriptContext,
} from "@earendil-works/pi-ai";
import type { CursorPrompt } from "../prompt/transcript.ts";
import type { InteractionUpdate, ModelSelection, Run, RunResult, SDKAgent } from "../sdk/cursor-sdk.ts";
import { type CursorError, classifyCursorError, scrubText } from "../sdk/errors.ts";
import { quietSdkDiagnostics } from "../sdk/quiet-diagnostics.ts";
import { LoopYield } from "./loop-yield.ts";
import { notifyObserver, type SendOutcome, type SendStarted, type TurnObserver } from "./observer.ts";
import { type ToolActivityListener, TurnTranslator } from "./translate.ts";
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
}

/** Where a turn's SDK agent and prompt come from (a fresh agent per turn, or the session pool). */
export interface AgentLease {
	agent: SDKAgent;
	prompt: CursorPrompt;
	kind: SendStarted["kind"];
	/** Called exactly once when the turn is over, before the terminal event (awaited). */
	release(outcome: SendOutcome): void | Promise<void>;
}

export interface TurnRuntime {
	/** Resolves the model and settings for this request, or explains why the turn cannot run. */
	prepare(model: Model<string>, options: SimpleStreamOptions | undefined): TurnSetup | CursorError;
	/** Leases an agent; every wait races `watch`, and `watch.startSdkWork()` is called once the turn owns the agent. */
	acquire(setup: TurnSetup, messages: readonly Message[], watch: TurnWatch): Promise<AgentLease>;
	onToolActivity?: ToolActivityListener;
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
	const translator = new TurnTranslator(out, model, runtime.onToolActivity);
	quietSdkDiagnostics();
	void runTurn(runtime, translator, model, context, options).catch((error: unknown) => {
		translator.fail(options?.signal?.aborted ? ABORTED : classifyCursorError(error, [options?.apiKey]));
	});
	return out;
}

const outcomeOf = (failure: TurnFailure): SendOutcome => (failure.kind === "aborted" ? "aborted" : "error");

/**
 * A run that ended with an error although nobody cancelled it. The SDK reports a broken stream as "aborted";
 * that is a lost connection, not the user's abort.
 */
function runFailure(result: RunResult, secrets: readonly string[]): CursorError {
	const message = result.error?.message ?? "Cursor run failed";
	if (/\baborted\b/i.test(message) && !/\[(unauthenticated|resource_exhausted)\]/.test(message)) {
		return {
			kind: "network",
			message: `The connection to Cursor was lost before the answer finished (network error: ${scrubText(message, secrets)}). Retry; the partial answer above is kept.`,
		};
	}
	return classifyCursorError(new Error(message), secrets);
}

async function runTurn(
	runtime: TurnRuntime,
	translator: TurnTranslator,
	model: Model<string>,
	context: TranscriptContext,
	options: SimpleStreamOptions | undefined,
): Promise<void> {
	const setup = runtime.prepare(model, options);
	if ("kind" in setup) {
		translator.fail(setup);
		return;
	}
	const secrets = [setup.apiKey];
	const watch = new TurnWatch(options?.signal, setup.timeouts);
	const observer = runtime.observer;
	let lease: AgentLease | undefined;
	let send: SendStarted | undefined;
	let run: Run | undefined;
	let ended = false;
	/** Releases the lease (awaited: summary stores are removed before the terminal event), then ends the turn. */
	const end = async (outcome: SendOutcome, failure?: TurnFailure, result?: RunResult) => {
		if (ended) return;
		ended = true;
		watch.dispose();
		if (send) {
			translator.applyUsage();
			notifyObserver(observer, "sendEnded", {
				...send,
				runId: run?.id,
				outcome,
				rawUsage: translator.rawUsage,
				mappedUsage: translator.message.usage,
				...(failure && failure.kind !== "aborted" ? { error: failure.message } : {}),
				endedAt: Date.now(),
			});
		}
		const held = lease;
		lease = undefined;
		if (held) await held.release(outcome);
		if (failure) translator.fail(failure);
		else translator.finish(result?.result);
	};
	// A turn the watch ends stops at once: the lease is released (the pooled agent is replaced), the run is cancelled
	// in the background, and Pi gets the terminal event without waiting for the SDK.
	const stopOnWatch = () => {
		void run?.cancel().catch(() => {});
		void end(outcomeOf(watch.failure ?? ABORTED), watch.failure ?? ABORTED).catch(() => {});
	};
	watch.signal.addEventListener("abort", stopOnWatch, { once: true });
	try {
		if (watch.failure) return;
		lease = await runtime.acquire(setup, context.messages, watch);
		watch.startSdkWork();
		let payload: CursorPayload = {
			model: setup.selection,
			mode: setup.mode,
			prompt: lease.prompt.text,
			images: lease.prompt.images.length,
		};
		payload = applyPayloadReplacement(payload, await watch.race(Promise.resolve(options?.onPayload?.(payload, model))));
		translator.start();
		watch.check();
		send = { agentId: lease.agent.agentId, runId: undefined, model: payload.model, kind: lease.kind, startedAt: 0 };
		const started = send;
		let callbackError: unknown;
		const observeUpdate = observer?.sdkUpdate ? observer : undefined;
		const loop = new LoopYield();
		const onDelta = ({ update }: { update: InteractionUpdate }) => {
			watch.activity();
			if (callbackError !== undefined) return;
			if (observeUpdate) notifyObserver(observeUpdate, "sdkUpdate", started, update, Date.now());
			try {
				translator.update(update);
			} catch (error) {
				callbackError = error; // the SDK swallows callback errors: remember and stop the run ourselves
				void run?.cancel().catch(() => {});
				return undefined;
			}
			return update.type === "text-delta" || update.type === "thinking-delta" ? loop.afterVisibleDelta() : undefined;
		};
		const onStep = ({ step }: { step: unknown }) => {
			watch.activity();
			notifyObserver(observer, "sdkStep", started, step, Date.now());
		};
		const message =
			lease.prompt.images.length > 0 ? { text: payload.prompt, images: lease.prompt.images } : payload.prompt;
		send.startedAt = Date.now();
		run = await watch.race(
			lease.agent.send(message, { model: payload.model, mode: payload.mode, onDelta, onStep }),
			(late) => {
				void late.cancel().catch(() => {});
			},
		);
		watch.runStarted();
		send = { ...send, runId: run.id };
		notifyObserver(observer, "sendStarted", send);
		await watch.race(Promise.resolve(options?.onResponse?.({ status: 200, headers: {} }, model)));
		const result = await watch.race(run.wait());
		watch.signal.removeEventListener("abort", stopOnWatch);
		if (callbackError !== undefined) {
			const reason = scrubText(callbackError instanceof Error ? callbackError.message : String(callbackError), secrets);
			await end("error", { kind: "backend", message: `Cursor stream translation failed: ${reason}` });
		} else if (result.status === "finished") {
			await end("finished", undefined, result);
		} else if (result.status === "cancelled") {
			await end("aborted", ABORTED);
		} else {
			await end("error", runFailure(result, secrets));
		}
	} catch (error) {
		if (watch.failure) return; // `stopOnWatch` ends the turn
		watch.signal.removeEventListener("abort", stopOnWatch);
		await end("error", classifyCursorError(error, secrets));
	}
}
