// The project-level `.pi/cursor-sdk.json`, and when it may be read at all: only for a project Pi's trust flow
// approved for this run, or with an explicit `--approve`.
//
// What an extension can observe of Pi's trust flow (Pi 0.87.1 and 1.6.0 behave alike):
// - `ctx.isProjectTrusted()` is true after an approval, but ALSO for every folder without protected project
//   resources (`.pi/settings.json`, `.pi/extensions`, …): Pi then skips the flow and trusts by default. A bare
//   `.pi/cursor-sdk.json` is not a protected resource, so that default must not count as an approval.
// - The `project_trust` event reaches user and `-e` extensions only while Pi really resolves trust (protected
//   resources present, no `--approve`/`--no-approve`); the decision itself is only visible afterwards through
//   `isProjectTrusted()`. A runtime Pi rebuilds for the same folder (`/new`, `/reload`) reuses the decision
//   without a new event.
// - `--approve` (`-a`) decides without the flow; only the process arguments show it.
import { join } from "node:path";
import { CURSOR_SDK_CONFIG_FILENAME } from "./config-file.ts";

/** `<cwd>/.pi/cursor-sdk.json`. */
export function projectConfigPath(cwd: string): string {
	return join(cwd, ".pi", CURSOR_SDK_CONFIG_FILENAME);
}

/** Pi's `--approve` / `--no-approve` in the process arguments (the last one wins, as in Pi's parser). */
export function approveOverride(argv: readonly string[]): boolean | undefined {
	let decision: boolean | undefined;
	for (const arg of argv) {
		if (arg === "--") break;
		if (arg === "--approve" || arg === "-a") decision = true;
		else if (arg === "--no-approve" || arg === "-na") decision = false;
	}
	return decision;
}

export interface ProjectTrustFacts {
	/** `ctx.isProjectTrusted()` at session start. */
	readonly piTrusted: boolean;
	/** `--approve` (true) / `--no-approve` (false) in the process arguments. */
	readonly override: boolean | undefined;
	/** Whether this extension saw Pi's `project_trust` event for this folder. */
	readonly trustEventSeen: boolean;
	/** Whether the folder has resources Pi guards with its trust flow (so a trusted state is a real decision). */
	readonly hasProtectedResources: boolean;
}

/** Whether the project config may be read: an explicit approval for this run, never Pi's no-resources default. */
export function projectConfigTrusted(facts: ProjectTrustFacts): boolean {
	if (facts.override === false || !facts.piTrusted) return false;
	return facts.override === true || facts.trustEventSeen || facts.hasProtectedResources;
}
