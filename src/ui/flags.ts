import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { CLOUD_FLAGS, type CloudFlagsInput, cloudFlagSpecs } from "../cloud/options.ts";
import type { CursorFlagsInput } from "../settings/effective.ts";

export const FLAG_FAST = "cursor-fast";
export const FLAG_NO_FAST = "cursor-no-fast";
export const FLAG_MODE = "cursor-mode";
export const FLAG_AUTO_REVIEW = "cursor-auto-review";
export const FLAG_SANDBOX = "cursor-sandbox";
export const FLAG_RUNTIME = "cursor-runtime";

export function registerFlags(pi: ExtensionAPI): void {
	pi.registerFlag(FLAG_FAST, {
		type: "boolean",
		description: "Start this run with Cursor fast mode on (/cursor-fast changes it; never saved)",
	});
	pi.registerFlag(FLAG_NO_FAST, {
		type: "boolean",
		description: "Start this run with Cursor fast mode off (/cursor-fast changes it; never saved)",
	});
	pi.registerFlag(FLAG_MODE, {
		type: "string",
		description:
			"Cursor SDK conversation mode this run starts in: agent or plan (/cursor-mode changes it; never saved)",
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
		description:
			"Cursor runtime this run starts on: local or cloud (Cursor Cloud agents; /cursor-runtime changes it; never saved)",
	});
	for (const { name, type, description } of cloudFlagSpecs()) pi.registerFlag(name, { type, description });
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
