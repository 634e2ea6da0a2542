// Quitting Pi while Cursor Cloud runs are in flight. Pi has no hook that runs before it quits (`session_shutdown`
// comes after the TUI has stopped), so in the TUI the quit keys themselves are watched: Pi's exit key (`ctrl+d`) on
// an empty editor, and Enter on `/quit`. With a run in flight the key is held back and Pi asks once: leave the runs
// going on Cursor (the default; the next start of this session collects them) or stop them; then Pi quits as it
// would have. Dismissing the question keeps Pi open. Without a TUI (print, JSON, RPC) nothing asks: the runs go on,
// and the shutdown line names them and the command that collects them.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { getKeybindings, type Keybinding, type KeyId, matchesKey } from "@earendil-works/pi-tui";

export interface InFlightRun {
	readonly agentId: string;
	readonly runId: string;
}

export const QUIT_LEAVE = "Leave it running on Cursor (collected when you reopen this session)";
export const QUIT_STOP = "Stop it on Cursor, then quit";

const runsPhrase = (count: number) => (count === 1 ? "1 Cursor Cloud run" : `${count} Cursor Cloud runs`);

/** The agents of `runs`, at most three named. */
function agentList(runs: readonly InFlightRun[]): string {
	const ids = [...new Set(runs.map((run) => run.agentId))];
	return ids.length > 3 ? `${ids.slice(0, 3).join(", ")} and ${ids.length - 3} more` : ids.join(", ");
}

export const quitTitle = (runs: readonly InFlightRun[]) =>
	`Quit Pi: ${runsPhrase(runs.length)} still in flight (${agentList(runs)}).`;

/** The line printed when Pi exits with runs still going on (the TUI has stopped by then: plain stderr). */
export function leftRunningMessage(runs: readonly InFlightRun[]): string {
	const first = runs[0]?.agentId ?? "<bc-id>";
	return `${runsPhrase(runs.length)} go on on Cursor's machines (${agentList(runs)}). To collect: reopen this session (pi -c), or pi -c -p "/cursor-cloud wait ${first}".`;
}

/** Whether a key press in the editor quits Pi. */
export interface QuitKeys {
	readonly exit: (data: string) => boolean;
	readonly submit: (data: string) => boolean;
}

/** Pi's own bindings of the exit and submit keys (a user's keybindings.json included), else ctrl+d and Enter. */
export function hostQuitKeys(): QuitKeys {
	const matcher = (id: Keybinding, fallback: KeyId) => (data: string) => {
		try {
			const bindings = getKeybindings();
			if (bindings.getKeys(id).length > 0) return bindings.matches(data, id);
		} catch {
			// An older host without the binding: its default key.
		}
		return matchesKey(data, fallback);
	};
	return { exit: matcher("app.exit", "ctrl+d"), submit: matcher("tui.input.submit", "enter") };
}

/** Pi would quit on `data` with `editorText` in the editor: its exit key on an empty editor, or Enter on `/quit`. */
export function quitsPi(data: string, editorText: string, keys: QuitKeys): boolean {
	if (editorText.length === 0) return keys.exit(data);
	return editorText.trim() === "/quit" && keys.submit(data);
}

export interface QuitDeps {
	/** The cloud runs in flight: the turns' and the fleet's. */
	readonly runs: () => InFlightRun[];
	/** The user chose to quit: an abort that follows leaves its run going instead of cancelling it. */
	readonly leave: () => void;
	/** Stops every run in flight on Cursor; returns those that could not be stopped, and why (scrubbed). */
	readonly stop: () => Promise<{ run: InFlightRun; reason: string }[]>;
	readonly keys?: QuitKeys;
}

export class QuitGuard {
	/** Asking: the question has the keys. Stopping: quit keys wait for the stops. Quitting: they go to Pi again. */
	private state: "idle" | "asking" | "stopping" | "quitting" = "idle";
	private unsubscribe: (() => void) | undefined;
	private readonly stopped = new Set<string>();

	constructor(private readonly deps: QuitDeps) {}

	/** Session start: in the TUI, the quit keys are watched. */
	bind(ctx: ExtensionContext): void {
		this.unbind();
		this.stopped.clear();
		this.state = "idle";
		if (ctx.mode !== "tui" || !ctx.hasUI || typeof ctx.ui.onTerminalInput !== "function") return;
		const keys = this.deps.keys ?? hostQuitKeys();
		this.unsubscribe = ctx.ui.onTerminalInput((data) => {
			if (this.state === "asking" || this.state === "quitting") return undefined;
			if (!quitsPi(data, ctx.ui.getEditorText(), keys)) return undefined;
			if (this.state === "stopping") return { consume: true };
			const runs = this.deps.runs();
			if (runs.length === 0) return undefined;
			this.state = "asking";
			void this.ask(ctx, runs).catch(() => {
				this.state = "idle";
			});
			return { consume: true };
		});
	}

	unbind(): void {
		this.unsubscribe?.();
		this.unsubscribe = undefined;
	}

	/** The runs that go on after Pi exits (all in flight, less those the user stopped). */
	left(): InFlightRun[] {
		return this.deps.runs().filter((run) => !this.stopped.has(run.runId));
	}

	private async ask(ctx: ExtensionContext, runs: InFlightRun[]): Promise<void> {
		ctx.ui.setEditorText(""); // a typed /quit is not left behind
		const plural = runs.length > 1;
		const options = plural
			? [QUIT_LEAVE.replace("Leave it", "Leave them"), QUIT_STOP.replace("Stop it", "Stop them")]
			: [QUIT_LEAVE, QUIT_STOP];
		const choice = await ctx.ui.select(quitTitle(runs), options);
		if (choice === undefined) {
			this.state = "idle";
			ctx.ui.notify("Pi stays open; the Cursor Cloud runs go on.", "info");
			return;
		}
		if (choice === options[1]) {
			this.state = "stopping";
			ctx.ui.notify(`Stopping ${runsPhrase(runs.length)} on Cursor…`, "info");
			const stopping = this.deps.runs();
			const failed = await this.deps.stop();
			for (const run of stopping) if (!failed.some((f) => f.run.runId === run.runId)) this.stopped.add(run.runId);
			for (const { run, reason } of failed) {
				ctx.ui.notify(`Could not stop ${run.agentId} (${reason}); it goes on on Cursor's machines.`, "warning");
			}
		}
		this.state = "quitting";
		this.deps.leave();
		// Pi quits once the turn in flight (if any) has ended: aborted here, its run left going or already stopped.
		if (!ctx.isIdle()) ctx.abort();
		ctx.shutdown();
	}
}
