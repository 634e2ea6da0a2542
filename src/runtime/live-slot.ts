// The session's one live run, shared by both runtimes: a run kept between provider turns (while Pi shows Cursor's
// tool calls) lives in the session pool, whichever runtime started it.
import type { SessionAgentPool } from "../session/pool.ts";
import type { LiveRun } from "../turn/live-run.ts";

export class SessionLiveSlot {
	constructor(private readonly slot: Pick<SessionAgentPool, "liveRun" | "keepLive" | "dropLive">) {}

	/** The session's live run that a request may continue (none for summaries). */
	liveRun(summary: boolean): LiveRun | undefined {
		return summary ? undefined : this.slot.liveRun;
	}

	/** Makes `run` the session's live run (undefined: none), giving up a previous one. */
	keepLive(run: LiveRun | undefined): void {
		this.slot.keepLive(run);
	}

	/** `run` is over: it is no longer the session's live run. */
	dropLive(run: LiveRun): void {
		this.slot.dropLive(run);
	}
}
