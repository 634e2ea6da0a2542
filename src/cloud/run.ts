// One Pi provider turn on a Cursor Cloud agent: create (or resume) the agent, record it in the session's cloud
// journal before the first send, send, and stream the run into Pi's assistant message through the same translator
// as local turns. Cursor's cloud tool calls are display-only: one activity line each in the message's thinking
// (print mode: a trace line), never run here. When the run ends, the branch and pull request it reports follow the
// answer. Usage comes only from the run's `turn-ended` update.
//
// Bounds (instead of the local first-response and idle deadlines, which would kill a healthy cloud run that works
// quietly for many minutes): a send's REST request gets {@link CLOUD_BOUNDS}.sendMs, the whole run
// {@link CLOUD_BOUNDS}.runMs (a little over the SDK's own 2 h wait). Pi's abort cancels the run (`POST …/cancel`,
// sent at once) and ends the turn `aborted` once Cursor acknowledged it, 750 ms at the latest.
import { type AssistantMessageEventStream, createAssistantMessageEventStream, type Model } from "@earendil-works/pi-ai";
import type {
	AgentDefinition,
	CloudAgentOptions,
	CloudAgentSetup,
	CloudSdk,
	InteractionUpdate,
	ModelSelection,
	Run,
	RunResult,
	SDKAgent,
	SDKImage,
} from "../sdk/cursor-sdk.ts";
import { type CursorError, classifyCursorError, scrubText } from "../sdk/errors.ts";
import { RunTools, type ToolDisplay } from "../turn/tools.ts";
import { TurnTranslator } from "../turn/translate.ts";
import { ABORTED, type TurnFailure } from "../turn/watch.ts";
import type { CloudRecorder } from "./journal.ts";
import type { CloudRunOutcome } from "./records.ts";
import { gitRefs, gitSummary, runError, sendFailure } from "./run-outcome.ts";

export interface CloudBounds {
	/** A send's REST request (`POST /v1/agents` or `POST /v1/agents/:id/runs`), which the SDK does not bound. */
	sendMs: number;
	/** The whole run, from its send to its end. */
	runMs: number;
}

export const CLOUD_BOUNDS: CloudBounds = { sendMs: 60_000, runMs: 2 * 60 * 60_000 + 5 * 60_000 };

/** How long an aborted turn waits for Cursor to acknowledge the run's cancel before it ends anyway. */
const CANCEL_WAIT_MS = 750;

/** Everything one cloud turn needs, resolved before it starts. */
export interface CloudTurn {
	apiKey: string;
	selection: ModelSelection;
	mode: "agent" | "plan";
	/** What to send: Pi's instructions and the latest user message (`fresh`), or with the prior conversation. */
	prompt: { text: string; images: SDKImage[] };
	/** The SDK's cloud options (repository, starting branch, PR controls, environment). */
	cloud: CloudAgentOptions;
	/** Custom subagents from cursor-sdk.json. */
	agents?: Record<string, AgentDefinition>;
	/** The agent this Pi session branch already has (`Agent.resume`); undefined creates one. */
	agentId?: string;
	/** The Pi session branch, recorded with a new agent. */
	branch?: string;
	signal?: AbortSignal;
	bounds?: CloudBounds;
	/** Print mode: tool activity goes to `trace` (stderr), the answer stays one block of text. */
	print?: boolean;
}

export interface CloudTurnDeps {
	sdk: Pick<CloudSdk, "createAgent" | "resumeAgent">;
	/** Every record must be durable when `record` returns; a failure before the send fails the turn unsent. */
	journal: CloudRecorder;
	/** A print-mode line for stderr. */
	trace?(line: string): void;
}

/** Runs one cloud turn; the stream always ends with Pi's `done`, `error` or `aborted`. */
export function runCloudTurn(model: Model<string>, turn: CloudTurn, deps: CloudTurnDeps): AssistantMessageEventStream {
	const out = createAssistantMessageEventStream();
	void followCloudTurn(new TurnTranslator(out, model), turn, deps);
	return out;
}

/** Runs one cloud turn into `translator`; resolves once the run is started or the turn ended. Never rejects. */
export async function followCloudTurn(translator: TurnTranslator, turn: CloudTurn, deps: CloudTurnDeps): Promise<void> {
	const cloudRun = new CloudRun(turn, deps, translator);
	await cloudRun.start().catch((error: unknown) => {
		// `Ended`: Pi's abort or a bound already ends the turn (after the run's cancel).
		if (!(error instanceof Ended)) cloudRun.end(classifyCursorError(error, [turn.apiKey]));
	});
}

/** Thrown into a phase that Pi's abort or a bound ended (`interrupt` ends the turn). */
class Ended extends Error {}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

