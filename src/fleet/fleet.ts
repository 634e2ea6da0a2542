// The session's fleet of Cursor Cloud runs that are not tied to a Pi turn: runs an earlier Pi process started and never
// saw end (a crash, a closed terminal, a quit), looked up when the session starts. A finished run's outcome is added
// to the session once (a custom message naming the run) and its result journaled; a running one is followed (the
// server replays what was missed) and its outcome lands when it ends. Following never cancels anything: the run is
// Cursor's, and stopping Pi only stops following it.
import type { CloudJournal } from "../cloud/journal.ts";
import { httpStatus } from "../cloud/manage.ts";
import { bounded } from "../sdk/bounded.ts";
import type { CloudRunState, CloudSdk } from "../sdk/cursor-sdk.ts";
import { scrubText } from "../sdk/errors.ts";
import type { Notify } from "../ui/types.ts";
import { LiveRuns } from "./live.ts";
import {
	CLOUD_OUTCOME_MESSAGE,
	deliveredRuns,
	type OpenRun,
	type OutcomeDetails,
	openRuns,
	outcomeText,
	type RunEnd,
} from "./outcomes.ts";

/** A lookup gets this long; following a running run is bounded by the caller (a turn's watch, the wait command). */
export const FLEET_LOOKUP_MS = 15_000;
/** How long an ended run's card waits for the last of its streamed text. */
const STREAM_TAIL_MS = 2000;

export interface FleetSession {
	readonly journal: Pick<CloudJournal, "read" | "record">;
	readonly branch: () => readonly unknown[];
	readonly mode: "tui" | "rpc" | "json" | "print";
	/** The agents the session branch's turns use (print/JSON wait at start only for their runs, not for launched ones). */
	readonly turnAgents: () => readonly string[];
	/** The Cursor key (resolved when the session starts: only needed when the journal has open runs). */
	readonly apiKey: () => Promise<string | undefined>;
}

export interface FleetDeps {
	readonly sdk: Pick<CloudSdk, "getRun" | "followRun" | "cancelRun" | "streamRunText">;
	/** `pi.sendMessage` of the outcome card. */
	readonly sendOutcome: (message: {
		customType: string;
		content: string;
		display: boolean;
		details: OutcomeDetails;
	}) => void;
	readonly notify: Notify;
	readonly report: Notify;
	/** The footer line (undefined: none). */
	readonly setStatus: (text: string | undefined) => void;
	/** The lines of the runs streaming (TUI and RPC; undefined: none). */
	readonly setLines?: (lines: string[] | undefined) => void;
	readonly lookupMs?: number;
}

/** A run the fleet follows until it ends. */
export interface TrackedRun {
	readonly agentId: string;
	readonly runId: string;
	readonly task?: string;
	/** Resolves with the run's end once its outcome is in the session (undefined: no longer followed). */
	readonly ended: Promise<RunEnd | undefined>;
}

interface Following extends TrackedRun {
	readonly stop: AbortController;
}

export function runEnd(state: CloudRunState): RunEnd | undefined {
	if (state.status === "running") return undefined;
	return {
		status: state.status,
		...(state.result !== undefined ? { result: state.result } : {}),
		...(state.error?.message ? { error: state.error.message } : {}),
		...(state.git?.branches.length ? { branches: state.git.branches } : {}),
		...(state.durationMs !== undefined ? { durationMs: state.durationMs } : {}),
		...(state.usage ? { usage: state.usage } : {}),
	};
}

export class CloudFleet {
	private session: FleetSession | undefined;
	/** Bumped per session: a follow of an earlier session delivers nothing to this one. */
	private generation = 0;
	private readonly following = new Map<string, Following>();
	private readonly delivered = new Set<string>();
	private apiKey: string | undefined;
	/** Runs whose outcome a command reports itself (not repeated on stderr in print mode). */
	private readonly quiet = new Set<string>();
	private readonly known = new Map<string, { runId: string; task?: string }>();

	private readonly live: LiveRuns;

	constructor(private readonly deps: FleetDeps) {
		this.live = new LiveRuns((lines) => deps.setLines?.(lines));
	}

