// `/cursor-refresh-config` and `/cursor-cleanup`: the local agent's configuration and its on-disk stores.
import { SessionManager } from "@earendil-works/pi-coding-agent";
import type { CursorExtension } from "../extension.ts";
import { classifyCursorError } from "../sdk/errors.ts";
import {
	CLEANUP_USAGE,
	claimListedStores,
	cleanupReport,
	parseCleanupArgs,
	removeStores,
	scanStores,
} from "../session/cleanup.ts";
import { chooseStoreRoot } from "../session/store-root.ts";

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

async function cleanupCommand(ext: CursorExtension, args: string): Promise<void> {
	const parsed = parseCleanupArgs(args);
	if ("error" in parsed) {
		ext.notify(parsed.error, "warning");
		return;
	}
	ext.userConfig = ext.local.reload().user;
	const root = ext.stores.checkRoot(chooseStoreRoot(process.env, ext.userConfig.local?.storeRoot));
	if (!root.ok) {
		ext.notify(root.message, "error");
		return;
	}
	const current = ext.stores.current;
	// Pi's own list of its sessions tells which stores from before owner records still belong to one.
	const sessions = await SessionManager.listAll().catch(() => []);
	const scan = scanStores(root.root, { keep: current ? [current] : [], sessions });
	if (parsed.dryRun) {
		ext.notify(cleanupReport(scan, undefined, { unowned: parsed.unowned }), "info");
		return;
	}
	const claimed = claimListedStores(scan);
	const removal = removeStores(scan, { unowned: parsed.unowned });
	ext.notify(
		cleanupReport(scan, removal, { unowned: parsed.unowned, claimed }),
		removal.failed.length > 0 ? "warning" : "info",
	);
}

export function registerLocalAgentCommands(ext: CursorExtension): void {
	ext.pi.registerCommand("cursor-refresh-config", {
		description: "Reload Cursor rules, MCP servers and plugins into the current Cursor agent (keeps the conversation)",
		handler: async () => refreshConfigCommand(ext),
	});
	ext.pi.registerCommand("cursor-cleanup", {
		description: `Remove Cursor session stores whose Pi session was deleted. ${CLEANUP_USAGE}`,
		getArgumentCompletions: (prefix) =>
			["--dry-run", "--unowned"].filter((m) => m.startsWith(prefix)).map((value) => ({ value, label: value })),
		handler: async (args) => cleanupCommand(ext, args),
	});
}
