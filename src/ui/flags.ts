import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { CLOUD_FLAGS, type CloudFlagsInput } from "../cloud/options.ts";
import type { CursorFlagsInput } from "../settings/effective.ts";

export const FLAG_FAST = "cursor-fast";
export const FLAG_NO_FAST = "cursor-no-fast";
export const FLAG_MODE = "cursor-mode";
export const FLAG_AUTO_REVIEW = "cursor-auto-review";
export const FLAG_SANDBOX = "cursor-sandbox";
export const FLAG_RUNTIME = "cursor-runtime";

/** The cloud flags: their type and what `pi --help` says. */
const CLOUD_FLAG_HELP: Record<keyof typeof CLOUD_FLAGS, ["boolean" | "string", string]> = {
	ack: ["boolean", "Confirm that Cursor Cloud turns run on Cursor's machines (needed outside the TUI)"],
	repo: ["string", "Cursor Cloud: HTTPS repository the cloud agent works on (default: this checkout's origin)"],
	branch: ["string", "Cursor Cloud: branch or ref the cloud agent starts from (needs a repository)"],
	context: ["string", "Cursor Cloud: context of a new cloud agent: fresh (default) or bootstrap (prior conversation)"],
	directPush: ["boolean", "Cursor Cloud: work on the starting branch instead of a new one"],
	autoCreatePr: ["boolean", "Cursor Cloud: open a pull request when the run is done"],
	skipReviewerRequest: ["boolean", "Cursor Cloud: request no reviewer on that pull request"],
	allowLocalState: ["boolean", "Cursor Cloud: run although this checkout has uncommitted or unpushed work"],
	envType: ["string", "Cursor Cloud: environment type: cloud, pool or machine"],
	envName: ["string", "Cursor Cloud: environment name"],
	env: ["string", "Cursor Cloud: forward environment variables (not supported; fails closed)"],
	envFromFiles: ["boolean", "Cursor Cloud: forward environment files (not supported; fails closed)"],
};

export function registerFlags(pi: ExtensionAPI): void {
	pi.registerFlag(FLAG_FAST, {
		type: "boolean",
		description: "Force Cursor fast mode on for this run (overrides saved defaults; never saved)",
	});
	pi.registerFlag(FLAG_NO_FAST, {
		type: "boolean",
		description: "Force Cursor fast mode off for this run (overrides saved defaults; never saved)",
	});
	pi.registerFlag(FLAG_MODE, {
		type: "string",
		description: "Cursor SDK conversation mode for this run: agent or plan (never saved)",
	});
	pi.registerFlag(FLAG_AUTO_REVIEW, {
		type: "boolean",
		description: "Turn on Cursor's auto-review of local agent actions for this run (never saved)",
	});
	pi.registerFlag(FLAG_SANDBOX, {
		type: "boolean",
		description: "Run the local Cursor agent's commands in Cursor's sandbox for this run (never saved)",
	});
	pi.registerFlag(FLAG_RUNTIME, {
		type: "string",
		description: "Cursor runtime for this run: local or cloud (Cursor Cloud agents; never saved)",
	});
	for (const [key, [type, description]] of Object.entries(CLOUD_FLAG_HELP)) {
		pi.registerFlag(CLOUD_FLAGS[key as keyof typeof CLOUD_FLAGS], { type, description });
	}
}

/** Pi's values of our flags for this run (boolean flags are `true` when given). */
export function readFlags(pi: Pick<ExtensionAPI, "getFlag">): CursorFlagsInput {
	return {
		fast: pi.getFlag(FLAG_FAST),
		noFast: pi.getFlag(FLAG_NO_FAST),
		mode: pi.getFlag(FLAG_MODE),
		autoReview: pi.getFlag(FLAG_AUTO_REVIEW),
		sandbox: pi.getFlag(FLAG_SANDBOX),
		runtime: pi.getFlag(FLAG_RUNTIME),
	};
}

/** Pi's values of the cloud flags for this run. */
export function readCloudFlags(pi: Pick<ExtensionAPI, "getFlag">): CloudFlagsInput {
	const flags: CloudFlagsInput = {};
	for (const [key, name] of Object.entries(CLOUD_FLAGS)) flags[key as keyof typeof CLOUD_FLAGS] = pi.getFlag(name);
	return flags;
}