	/**
	 * Session start: looks up every run its journal recorded without a result (no request when there is none). In
	 * print and JSON mode it waits for running ones (the outcome lands before the prompt is sent), bounded by `waitMs`.
	 */
	async start(session: FleetSession | undefined, waitMs: number): Promise<void> {
		this.stop();
		this.generation++;
		this.session = session;
		this.delivered.clear();
		if (!session) return;
		const read = session.journal.read();
		if (read.error) return;
		const seen = deliveredRuns(session.branch());
		const open = openRuns(read.records);
		if (open.length === 0) return;
		const apiKey = await session.apiKey();
		if (!apiKey) {
			this.deps.notify(
				`${open.length} Cursor Cloud run(s) of this session ended while Pi was closed, or are still running; set CURSOR_API_KEY or run /login to collect them.`,
				"warning",
			);
			return;
		}
		this.apiKey = apiKey;
		const generation = this.generation;
		await Promise.all(
			open.map(async (run) => {
				const shown = seen.get(run.runId);
				if (shown) {
					this.journalResult(run, { status: shown }); // in the session already; only the journal missed it
					return;
				}
				await this.lookUp(run, apiKey, generation);
			}),
		);
		if (session.mode === "print" || session.mode === "json") {
			const turnAgents = new Set(session.turnAgents());
			const ends = [...this.following.values()].filter((f) => turnAgents.has(f.agentId)).map((f) => f.ended);
			if (ends.length > 0) await bounded(Promise.all(ends), waitMs).catch(() => undefined);
		}
	}

	/** Session shutdown: stop following (the runs go on on Cursor's machines; the next start collects them). */
	stop(): void {
		for (const run of this.following.values()) run.stop.abort();
		this.following.clear();
		this.live.clear();
		this.refreshStatus();
	}

	/** The run the fleet follows on `agentId`, if any (a new send to that agent must wait for it or stop it). */
	activeRunOf(agentId: string): TrackedRun | undefined {
		return [...this.following.values()].find((run) => run.agentId === agentId);
	}

	/** The latest run this session followed on `agentId` (running or over), with its task. */
	runOf(agentId: string): { runId: string; task?: string } | undefined {
		return this.known.get(agentId);
	}

	/** The runs in flight. */
	runs(): TrackedRun[] {
		return [...this.following.values()];
	}

	/** How many runs are in flight. */
	get inFlight(): number {
		return this.following.size;
	}

	/** A run just launched from this session: followed until it ends, its card added then. */
	track(run: OpenRun & { task?: string }, apiKey: string): TrackedRun {
		this.apiKey = apiKey;
		return this.follow(run, apiKey, this.generation, false);
	}

	/**
	 * The end of a recorded run (followed until it ends when it is still running; `undefined`: it could not be looked
	 * up, see the notice). Its card is added to the session once.
	 */
	async collect(run: OpenRun & { task?: string }, apiKey: string): Promise<RunEnd | undefined> {
		this.apiKey = apiKey;
		this.quiet.add(run.runId); // the caller reports the outcome
		const found = this.following.get(run.runId) ?? (await this.lookUp(run, apiKey, this.generation));
		return found && "ended" in found ? found.ended : found;
	}

	/** Stops a followed run on Cursor (its cancelled outcome then lands as any other). */
	async cancel(run: TrackedRun): Promise<void> {
		const apiKey = this.apiKey;
		if (!apiKey) throw new Error("no Cursor API key");
		await bounded(this.deps.sdk.cancelRun(run.agentId, run.runId, apiKey), this.deps.lookupMs ?? FLEET_LOOKUP_MS);
	}

	private async lookUp(
		run: OpenRun & { task?: string },
		apiKey: string,
		generation: number,
	): Promise<RunEnd | TrackedRun | undefined> {
		let state: CloudRunState;
		try {
			state = await bounded(
				this.deps.sdk.getRun(run.agentId, run.runId, apiKey),
				this.deps.lookupMs ?? FLEET_LOOKUP_MS,
			);
		} catch (error) {
			const reason = scrubText(error instanceof Error ? error.message : String(error), [apiKey]);
			if (httpStatus(error) === 404) {
				this.journalResult(run, { status: "error", error: "not found on Cursor" });
				this.deps.notify(
					`The Cursor Cloud run ${run.runId} of ${run.agentId} no longer exists (${reason}).`,
					"warning",
				);
				return undefined;
			}
			this.deps.notify(
				`Could not look up the Cursor Cloud run ${run.runId} of ${run.agentId} (${reason}); it is looked up again next time this session starts.`,
				"warning",
			);
			return undefined;
		}
		const end = runEnd(state);
		if (end) {
			this.deliver(run, end, generation);
			return end;
		}
		return this.follow(run, apiKey, generation, true);
	}