class CloudRun {
	private readonly secrets: string[];
	private readonly bounds: CloudBounds;
	private readonly tools = new RunTools();
	private readonly display: ToolDisplay;
	private agent: SDKAgent | undefined;
	private sdkRun: Run | undefined;
	private producedText = false;
	private over = false;
	private failure: TurnFailure | undefined;
	private readonly ended = new AbortController();
	private readonly onAbort = () => this.interrupt(ABORTED);

	constructor(
		private readonly turn: CloudTurn,
		private readonly deps: CloudTurnDeps,
		private readonly translator: TurnTranslator,
	) {
		this.secrets = [turn.apiKey];
		this.bounds = turn.bounds ?? CLOUD_BOUNDS;
		this.display = {
			replay: undefined,
			print: turn.print === true,
			declared: undefined,
			// Paths are on Cursor's machine: shown as Cursor reports them.
			context: { cwd: "", secrets: this.secrets },
			trace: (line) => deps.trace?.(line),
		};
	}

	async start(): Promise<void> {
		const { turn, deps } = this;
		if (turn.signal?.aborted) return this.end(ABORTED);
		turn.signal?.addEventListener("abort", this.onAbort, { once: true });
		const setup: CloudAgentSetup = {
			apiKey: turn.apiKey,
			cloud: turn.cloud,
			...(turn.agents ? { agents: turn.agents } : {}),
			mode: turn.mode,
		};
		const agent = await this.race(
			turn.agentId ? deps.sdk.resumeAgent(turn.agentId, setup) : deps.sdk.createAgent(setup),
			undefined,
			(late) => late.close(),
		);
		this.agent = agent;
		if (!turn.agentId) {
			try {
				await this.race(
					Promise.resolve(
						deps.journal.record({
							type: "agent",
							agentId: agent.agentId,
							model: turn.selection.id,
							repo: turn.cloud.repos?.[0]?.url ?? null,
							...(turn.cloud.repos?.[0]?.startingRef ? { startingRef: turn.cloud.repos[0].startingRef } : {}),
							...(turn.branch !== undefined ? { branch: turn.branch } : {}),
						}),
					),
				);
			} catch (error) {
				if (error instanceof Ended) return;
				return this.end(this.journalFailure(error, "nothing was sent"));
			}
		}
		this.translator.start();
		const { text, images } = turn.prompt;
		let run: Run;
		try {
			run = await this.race(
				agent.send(images.length > 0 ? { text, images } : text, {
					model: turn.selection,
					mode: turn.mode,
					onDelta: ({ update }) => this.update(update),
				}),
				{ ms: this.bounds.sendMs, failure: this.sendTimeout() },
				(late) => {
					// The send went through after all: its run exists on Cursor's side; record and cancel it.
					void Promise.resolve(deps.journal.record({ type: "run", agentId: agent.agentId, runId: late.id })).catch(
						() => {},
					);
					void this.cancel(late);
				},
			);
		} catch (error) {
			if (error instanceof Ended) return; // `interrupt` ended the turn
			const failure = sendFailure(error, this.secrets);
			await this.recordResult(null, "error", undefined, failure);
			return this.end(failure);
		}
		this.sdkRun = run;
		try {
			await this.race(Promise.resolve(deps.journal.record({ type: "run", agentId: agent.agentId, runId: run.id })));
		} catch (error) {
			if (error instanceof Ended) return;
			void this.cancel(run);
			return this.end(this.journalFailure(error, "the run was cancelled"));
		}
		let result: RunResult;
		try {
			result = await this.race(run.wait(), { ms: this.bounds.runMs, failure: this.runTimeout() });
		} catch (error) {
			if (error instanceof Ended) return; // `interrupt` ended the turn
			throw error;
		}
		await this.settle(result);
	}

	/** The run ended on its own: the answer, then its branch / pull request; or Pi's error. */
	private async settle(result: RunResult): Promise<void> {
		const runId = this.sdkRun?.id ?? null;
		if (result.status === "finished") {
			await this.recordResult(runId, "finished", result.git);
			const finalText = result.result?.trim() ? result.result : undefined;
			if (!this.producedText && finalText) this.translator.update(textDelta(finalText));
			const summary = gitSummary(result.git);
			const answered = this.producedText || finalText !== undefined;
			if (summary) this.translator.update(textDelta(answered ? `\n\n${summary}` : summary));
			this.finishTurn();
			this.translator.finish();
			return;
		}
		const failure: TurnFailure =
			result.status === "cancelled" ? ABORTED : classifyCursorError(runError(result.error), this.secrets);
		await this.recordResult(runId, result.status === "cancelled" ? "cancelled" : "error", result.git, failure);
		this.end(failure);
	}

