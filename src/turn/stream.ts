// One Pi provider turn on a Cursor model. A fresh turn sends the prompt and starts a live SDK run; when Cursor's own
// tool calls complete, the turn ends its assistant message with them (`toolUse`), Pi shows them through our replay
// tools and calls again with their results, and that call continues the same run (no new send) until the next batch
// or the final answer. Pi's steering (delivered after such a batch) joins the same run too: into Cursor's running turn
// (`Run.steer`), or, when Cursor cannot take it there, as a follow-up on the same agent once the run ends, in the same
// assistant message. Every phase races the turn's watch (Pi's abort and Cursor's response deadlines).
import {
	type AssistantMessageEventStream,
	createAssistantMessageEventStream,
	type Model,
	type SimpleStreamOptions,
	type TranscriptContext,
} from "@earendil-works/pi-ai";
import { quietSdkDiagnostics } from "../process/quiet-diagnostics.ts";
import { buildIncrementalPrompt } from "../prompt/transcript.ts";
import type { TurnEntry, TurnRuntime } from "../runtime/types.ts";
import type { InteractionUpdate } from "../sdk/cursor-sdk.ts";
import { classifyCursorError, isActiveRunError } from "../sdk/errors.ts";
import { estimatePromptTokens } from "../usage/estimate.ts";
import { LiveRun } from "./live-run.ts";
import { notifyObserver, type SendStarted } from "./observer.ts";
import { notifySendEnded, ProviderTurn } from "./provider-turn.ts";
import { answersLiveRun, steeringOf } from "./steer.ts";
import { TurnTranslator } from "./translate.ts";
import type { AgentLease, CursorPayload, TurnSetup } from "./types.ts";
import { ABORTED, TurnEnded, type TurnFailure, TurnWatch } from "./watch.ts";

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

/** Why a phase failed: a reason the runtime gave (`TurnEnded`), or the SDK's error classified. */
function failureOf(error: unknown, secrets: readonly string[]): TurnFailure {
	return error instanceof TurnEnded ? error.failure : classifyCursorError(error, secrets);
}

export function streamCursorTurn(
	entry: TurnEntry,
	model: Model<string>,
	context: TranscriptContext,
	options: SimpleStreamOptions | undefined,
): AssistantMessageEventStream {
	const out = createAssistantMessageEventStream();
	const translator = new TurnTranslator(out, model, estimatePromptTokens(context.messages));
	quietSdkDiagnostics();
	void runTurn(entry, translator, model, context, options).catch((error: unknown) => {
		translator.fail(options?.signal?.aborted ? ABORTED : classifyCursorError(error, [options?.apiKey]));
	});
	return out;
}

export { answersLiveRun } from "./steer.ts";

/** What every step of one provider turn works with: its runtime, its output, and Pi's request. */
interface TurnCall {
	readonly runtime: TurnRuntime;
	readonly translator: TurnTranslator;
	readonly model: Model<string>;
	readonly context: TranscriptContext;
	readonly options: SimpleStreamOptions | undefined;
	readonly setup: TurnSetup;
}

async function runTurn(
	entry: TurnEntry,
	translator: TurnTranslator,
	model: Model<string>,
	context: TranscriptContext,
	options: SimpleStreamOptions | undefined,
): Promise<void> {
	const previous = entry.runtime.liveRun(entry.isSummary(options?.signal));
	const continuing =
		previous !== undefined && !previous.attached && answersLiveRun(context.messages, previous.awaiting);
	// Pi's steering (its results for the run's tool calls, then the user's message): it joins the same run.
	const steered =
		previous && !continuing && !previous.attached ? steeringOf(context.messages, previous.awaiting) : undefined;
	const steering = previous?.disposed ? undefined : steered;
	const setup = entry.setup(model, options, continuing || steering !== undefined);
	if ("kind" in setup) {
		translator.fail(setup);
		return;
	}
	const runtime = setup.runtime === "cloud" ? entry.cloud : entry.runtime;
	const call: TurnCall = { runtime, translator, model, context, options, setup };
	const watch = new TurnWatch(options?.signal, setup.timeouts);
	if (previous && (continuing || steering)) {
		// Bridged calls: Pi's results go back into Cursor's MCP requests.
		previous.answer(steering?.answered ?? context.messages);
		// A local run takes the steer into its running turn (`Run.steer`); a cloud run refuses it, so it waits for the
		// run's end and goes as a follow-up on the same agent, as does a steer Cursor reverts.
		if (steering) previous.steer(steering.messages, setup.runtime !== "cloud");
		translator.start();
		watch.startSdkWork();
		watch.runStarted();
		await follow(call, new ProviderTurn(runtime, translator, context, setup, watch, previous));
		return;
	}
	// A new prompt, a retry, or steering of a run already given up: the previous run is superseded.
	if (previous) runtime.keepLive(undefined);
	const notice = steered
		? "Cursor's run had been given up before this message arrived (it waited too long for Pi), so it goes to a new Cursor agent with the whole conversation."
		: undefined;
	const stale = await startRun(call, watch, true, notice);
	// The pooled agent's session was refused (it idled) while the key may be good: once, on a new agent.
	if (stale) {
		const retry = new TurnWatch(options?.signal, setup.timeouts);
		await startRun(call, retry, false);
	}
}

