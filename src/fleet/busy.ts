// A prompt for a cloud agent that is still working on an earlier run never dead-ends: the TUI offers to wait for it
// and then send, to stop it and send, or to send to a new agent; other modes wait (within the turn's bounds).
import type { TrackedRun } from "./fleet.ts";

export type BusyChoice = "wait" | "stop" | "new";

export const BUSY_OPTIONS: readonly { choice: BusyChoice; label: string }[] = [
	{ choice: "wait", label: "Wait for it to finish, then send" },
	{ choice: "stop", label: "Stop it, then send" },
	{ choice: "new", label: "Send to a new Cursor Cloud agent" },
];

export const busyTitle = (run: TrackedRun) =>
	`Cursor Cloud agent ${run.agentId} is still working on an earlier run. Your message:`;

/** The label the TUI showed → the choice (undefined: dismissed). */
export function busyChoiceOf(label: string | undefined): BusyChoice | undefined {
	return BUSY_OPTIONS.find((option) => option.label === label)?.choice;
}

export const BUSY_DISMISSED =
	"Nothing was sent: the Cursor Cloud agent is still working on an earlier run. Send again to choose: wait for it, stop it, or use a new agent.";
