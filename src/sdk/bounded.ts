// One bound for a call to Cursor: its answer, or a rejection once the time is up (or the signal aborted).

export interface BoundOptions {
	/** Ends the wait early with "cancelled". */
	readonly signal?: AbortSignal;
	/** The rejection's message when the time is up (default: "no answer within N s"). */
	readonly timeoutMessage?: string;
}

/** `work`, or a rejection once `ms` have passed without an answer. The timer never keeps the process alive. */
export function bounded<T>(work: Promise<T>, ms: number, options: BoundOptions = {}): Promise<T> {
	const { signal } = options;
	let timer: ReturnType<typeof setTimeout> | undefined;
	let onAbort = () => {};
	const stop = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(options.timeoutMessage ?? `no answer within ${ms / 1000} s`)), ms);
		timer.unref?.();
		onAbort = () => reject(new Error("cancelled"));
		if (signal?.aborted) onAbort();
		signal?.addEventListener("abort", onAbort, { once: true });
	});
	return Promise.race([work, stop]).finally(() => {
		clearTimeout(timer);
		signal?.removeEventListener("abort", onAbort);
	});
}
