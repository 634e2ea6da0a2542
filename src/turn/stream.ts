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
import type { InteractionUpdate, ModelSelection, Run, SDKAgent } from "../sdk/cursor-sdk.ts";
import { type CursorError, classifyCursorError, scrubText } from "../sdk/errors.ts";
import { quietSdkDiagnostics } from "../sdk/quiet-diagnostics.ts";
import { type ToolActivityListener, TurnTranslator } from "./translate.ts";

export type CursorMode = "agent" | "plan";

/** Everything a turn needs, resolved from the model row, Pi's options and the effective settings. */
export interface TurnSetup {
	apiKey: string;
	/** Cursor catalog base model: agents are pooled per base model (context and params change per send). */
	baseModelId: string;
	selection: ModelSelection;
	mode: CursorMode;
}

/** Where a turn's SDK agent and prompt come from (a fresh agent per turn, or the session pool). */
export interface AgentLease {
	agent: SDKAgent;
	prompt: CursorPrompt;
	/** Called exactly once when the turn's run is over, before the terminal event (awaited). */
	release(outcome: "finished" | "error" | "aborted"): void | Promise<void>;
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
	quietSdkDiagnostics();
	void runTurn(runtime, translator, model, context, options).catch((error: unknown) => {
		translator.fail(options?.signal?.aborted ? ABORTED : classifyCursorError(error, [options?.apiKey]));
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
	/** Releases the lease (awaited: summary stores are removed before the terminal event), then ends the turn. */
	const end = async (outcome: "finished" | "error" | "aborted", terminal: () => void) => {
		if (!released) {
			released = true;
			await lease.release(outcome);
		}
		terminal();
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
			await end("aborted", () => translator.fail(ABORTED));
			return;
		}
		let run: Run | undefined;
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
		run = await lease.agent.send(message, { model: payload.model, mode: payload.mode, onDelta });
		await options?.onResponse?.({ status: 200, headers: {} }, model);
		const active = run;
		// Abort ends the turn at once; the run is cancelled in the background and the lease released when it stops.
		const onAbort = () => {
			translator.fail(ABORTED);
			void active.cancel().catch(() => {});
		};
		signal?.addEventListener("abort", onAbort, { once: true });
		if (signal?.aborted) onAbort();
		try {
			const result = await active.wait();
			if (translator.finished) {
				await end("aborted", () => {});
			} else if (callbackError !== undefined) {
				const reason = scrubText(
					callbackError instanceof Error ? callbackError.message : String(callbackError),
					secrets,
				);
				await end("error", () =>
					translator.fail({ kind: "backend", message: `Cursor stream translation failed: ${reason}` }),
				);
			} else if (result.status === "finished") {
				await end("finished", () => translator.finish(result.result));
			} else if (result.status === "cancelled") {
				await end("aborted", () => translator.fail(ABORTED));
			} else {
				const error = classifyCursorError(new Error(result.error?.message ?? "Cursor run failed"), secrets);
				await end("error", () => translator.fail(error));
			}
		} finally {
			signal?.removeEventListener("abort", onAbort);
		}
	} catch (error) {
		const aborted = signal?.aborted === true;
		await end(aborted ? "aborted" : "error", () =>
			translator.fail(aborted ? ABORTED : classifyCursorError(error, secrets)),
		);
	}
}
