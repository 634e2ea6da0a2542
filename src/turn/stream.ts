// One Pi provider turn on a Cursor model: resolve → send → translate SDK updates into Pi events → done/error/aborted.
import {
	type AssistantMessageEventStream,
	createAssistantMessageEventStream,
	type Message,
	type Model,
	type SimpleStreamOptions,
	type TranscriptContext,
} from "@earendil-works/pi-ai";
import type { CursorPrompt } from "../prompt/transcript.ts";
import type { InteractionUpdate, ModelSelection, SDKAgent } from "../sdk/cursor-sdk.ts";
import { type CursorError, classifyCursorError } from "../sdk/errors.ts";
import { type ToolActivityListener, TurnTranslator } from "./translate.ts";

export type CursorMode = "agent" | "plan";

/** Everything a turn needs, resolved from the model row, Pi's options and the effective settings. */
export interface TurnSetup {
	apiKey: string;
	selection: ModelSelection;
	mode: CursorMode;
}

/** Where a turn's SDK agent and prompt come from (a fresh agent per turn, or the session pool). */
export interface AgentLease {
	agent: SDKAgent;
	prompt: CursorPrompt;
	/** Called exactly once when the turn's run is over. */
	release(outcome: "finished" | "error" | "aborted"): void;
}

export interface TurnRuntime {
	/** Resolves the model and settings for this request, or explains why the turn cannot run. */
	prepare(model: Model<string>, options: SimpleStreamOptions | undefined): TurnSetup | CursorError;
	acquire(setup: TurnSetup, messages: readonly Message[], signal: AbortSignal | undefined): Promise<AgentLease>;
	onToolActivity?: ToolActivityListener;
}

export const ABORTED = { kind: "aborted", message: "Request was aborted" } as const;

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
	void runTurn(runtime, translator, model, context, options).catch((error: unknown) => {
		translator.fail(classifyCursorError(error, [options?.apiKey]));
	});
	return out;
}

async function runTurn(
	runtime: TurnRuntime,
	translator: TurnTranslator,
	model: Model<string>,
	context: TranscriptContext,
	options: SimpleStreamOptions | undefined,
): Promise<void> {
	const signal = options?.signal;
	const setup = runtime.prepare(model, options);
	if ("kind" in setup) {
		translator.fail(setup);
		return;
	}
	const secrets = [setup.apiKey];
	if (signal?.aborted) {
		translator.fail(ABORTED);
		return;
	}
	const lease = await runtime.acquire(setup, context.messages, signal);
	let released = false;
	const release = (outcome: "finished" | "error" | "aborted") => {
		if (released) return;
		released = true;
		lease.release(outcome);
	};
	try {
		let payload: CursorPayload = {
			model: setup.selection,
			mode: setup.mode,
			prompt: lease.prompt.text,
			images: lease.prompt.images.length,
		};
		payload = applyPayloadReplacement(payload, await options?.onPayload?.(payload, model));
		translator.start();
		if (signal?.aborted) {
			translator.fail(ABORTED);
			release("aborted");
			return;
		}
		let callbackError: unknown;
		const onDelta = ({ update }: { update: InteractionUpdate }) => {
			if (callbackError !== undefined) return;
			try {
				translator.update(update);
			} catch (error) {
				callbackError = error; // the SDK swallows callback errors: remember and stop the run ourselves
				void run?.cancel().catch(() => {});
			}
		};
		const message =
			lease.prompt.images.length > 0 ? { text: payload.prompt, images: lease.prompt.images } : payload.prompt;
		let run: Awaited<ReturnType<SDKAgent["send"]>> | undefined;
		run = await lease.agent.send(message, { model: payload.model, mode: payload.mode, onDelta });
		await options?.onResponse?.({ status: 200, headers: {} }, model);
		const onAbort = () => {
			translator.fail(ABORTED);
			void run?.cancel().catch(() => {});
		};
		signal?.addEventListener("abort", onAbort, { once: true });
		if (signal?.aborted) onAbort();
		try {
			const result = await run.wait();
			if (translator.finished) {
				release("aborted");
			} else if (callbackError !== undefined) {
				translator.fail({
					kind: "backend",
					message: `Cursor stream translation failed: ${classifyCursorError(callbackError, secrets).message}`,
				});
				release("error");
			} else if (result.status === "finished") {
				translator.finish(result.result);
				release("finished");
			} else if (result.status === "cancelled") {
				translator.fail(ABORTED);
				release("aborted");
			} else {
				translator.fail(classifyCursorError(new Error(result.error?.message ?? "Cursor run failed"), secrets));
				release("error");
			}
		} finally {
			signal?.removeEventListener("abort", onAbort);
		}
	} catch (error) {
		translator.fail(signal?.aborted ? ABORTED : classifyCursorError(error, secrets));
		release(signal?.aborted ? "aborted" : "error");
	}
}
