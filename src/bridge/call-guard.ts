// A bridged call Cursor stopped waiting for (its deadline passed, or Cursor cancelled it) before Pi got to run it
// (e.g. another extension's hook held it) must not run now. Pi has no public way to stop a tool that is already
// running, so one that passes its deadline while running goes on and its late result is discarded.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { LiveRun } from "../turn/live-run.ts";
import { isBridgeToolCallId } from "./ids.ts";

export function guardBridgedCalls(pi: Pick<ExtensionAPI, "on">, liveRun: () => LiveRun | undefined): void {
	pi.on("tool_call", (event) => {
		if (!isBridgeToolCallId(event.toolCallId) || liveRun()?.awaitsBridgeResult(event.toolCallId)) return;
		return {
			block: true,
			reason:
				"Cursor stopped waiting for this call (its deadline, PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS, passed or Cursor cancelled it), so Pi did not run it.",
		};
	});
}