/**
 * A fresh send: lease the session's agent, send the prompt, and follow the new run. Resolves `true` when the pooled
 * agent's session was refused before any output and `mayRecreate` allowed asking for a send on a new agent.
 */
async function startRun(call: TurnCall, watch: TurnWatch, mayRecreate: boolean, notice?: string): Promise<boolean> {
	const { runtime, translator, model, context, options, setup } = call;
	const secrets = [setup.apiKey];
	const attemptedAt = Date.now();
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
		if (notice) translator.note(notice);
		watch.check();
	} catch (error) {
		watch.dispose();
		const failure = watch.failure ?? failureOf(error, secrets);
		await lease?.release(failure.kind === "aborted" ? "aborted" : "error");
		// Failing before the send (creating the agent, the key exchange, an unreachable Cursor) is still a failed send.
		if (failure.kind !== "aborted") {
			notifyObserver(runtime.observer, "sendEnded", {
				agentId: lease?.agent.agentId,
				runId: undefined,
				model: setup.selection,
				kind: lease?.kind ?? (setup.summary ? "summary" : "bootstrap"),
				startedAt: attemptedAt,
				outcome: "error",
				rawUsage: undefined,
				mappedUsage: undefined,
				error: failure.message,
				errorKind: failure.kind,
				endedAt: Date.now(),
			});
		}
		translator.fail(failure);
		return false;
	}
	return sendOnLease(call, watch, lease, payload, mayRecreate);
}

/**
 * Sends `payload` on the leased agent and follows the new run in this provider turn (`translator` has started).
 * Pi's steering that the run did not take follows it on the same agent, in the same assistant message.
 */
async function sendOnLease(
	call: TurnCall,
	watch: TurnWatch,
	lease: AgentLease,
	payload: CursorPayload,
	mayRecreate: boolean,
): Promise<boolean> {
	const { runtime, translator, model, context, options, setup } = call;
	const secrets = [setup.apiKey];
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
	turn.recreateOnAuthFailure = mayRecreate && setup.runtime === "local" && lease.kind === "incremental";
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
		// The bridge's MCP server, or its in-process tools on sandboxed/auto-review runs (src/bridge/transport.ts).
		const bridged = live.bridge?.sendOptions;
		const sendOnce = (force: boolean) =>
			lease.agent.send(message, {
				model: payload.model,
				mode: payload.mode,
				onDelta,
				onStep,
				...bridged,
				...(force ? { local: { ...bridged?.local, force: true } } : {}),
			});
		// A run a crashed Pi process left active blocks the agent ("already has active run"): expire it and go on with
		// the same agent, unless another live Pi process may own it.
		const sent = sendOnce(false).catch((error: unknown) => {
			if (isActiveRunError(error) && lease.staleRunRecoverable?.()) return sendOnce(true);
			throw error;
		});
		const run = await watch.race(setup.sendMs ? watch.bound(sent, setup.sendMs) : sent, (late) => {
			// The turn ended meanwhile: a run Cursor created anyway is recorded (cloud) and cancelled.
			try {
				lease.runStarted?.(late.id);
			} catch {
				// a run the journal cannot record is still cancelled
			}
			void late.cancel().catch(() => {});
		});
		live.started(run);
		lease.runStarted?.(run.id);
		live.send = { ...send, runId: run.id };
		notifyObserver(observer, "sendStarted", live.send);
		watch.runStarted();
		await watch.race(Promise.resolve(options?.onResponse?.({ status: 200, headers: {} }, model)));
	} catch (error) {
		// The watch ended the turn, or `send` itself failed: nothing runs, the agent is replaced.
		await turn.stop(watch.failure ?? failureOf(error, secrets));
		return turn.recreate;
	}
	await follow(call, turn);
	return turn.recreate;
}

/**
 * Follows `turn` to its end. When its run finished with Pi's steering it did not take, that steering goes as a
 * follow-up on the same agent (the lease is still held: nothing else can send meanwhile), continuing the message.
 */
async function follow(call: TurnCall, turn: ProviderTurn): Promise<void> {
	const { translator, options, setup } = call;
	await turn.follow();
	const followUp = turn.followUp;
	if (!followUp) return;
	const { live, messages } = followUp;
	const prompt = buildIncrementalPrompt(messages);
	const lease: AgentLease = { ...live.lease, prompt, kind: "incremental" };
	if (live.producedText) translator.update({ type: "text-delta", text: "\n\n" } as InteractionUpdate);
	const payload: CursorPayload = {
		model: setup.selection,
		mode: setup.mode,
		prompt: prompt.text,
		images: prompt.images.length,
	};
	const watch = new TurnWatch(options?.signal, setup.timeouts);
	watch.startSdkWork();
	await sendOnLease(call, watch, lease, payload, false);
}