	private update(update: InteractionUpdate): void {
		if (this.over || this.failure) return;
		const { translator, tools, display } = this;
		switch (update.type) {
			case "tool-call-started":
				if (!display.print) translator.update(update);
				tools.started(update.callId, update.toolCall);
				return;
			case "tool-call-completed": {
				if (!display.print) translator.update(update);
				const effect = tools.completed(update.callId, update.toolCall, display);
				if (effect.line) translator.note(effect.line);
				return;
			}
			case "text-delta":
				if (update.text) this.producedText = true;
				translator.update(update);
				return;
			default:
				translator.update(update);
		}
	}

	/**
	 * Settles with `work`, or rejects with {@link Ended} when Pi aborts or `bound` passes (which ends the turn with
	 * `bound.failure`). A value that arrives after that is handed to `discard`.
	 */
	private race<T>(
		work: Promise<T>,
		bound?: { ms: number; failure: CursorError },
		discard?: (late: T) => void,
	): Promise<T> {
		return new Promise<T>((resolve, reject) => {
			const signal = this.ended.signal;
			let timer: ReturnType<typeof setTimeout> | undefined;
			const onEnd = () => {
				clearTimeout(timer);
				work.then(discard, () => {});
				reject(new Ended("the turn was ended"));
			};
			if (signal.aborted) return onEnd();
			signal.addEventListener("abort", onEnd, { once: true });
			if (bound) {
				timer = setTimeout(() => this.interrupt(bound.failure), bound.ms);
				timer.unref?.();
			}
			work.then(
				(value) => {
					clearTimeout(timer);
					signal.removeEventListener("abort", onEnd);
					if (!signal.aborted) resolve(value);
				},
				(error: unknown) => {
					clearTimeout(timer);
					signal.removeEventListener("abort", onEnd);
					if (!signal.aborted) reject(error);
				},
			);
		});
	}

	/**
	 * Pi's abort or a bound: cancel the run at once, record how it ended, and end the turn as soon as Cursor
	 * acknowledged the cancel, {@link CANCEL_WAIT_MS} at the latest (so the cancel is not lost when Pi exits right
	 * after the turn).
	 */
	private interrupt(failure: TurnFailure): void {
		if (this.over || this.failure) return;
		this.failure = failure;
		this.ended.abort();
		const run = this.sdkRun;
		const cancelled = run ? this.cancel(run) : Promise.resolve();
		let timer: ReturnType<typeof setTimeout> | undefined;
		const waited = new Promise<void>((resolve) => {
			timer = setTimeout(resolve, CANCEL_WAIT_MS);
		});
		void Promise.race([cancelled, waited])
			.then(() => {
				clearTimeout(timer);
				return this.recordResult(run?.id ?? null, failure.kind === "aborted" ? "aborted" : "error", undefined, failure);
			})
			.finally(() => this.end(failure));
	}

	/** Posts the run's cancel, then closes the agent's streams; resolves when Cursor answered (or failed to). */
	private cancel(run: Run): Promise<void> {
		return run
			.cancel()
			.catch(() => {})
			.finally(() => this.agent?.close());
	}

	private async recordResult(
		runId: string | null,
		status: CloudRunOutcome,
		git: RunResult["git"],
		failure?: TurnFailure,
	): Promise<void> {
		const agentId = this.agent?.agentId;
		if (!agentId) return;
		const refs = gitRefs(git);
		try {
			await this.deps.journal.record({
				type: "result",
				agentId,
				runId,
				status,
				...(refs ? { git: refs } : {}),
				...(failure && failure.kind !== "aborted" ? { error: failure.message } : {}),
			});
		} catch {
			// The run id is already recorded; a missing result only leaves /cursor-cloud list less precise.
		}
	}

	private journalFailure(error: unknown, consequence: string): CursorError {
		const reason = scrubText(error instanceof Error ? error.message : String(error), this.secrets);
		return {
			kind: "configuration",
			message: `Could not record the Cursor Cloud agent in this session's cloud journal (${reason}); ${consequence}. Check that the session directory is writable.`,
		};
	}

	private sendTimeout(): CursorError {
		return {
			kind: "network",
			message: `Cursor Cloud did not accept the request within ${seconds(this.bounds.sendMs)} (network error). Check your network connection, then retry.`,
		};
	}

	private runTimeout(): CursorError {
		return {
			kind: "backend",
			message: `The Cursor Cloud run did not finish within ${seconds(this.bounds.runMs)}; it was cancelled. Its work so far is on Cursor's side (https://cursor.com/agents).`,
		};
	}

	/** The turn is over: no more updates, no more listening to Pi's abort, the agent's streams closed. */
	private finishTurn(): void {
		this.over = true;
		this.turn.signal?.removeEventListener("abort", this.onAbort);
		this.agent?.close();
	}

	/** Ends the turn with Pi's `error` or `aborted` (once). */
	end(failure: TurnFailure): void {
		if (this.over) return;
		this.finishTurn();
		this.translator.fail(failure);
	}
}

function textDelta(text: string): InteractionUpdate {
	return { type: "text-delta", text };
}
