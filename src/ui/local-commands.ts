// `/cursor-refresh-config` and `/cursor-cleanup`: the local agent's configuration and its on-disk stores.
import type { CursorExtension } from "../extension.ts";
import { classifyCursorError } from "../sdk/errors.ts";
import { CLEANUP_USAGE, cleanupReport, parseCleanupArgs, removeStores, scanStores } from "../session/cleanup.ts";
import { readEnv } from "../settings/env.ts";

async function refreshConfigCommand(ext: CursorExtension): Promise<void> {
	ext.userConfig = ext.local.reload().user;
	ext.refreshStatus();
	try {
		const result = await ext.pool.reloadConfig();
		ext.notify(
			result === "reloaded"
				? "Cursor config reloaded: the current Cursor agent now uses the rules, MCP servers, plugins and settings on disk; the conversation continues."
				: "No Cursor agent in this session yet, so there is nothing to reload: Cursor rules, MCP servers and plugins are read when the first Cursor turn starts.",
			"info",
		);
	} catch (error) {
		ext.notify(`Cursor config reload failed: ${classifyCursorError(error).message}`, "error");
	}
}

function cleanupCommand(ext: CursorExtension, args: string): void {
	const parsed = parseCleanupArgs(args);
	if ("error" in parsed) {
		ext.notify(parsed.error, "warning");
		return;
	}
	ext.userConfig = ext.local.reload().user;
	const root = ext.stores.checkRoot(ext.local.storeRoot(readEnv(process.env)));
	if (!root.ok) {
		ext.notify(root.message, "error");
		return;
	}
	const current = ext.stores.current;
	const scan = scanStores(root.root, { keep: current ? [current] : [] });
	const removal = parsed.dryRun ? undefined : removeStores(scan);
	ext.notify(cleanupReport(scan, removal), removal && removal.failed.length > 0 ? "warning" : "info");
}

export function registerLocalAgentCommands(ext: CursorExtension): void {
	ext.pi.registerCommand("cursor-refresh-config", {
		description: "Reload Cursor rules, MCP servers and plugins into the current Cursor agent (keeps the conversation)",
		handler: async () => refreshConfigCommand(ext),
	});
	ext.pi.registerCommand("cursor-cleanup", {
		description: `Remove Cursor session stores whose Pi session was deleted. ${CLEANUP_USAGE}`,
		getArgumentCompletions: (prefix) =>
			["--dry-run"].filter((m) => m.startsWith(prefix)).map((value) => ({ value, label: value })),
		handler: async (args) => cleanupCommand(ext, args),
	});
}