	private follow(run: OpenRun & { task?: string }, apiKey: string, generation: number, earlier: boolean): TrackedRun {
		const stop = new AbortController();
		const streamed = this.stream(run, apiKey, stop.signal);
		// The footer counts the run out (and its line goes) before its card lands, so they never disagree.
		const untrack = () => {
			if (this.following.get(run.runId)?.stop === stop) {
				this.following.delete(run.runId);
				this.live.remove(run.runId);
			}
			this.refreshStatus();
		};
		const ended = this.deps.sdk
			.followRun(run.agentId, run.runId, apiKey, { signal: stop.signal })
			.then(async (state) => {
				const end = stop.signal.aborted ? undefined : runEnd(state);
				// The last of its text is shown before the card (the stream ends with the run; it is not waited long).
				if (end && streamed) {
					await bounded(streamed.done, STREAM_TAIL_MS).catch(() => undefined);
					this.live.flush();
				}
				streamed?.close();
				untrack();
				if (end) this.deliver(run, end, generation);
				return end;
			})
			.catch((error: unknown) => {
				if (!stop.signal.aborted) {
					const reason = scrubText(error instanceof Error ? error.message : String(error), [apiKey]);
					this.deps.notify(
						`Stopped following the Cursor Cloud run of ${run.agentId} (${reason}); it goes on, and is collected next time this session starts.`,
						"warning",
					);
				}
				return undefined;
			})
			.finally(() => {
				streamed?.close();
				untrack();
			});
		const tracked = { ...run, stop, ended };
		this.known.set(run.agentId, { runId: run.runId, ...(run.task ? { task: run.task } : {}) });
		this.following.set(run.runId, tracked);
		this.refreshStatus();
		if (earlier) {
			this.deps.notify(
				`Cursor Cloud agent ${run.agentId} is still working on a run Pi did not see end; its outcome is added here when it ends.`,
				"info",
			);
		}
		return tracked;
	}

	/**
	 * In the TUI and RPC, the run's text as it streams (replayed from its start, then followed) goes to its line;
	 * `done` resolves when the stream ends (with the run, or `close`). Print and JSON show only the outcome.
	 */
	private stream(
		run: OpenRun & { task?: string },
		apiKey: string,
		stop: AbortSignal,
	): { done: Promise<void>; close: () => void } | undefined {
		const mode = this.session?.mode;
		if (mode !== "tui" && mode !== "rpc") return undefined;
		const closer = new AbortController();
		const close = () => closer.abort();
		stop.addEventListener("abort", close, { once: true });
		this.live.add(run.runId, run.agentId, run.task);
		const done = this.deps.sdk
			.streamRunText(run.agentId, run.runId, apiKey, (text) => this.live.text(run.runId, text), {
				signal: closer.signal,
			})
			.catch(() => undefined) // only the line misses text: the run is still followed, its outcome still lands
			.finally(() => stop.removeEventListener("abort", close));
		return { done, close };
	}

	/** Adds the outcome card to the session (once) and journals the run's result. */
	private deliver(run: OpenRun & { task?: string }, end: RunEnd, generation: number): void {
		const session = this.session;
		if (!session || generation !== this.generation) return;
		if (!this.delivered.has(run.runId) && !deliveredRuns(session.branch()).has(run.runId)) {
			this.delivered.add(run.runId);
			const content = outcomeText(run.agentId, end, run.task);
			this.deps.sendOutcome({
				customType: CLOUD_OUTCOME_MESSAGE,
				content,
				display: true,
				details: {
					agentId: run.agentId,
					runId: run.runId,
					status: end.status,
					...(end.branches ? { branches: end.branches } : {}),
					...(end.durationMs !== undefined ? { durationMs: end.durationMs } : {}),
					...(run.task ? { task: run.task } : {}),
				},
			});
			if (session.mode === "print" && !this.quiet.has(run.runId)) this.deps.report(content, "info");
			else if (session.mode === "tui") {
				this.deps.notify(`Cursor Cloud agent ${run.agentId}: run ${end.status}.`, "info");
			}
		}
		this.journalResult(run, end);
	}

	private journalResult(run: OpenRun, end: Pick<RunEnd, "status" | "branches" | "error">): void {
		try {
			this.session?.journal.record({
				type: "result",
				agentId: run.agentId,
				runId: run.runId,
				status: end.status,
				...(end.branches?.length ? { git: end.branches.slice(0, 16) } : {}),
				...(end.error ? { error: end.error.slice(0, 2000) } : {}),
			});
		} catch {
			// The outcome is in the session; a missing result only makes the next start look the run up again.
		}
	}

	private shownCount = 0;

	private refreshStatus(): void {
		const count = this.following.size;
		if (count === this.shownCount) return;
		this.shownCount = count;
		this.deps.setStatus(count > 0 ? `☁ ${count} cloud run${count === 1 ? "" : "s"}` : undefined);
	}
}
