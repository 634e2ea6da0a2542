// `/cursor-refresh-config` and `/cursor-cleanup`: the local agent's configuration and its on-disk stores.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { classifyCursorError } from "../sdk/errors.ts";
import {
	CLEANUP_USAGE,
	claimListedStores,
	cleanupReport,
	parseCleanupArgs,
	removeStores,
	scanStores,
} from "../session/cleanup.ts";
import type { SessionAgentPool } from "../session/pool.ts";
import type { SessionStoreScope } from "../session/store-scope.ts";
import { type EnvRecord, readEnv } from "../settings/env.ts";
import type { LocalAgentConfig } from "../settings/local-config.ts";
import type { Notify } from "./types.ts";

export interface LocalAgentCommandDeps {
	/** The local configuration's owner (user and trusted project files). */
	readonly local: Pick<LocalAgentConfig, "reload" | "storeRoot">;
	readonly pool: Pick<SessionAgentPool, "reloadConfig">;
	readonly stores: Pick<SessionStoreScope, "checkRoot" | "current">;
	readonly env: EnvRecord;
	readonly notify: Notify;
	readonly refreshStatus: () => void;
}

async function refreshConfigCommand(deps: LocalAgentCommandDeps): Promise<void> {
	deps.local.reload();
	deps.refreshStatus();
	try {
		const result = await deps.pool.reloadConfig();
		deps.notify(
			result === "reloaded"
				? "Cursor config reloaded: the current Cursor agent now uses the rules, MCP servers, plugins and settings on disk; the conversation continues."
				: "No Cursor agent in this session yet, so there is nothing to reload: Cursor rules, MCP servers and plugins are read when the first Cursor turn starts.",
			"info",
		);
	} catch (error) {
		deps.notify(`Cursor config reload failed: ${classifyCursorError(error).message}`, "error");
	}
}

async function cleanupCommand(deps: LocalAgentCommandDeps, args: string): Promise<void> {
	const parsed = parseCleanupArgs(args);
	if ("error" in parsed) {
		deps.notify(parsed.error, "warning");
		return;
	}
	deps.local.reload();
	const root = deps.stores.checkRoot(deps.local.storeRoot(readEnv(deps.env)));
	if (!root.ok) {
		deps.notify(root.message, "error");
		return;
	}
	const current = deps.stores.current;
	// Pi's own list of its sessions tells which stores from before owner records still belong to one.
	const sessions = await SessionManager.listAll().catch(() => []);
	const scan = scanStores(root.root, { keep: current ? [current] : [], sessions });
	if (parsed.dryRun) {
		deps.notify(cleanupReport(scan, undefined, { unowned: parsed.unowned }), "info");
		return;
	}
	const claimed = claimListedStores(scan);
	const removal = removeStores(scan, { unowned: parsed.unowned });
	deps.notify(
		cleanupReport(scan, removal, { unowned: parsed.unowned, claimed }),
		removal.failed.length > 0 ? "warning" : "info",
	);
}

export function registerLocalAgentCommands(
	pi: Pick<ExtensionAPI, "registerCommand">,
	deps: LocalAgentCommandDeps,
): void {
	pi.registerCommand("cursor-refresh-config", {
		description: "Reload Cursor rules, MCP servers and plugins into the current Cursor agent (keeps the conversation)",
		handler: async () => refreshConfigCommand(deps),
	});
	pi.registerCommand("cursor-cleanup", {
		description: `Remove Cursor session stores whose Pi session was deleted. ${CLEANUP_USAGE}`,
		getArgumentCompletions: (prefix) =>
			["--dry-run", "--unowned"].filter((m) => m.startsWith(prefix)).map((value) => ({ value, label: value })),
		handler: async (args) => cleanupCommand(deps, args),
	});
}
