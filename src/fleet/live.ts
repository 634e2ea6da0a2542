// The lines the TUI (and an RPC client, as a `setWidget` request) shows for the cloud runs the fleet follows: one per
// run, ending with the latest text it streamed, so a reattached or background run is seen working, not only counted.
// Redrawn at most every REFRESH_MS, however many runs stream at once.

export const LIVE_WIDGET = "cursor-cloud-runs";
const REFRESH_MS = 250;
/** How much of a run's text is kept (only its tail is shown). */
const KEEP_CHARS = 2000;
const TAIL_CHARS = 100;
const TASK_CHARS = 40;

/** One line without control characters (Cursor's text must not drive the terminal). */
const oneLine = (text: string) =>
	text
		.replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, " ")
		.replace(/[\p{Cf}]/gu, "")
		.trim();

function clip(text: string, max: number, fromEnd: boolean): string {
	if (text.length <= max) return text;
	return fromEnd ? `…${text.slice(text.length - max + 1)}` : `${text.slice(0, max - 1)}…`;
}

/** A run's line: its agent, its task (when launched from here) and the tail of its text. */
export function liveLine(agentId: string, text: string, task?: string): string {
	const head = task ? `${agentId} (${clip(oneLine(task), TASK_CHARS, false)})` : agentId;
	const tail = clip(oneLine(text), TAIL_CHARS, true);
	return `☁ ${head}: ${tail || "working…"}`;
}

interface LiveRun {
	readonly agentId: string;
	readonly task?: string;
	text: string;
}

export class LiveRuns {
	private readonly runs = new Map<string, LiveRun>();
	private timer: ReturnType<typeof setTimeout> | undefined;
	private shown = false;

	/** `show(undefined)` removes the lines. */
	constructor(
		private readonly show: (lines: string[] | undefined) => void,
		private readonly refreshMs = REFRESH_MS,
	) {}

	add(runId: string, agentId: string, task?: string): void {
		this.runs.set(runId, { agentId, text: "", ...(task ? { task } : {}) });
		this.schedule();
	}

	text(runId: string, chunk: string): void {
		const run = this.runs.get(runId);
		if (!run) return;
		run.text = (run.text + chunk).slice(-KEEP_CHARS);
		this.schedule();
	}

	/** The run is over: its line goes at once (its outcome card follows). */
	remove(runId: string): void {
		if (this.runs.delete(runId)) this.flush();
	}

	/** Draws what is pending now. */
	flush(): void {
		if (this.timer) clearTimeout(this.timer);
		this.timer = undefined;
		if (this.runs.size === 0) {
			if (this.shown) this.show(undefined);
			this.shown = false;
			return;
		}
		this.shown = true;
		this.show([...this.runs.values()].map((run) => liveLine(run.agentId, run.text, run.task)));
	}

	clear(): void {
		this.runs.clear();
		this.flush();
	}

	private schedule(): void {
		if (this.timer) return;
		this.timer = setTimeout(() => this.flush(), this.refreshMs);
		this.timer.unref?.();
	}
}
