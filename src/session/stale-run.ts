// A Cursor run a Pi process left marked active when it ended mid-turn (killed, crashed): what the user is told when it
// is expired (the SDK's `local.force`), and whether a reopened session may continue that agent.
import type { AgentStore, CursorSdk } from "../sdk/cursor-sdk.ts";
import { TurnEnded, type TurnWatch } from "../turn/watch.ts";
import { heldByAnotherLivePi } from "./cleanup.ts";
import { mayResume, type ResumeHandle } from "./resume.ts";

/** Told when a send expires a run another (dead) Pi process left active on this session's agent. */
export const STALE_RUN_EXPIRED =
	"A Pi process that ended without finishing its Cursor turn left this session's Cursor agent marked busy; that turn was closed and the conversation goes on with the same agent.";

/** Told once when a reopened session continues the agent of a turn its previous Pi process did not finish. */
export const INTERRUPTED_TURN_RECOVERED =
	"The previous Pi process ended in the middle of a Cursor turn, before Cursor recorded any of it. That turn was closed and this session goes on with the same Cursor agent; the interrupted message is sent along with this one.";

/**
 * A branch whose handle is followed by a turn the previous Pi process never finished: whether the handle's agent may
 * go on (see `mayResume`), from what the SDK's store records about its latest run. When the store cannot tell, no:
 * a new agent gets the whole conversation.
 */
export async function interruptedTurnRecoverable(
	sdk: CursorSdk,
	store: AgentStore,
	handle: ResumeHandle,
	watch: TurnWatch,
): Promise<boolean> {
	try {
		const run = await watch.race(sdk.agentRunState(store, handle.agentId));
		return mayResume({ handle, interrupted: true }, run, heldByAnotherLivePi(handle.storeDir));
	} catch (error) {
		if (error instanceof TurnEnded) throw error;
		return false;
	}
}
