// The runtime seam: the provider entry resolves a request into a turn setup, and a runtime object runs it. The local
// runtime (src/runtime/local.ts) runs turns on a pooled local SDK agent; the cloud runtime (src/runtime/cloud.ts) on
// a Cursor Cloud agent.
import type { Message, Model, SimpleStreamOptions, TranscriptContext } from "@earendil-works/pi-ai";
import type { CursorError } from "../sdk/errors.ts";
import type { LiveRun } from "../turn/live-run.ts";
import type { TurnObserver } from "../turn/observer.ts";
import type { ToolDisplay } from "../turn/tools.ts";
import type { AgentLease, TurnSetup } from "../turn/types.ts";
import type { TurnWatch } from "../turn/watch.ts";

/** What runs a resolved turn: leases an agent, keeps or drops the live run, shows tools. */
export interface TurnRuntime {
	/** Leases an agent; every wait races `watch`, and `watch.startSdkWork()` is called once the turn owns the agent. */
	acquire(setup: TurnSetup, messages: readonly Message[], watch: TurnWatch): Promise<AgentLease>;
	/** The session's live run that a request may continue (none for summaries). */
	liveRun(summary: boolean): LiveRun | undefined;
	/** Makes `run` the session's live run (undefined: none), giving up a previous one. */
	keepLive(run: LiveRun | undefined): void;
	/** `run` is over: it is no longer the session's live run (nothing is given up). */
	dropLive(run: LiveRun): void;
	/** How this request shows Cursor's tool activity. */
	toolDisplay(context: TranscriptContext, setup: TurnSetup): ToolDisplay;
	observer?: TurnObserver;
}

/** The provider entry: resolves a request into a setup (or the reason it cannot run) and names its runtime. */
export interface TurnEntry {
	/** Whether Pi's request is a compaction or tree summary (recognised by its abort signal). */
	isSummary(signal: AbortSignal | undefined): boolean;
	/**
	 * Resolves the request once. `continuing`: it continues a live run (its agent and store are already in use;
	 * configuration is re-read at the next send).
	 */
	setup(model: Model<string>, options: SimpleStreamOptions | undefined, continuing: boolean): TurnSetup | CursorError;
	/** Runs local turns (and compaction and tree summaries, whatever the runtime). */
	readonly runtime: TurnRuntime;
	/** Runs cloud turns (src/runtime/cloud.ts); it keeps its live run in the same session slot. */
	readonly cloud: TurnRuntime;
}
