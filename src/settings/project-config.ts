// The project-level `.pi/cursor-sdk.json`, and when it may be read at all: only for a project Pi's own trust state
// shows as approved (its trust flow this run, a saved decision, a decision over protected resources), or with an
// explicit `--approve` where Pi's state cannot show one.
//
// What an extension can observe of Pi's trust flow (Pi 0.87.1 and 1.6.0 behave alike):
// - `ctx.isProjectTrusted()` is true after an approval, but ALSO for every folder without protected project
//   resources (`.pi/settings.json`, `.pi/extensions`, …): Pi then skips the flow and trusts by default. A bare
//   `.pi/cursor-sdk.json` is not a protected resource, so that default must not count as an approval.
// - The `project_trust` event reaches user and `-e` extensions only while Pi really resolves trust (protected
//   resources present, no `--approve`/`--no-approve`); the decision itself is only visible afterwards through
//   `isProjectTrusted()`. A runtime Pi rebuilds for the same folder (`/new`, `/reload`) reuses the decision
//   without a new event.
// - A decision saved in Pi's trust store (`/trust`, a remembered answer; for the folder or a parent) is public through
//   `ProjectTrustStore`. `--no-approve` makes `isProjectTrusted()` false.
// - `--approve` (`-a`) decides without the flow. Over protected resources Pi's state shows it (trusted with
//   resources); in a folder whose only Pi file is ours, Pi trusts by default either way, so only the process arguments
//   can tell `--approve` apart there, and they are read for nothing else.
import { join } from "node:path";
import {
	type ExtensionContext,
	hasTrustRequiringProjectResources,
	ProjectTrustStore,
} from "@earendil-works/pi-coding-agent";
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

/** Whether Pi's trust store holds a saved "trust" decision for `cwd` (or a parent folder); false when unreadable. */
export function savedProjectTrust(agentDir: string, cwd: string): boolean {
	try {
		return new ProjectTrustStore(agentDir).get(cwd) === true;
	} catch {
		return false;
	}
}

export interface ProjectTrustFacts {
	/** `ctx.isProjectTrusted()` at session start (false with `--no-approve`). */
	readonly piTrusted: boolean;
	/** A saved decision in Pi's trust store trusts this folder (see {@link savedProjectTrust}). */
	readonly savedTrust: boolean;
	/** `--approve` in the process arguments: counts only where Pi trusts the folder anyway. */
	readonly cliApprove: boolean;
	/** Whether this extension saw Pi's `project_trust` event for this folder. */
	readonly trustEventSeen: boolean;
	/** Whether the folder has resources Pi guards with its trust flow (so a trusted state is a real decision). */
	readonly hasProtectedResources: boolean;
}

/** What Pi shows of the trust of the session's folder at session start (all but the `project_trust` event). */
export function sessionTrustFacts(
	ctx: Pick<ExtensionContext, "cwd" | "isProjectTrusted">,
	agentDir: string,
): Omit<ProjectTrustFacts, "trustEventSeen"> {
	return {
		piTrusted: ctx.isProjectTrusted?.() === true,
		savedTrust: savedProjectTrust(agentDir, ctx.cwd),
		cliApprove: approveOverride(process.argv) === true,
		hasProtectedResources: hasTrustRequiringProjectResources(ctx.cwd),
	};
}

/** Whether the project config may be read: an explicit approval, never Pi's no-resources default; never against Pi. */
export function projectConfigTrusted(facts: ProjectTrustFacts): boolean {
	if (!facts.piTrusted) return false;
	return facts.trustEventSeen || facts.hasProtectedResources || facts.savedTrust || facts.cliApprove;
}
