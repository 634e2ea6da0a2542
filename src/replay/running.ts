// A Cursor call shown as a Pi tool card while it still runs (a long shell command): the card's tool call ends the
// assistant message before Cursor reports the result, Pi's replay tool waits here, shows each piece of live output
// as a partial result, and returns Cursor's recorded result once the call completes (or the run ends without it).
import type { ReplayCard } from "./mapping.ts";

export class RunningCard {
	private output: string | undefined;
	private readonly listeners = new Set<(output: string) => void>();
	private resolveDone: (card: ReplayCard) => void = () => {};
	/** Cursor's completed card (or an incomplete one, when the run ended first). */
	readonly done = new Promise<ReplayCard>((resolve) => {
		this.resolveDone = resolve;
	});
	private finished = false;

	constructor(
		/** The Pi tool-call id (the card's id). */
		readonly id: string,
		/** The Pi tool the card is shown as. */
		readonly name: string,
	) {}

	/** Live output so far (already scrubbed and bounded): shown as the card's partial result. */
	progress(output: string): void {
		if (this.finished) return;
		this.output = output;
		for (const listener of this.listeners) listener(output);
	}

	/** Follows the live output (the latest at once, when there is some); returns the unsubscribe. */
	watch(listener: (output: string) => void): () => void {
		if (this.output !== undefined) listener(this.output);
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	finish(card: ReplayCard): void {
		if (this.finished) return;
		this.finished = true;
		this.listeners.clear();
		this.resolveDone(card);
	}
}
