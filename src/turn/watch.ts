// Bounds one Cursor turn: Pi's abort, a first-response deadline and a stream-idle deadline, as one signal that every
// phase (agent wait, store open, create/resume, send, stream) races against. The SDK sets no deadline of its own.
import type { CursorError } from "../sdk/errors.ts";

export const ABORTED = { kind: "aborted", message: "Request was aborted" } as const;
export type TurnFailure = CursorError | typeof ABORTED;

export interface TurnTimeouts {
	/** From the start of the turn's SDK work to Cursor's first event. */
	firstResponseMs: number;
	/** Longest silence between two events of a running stream. */
	idleMs: number;
}

/** Thrown into a phase that the watch ended; `failure` says why. */
export class TurnEnded extends Error {
	constructor(readonly failure: TurnFailure) {
		super(failure.message);
		this.name = "TurnEnded";
	}
}

/** A timer that never keeps the process alive on its own (Pi exits through its own shutdown path). */
function unrefTimer(fire: () => void, ms: number): ReturnType<typeof setTimeout> {
	const timer = setTimeout(fire, ms);
	timer.unref?.();
	return timer;
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

export function noResponseError(ms: number): CursorError {
	return {
		kind: "network",
		message: `Cursor did not respond within ${seconds(ms)} (network error). Check your network connection or proxy; if a proxy breaks HTTP/2 streams, run /cursor-http on (or set PI_CURSOR_HTTP_1_1=1) and retry.`,
	};
}

export function notAcceptedError(ms: number): CursorError {
	return {
		kind: "network",
		message: `Cursor did not accept the request within ${seconds(ms)} (network error). Check your network connection, then retry.`,
	};
}

export function idleError(ms: number): CursorError {
	return {
		kind: "network",
		message: `Cursor stopped responding: no update for ${seconds(ms)} (network error, timed out). Check your network connection or proxy, then retry; /cursor-http on helps when a proxy breaks HTTP/2 streams.`,
	};
}

export class TurnWatch {
	private readonly controller = new AbortController();
	/** Until Cursor's first event: armed when the SDK work starts. */
	private firstResponse: ReturnType<typeof setTimeout> | undefined;
	private responded = false;
	/** While a run streams: armed when the run starts, pushed back by every event. */
	private idle: ReturnType<typeof setTimeout> | undefined;
	private idleArmed = false;
	/** When the last SDK event arrived (ms, monotonic). */
	private lastEvent = 0;
	private ended: TurnFailure | undefined;
	private readonly onPiAbort = () => this.end(ABORTED);

	constructor(
		/** Pi's own abort signal of the request (also how compaction and tree summaries are recognised). */
		readonly piSignal: AbortSignal | undefined,
		private readonly timeouts: TurnTimeouts,
	) {
		if (piSignal?.aborted) this.end(ABORTED);
		else piSignal?.addEventListener("abort", this.onPiAbort, { once: true });
	}

	/** Aborts when Pi aborts the turn or a deadline passes. */
	get signal(): AbortSignal {
		return this.controller.signal;
	}

	/** Why the turn was ended (undefined while it runs). */
	get failure(): TurnFailure | undefined {
		return this.ended;
	}

	/** The turn's SDK work starts: Cursor must produce its first event within the first-response deadline. */
	startSdkWork(): void {
		if (this.firstResponse || this.responded || this.ended) return;
		this.firstResponse = unrefTimer(
			() => this.end(noResponseError(this.timeouts.firstResponseMs)),
			this.timeouts.firstResponseMs,
		);
	}

	/** The SDK run started (`send` returned): from now on it may not stay silent longer than the idle deadline. */
	runStarted(): void {
		if (this.idleArmed || this.ended) return;
		this.lastEvent = performance.now();
		this.armIdle(this.timeouts.idleMs);
	}

	/**
	 * Any SDK event (heartbeats included). On the stream's hot path: after the first event it only records the time;
	 * the idle timer re-arms itself when it fires early.
	 */
	activity(): void {
		this.lastEvent = performance.now();
		if (this.responded) return;
		this.responded = true;
		clearTimeout(this.firstResponse);
	}

	/** Ends the turn with `failure` (the first reason wins). */
	end(failure: TurnFailure): void {
		if (this.ended) return;
		this.ended = failure;
		this.clear();
		this.piSignal?.removeEventListener("abort", this.onPiAbort);
		this.controller.abort(new TurnEnded(failure));
	}

	/** The turn is over: stop the timers and stop listening to Pi's signal. */
	dispose(): void {
		this.clear();
		this.piSignal?.removeEventListener("abort", this.onPiAbort);
	}

	/** Throws `TurnEnded` when the watch has ended the turn. */
	check(): void {
		if (this.ended) throw new TurnEnded(this.ended);
	}

	/**
	 * Settles with `work`, or rejects with `TurnEnded` as soon as the watch ends the turn. A value that arrives after
	 * that is handed to `discard` (e.g. a late agent is closed), never used.
	 */
	race<T>(work: Promise<T>, discard?: (late: T) => void): Promise<T> {
		if (this.ended) {
			work.then(discard, () => {});
			return Promise.reject(new TurnEnded(this.ended));
		}
		return new Promise<T>((resolve, reject) => {
			const onEnd = () => {
				work.then(discard, () => {});
				reject(new TurnEnded(this.ended ?? ABORTED));
			};
			this.signal.addEventListener("abort", onEnd, { once: true });
			work.then(
				(value) => {
					this.signal.removeEventListener("abort", onEnd);
					if (!this.signal.aborted) resolve(value); // else `onEnd` hands it to `discard`
				},
				(error: unknown) => {
					this.signal.removeEventListener("abort", onEnd);
					reject(error);
				},
			);
		});
	}

	/** Ends the turn with a network error when `work` has not settled within `ms` (a request the SDK leaves unbounded). */
	bound<T>(work: Promise<T>, ms: number): Promise<T> {
		const timer = unrefTimer(() => this.end(notAcceptedError(ms)), ms);
		const clear = () => clearTimeout(timer);
		work.then(clear, clear);
		return work;
	}

	private armIdle(ms: number): void {
		this.idleArmed = true;
		this.idle = unrefTimer(() => {
			const silent = performance.now() - this.lastEvent;
			if (silent < this.timeouts.idleMs) this.armIdle(this.timeouts.idleMs - silent);
			else this.end(idleError(this.timeouts.idleMs));
		}, ms);
	}

	private clear(): void {
		clearTimeout(this.firstResponse);
		clearTimeout(this.idle);
	}
}
