// The SDK feeds every frame it has already received through `onDelta` in one unbroken run, while Pi writes each
// event with a write whose completion needs the event loop. Without a pause, a burst of frames delays the first token
// on screen until the SDK has processed the whole burst. `onDelta` may return a promise, which the SDK awaits: yield
// to the event loop after the first visible delta and whenever the loop has not turned for a few milliseconds.

/** How long the SDK may keep the event loop before we hand it back. */
const MAX_HOLD_MS = 8;

export class LoopYield {
	private shownFirst = false;
	private turnedAt = performance.now();
	private watching = false;

	/** Called for each visible (text or thinking) delta; a promise when the SDK should pause for one loop turn. */
	afterVisibleDelta(): Promise<void> | undefined {
		const now = performance.now();
		if (!this.watching) {
			this.watching = true;
			setImmediate(() => {
				this.watching = false;
				this.turnedAt = performance.now();
			});
		}
		if (this.shownFirst && now - this.turnedAt < MAX_HOLD_MS) return undefined;
		this.shownFirst = true;
		this.turnedAt = now;
		return new Promise((resolve) => setImmediate(resolve));
	}
}
