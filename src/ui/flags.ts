import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export const FLAG_FAST = "cursor-fast";
export const FLAG_NO_FAST = "cursor-no-fast";
export const FLAG_MODE = "cursor-mode";

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
}
