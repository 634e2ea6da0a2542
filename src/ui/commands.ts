import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { REFRESH_ERROR_PREFIX } from "../catalog/discovery.ts";
import { doctorCommand } from "../doctor/command.ts";
import type { CursorExtension } from "../extension.ts";
import { classifyCursorError } from "../sdk/errors.ts";
import {
	HTTP_USAGE,
	MODE_USAGE,
	parseHttpCommand,
	parseModeCommand,
	planFastToggle,
	resolveEffectiveSettings,
	resolveHttp1,
} from "../settings/effective.ts";
import {
	applySessionEntry,
	fastEntry,
	httpEntry,
	modeEntry,
	type SessionStateEntry,
} from "../settings/session-state.ts";
import { usageCommand } from "../usage/command.ts";
import { registerLocalAgentCommands } from "./local-commands.ts";

/** Appends a session entry and applies it to the in-memory session state (which is rebuilt on session_start). */
function record(ext: CursorExtension, entry: SessionStateEntry): void {
	ext.session = applySessionEntry(ext.session, entry.customType, entry.data);
	ext.pi.appendEntry(entry.customType, entry.data);
}

async function fastCommand(ext: CursorExtension): Promise<void> {
	const plan = planFastToggle(ext.settingsInput());
	if (plan.kind !== "toggle") {
		ext.notify(plan.message, "info");
		return;
	}
	const saved = await ext.configFile.setFastDefault(plan.modelKey, plan.fast);
	record(ext, fastEntry(plan.modelKey, plan.fast));
	if (saved.ok) ext.userConfig = saved.config;
	ext.notify(
		saved.ok ? plan.message : `${plan.message} Not saved as a default: ${saved.message}`,
		saved.ok ? "info" : "warning",
	);
	ext.refreshStatus();
}

function modeCommand(ext: CursorExtension, args: string): void {
	const plan = parseModeCommand(args);
	if (plan.kind === "invalid") {
		ext.notify(plan.message, "warning");
		return;
	}
	if (plan.kind === "report") {
		const mode = resolveEffectiveSettings(ext.settingsInput()).mode;
		ext.notify(`Cursor mode: ${mode.ok ? mode.mode : mode.fallback.mode}. ${MODE_USAGE}`, "info");
		return;
	}
	record(ext, modeEntry(plan.mode));
	ext.notify(`Cursor mode set to ${plan.mode} for this session.`, "info");
	ext.refreshStatus();
}

async function httpCommand(ext: CursorExtension, args: string): Promise<void> {
	const current = resolveHttp1(ext.settingsInput());
	const plan = parseHttpCommand(args, current);
	if (plan.kind === "invalid") {
		ext.notify(plan.message, "warning");
		return;
	}
	if (plan.kind === "report") {
		const state = current.useHttp1 === undefined ? "unset (SDK default)" : current.useHttp1 ? "on" : "off";
		ext.notify(`Cursor HTTP/1.1 transport: ${state}. ${HTTP_USAGE}`, "info");
		return;
	}
	record(ext, httpEntry(plan.useHttp1));
	const saved = await ext.configFile.setUseHttp1ForAgent(plan.useHttp1);
	if (saved.ok) ext.userConfig = saved.config;
	const message = `Cursor HTTP/1.1 transport ${plan.useHttp1 ? "on" : "off"}.`;
	ext.notify(saved.ok ? message : `${message} Not saved as a default: ${saved.message}`, saved.ok ? "info" : "warning");
	ext.refreshStatus();
}

async function refreshModelsCommand(ext: CursorExtension, ctx: ExtensionCommandContext): Promise<void> {
	const before = ext.catalog.models.length;
	const result = await ctx.modelRegistry.refresh({
		providers: ["cursor"],
		allowNetwork: true,
		force: true,
		signal: ctx.signal,
	});
	const error = result.errors.get("cursor");
	if (result.aborted) {
		ext.notify("Cursor model refresh cancelled; the current catalog is unchanged.", "warning");
	} else if (error) {
		// Discovery errors are already classified and scrubbed; classifying them again would wrap them twice.
		const detail = error.message.startsWith(REFRESH_ERROR_PREFIX)
			? error.message
			: classifyCursorError(error).message.replace(/^Cursor error: /, "");
		ext.notify(`${detail}${/[.!?]$/.test(detail) ? "" : "."} The current catalog is unchanged.`, "error");
	} else if (ext.catalog.source !== "live") {
		ext.notify("No Cursor API key: set CURSOR_API_KEY or run /login, then /cursor-refresh-models.", "warning");
	} else {
		const models = ext.catalog.catalogItems.length;
		ext.notify(`Cursor models refreshed: ${models} models, ${ext.catalog.models.length} rows (was ${before}).`, "info");
	}
}

export function registerCommands(ext: CursorExtension): void {
	const { pi } = ext;
	pi.registerCommand("cursor-fast", {
		description: "Toggle Cursor fast mode for the selected model (saved per model)",
		handler: async () => fastCommand(ext),
	});
	pi.registerCommand("cursor-mode", {
		description: "Cursor SDK conversation mode for this session: /cursor-mode [agent|plan]",
		getArgumentCompletions: (prefix) =>
			["agent", "plan"].filter((m) => m.startsWith(prefix)).map((value) => ({ value, label: value })),
		handler: async (args) => modeCommand(ext, args),
	});
	pi.registerCommand("cursor-http", {
		description: "Cursor local HTTP/1.1 transport: /cursor-http [on|off|toggle]",
		getArgumentCompletions: (prefix) =>
			["on", "off", "toggle"].filter((m) => m.startsWith(prefix)).map((value) => ({ value, label: value })),
		handler: async (args) => httpCommand(ext, args),
	});
	pi.registerCommand("cursor-refresh-models", {
		description: "Refresh the Cursor model catalog from Cursor (uses your API key)",
		handler: async (_args, ctx) => refreshModelsCommand(ext, ctx),
	});
	registerLocalAgentCommands(ext);
	pi.registerCommand("cursor-usage", {
		description: "This session's Cursor usage: /cursor-usage [refresh|export <path>|help]",
		getArgumentCompletions: (prefix) =>
			["refresh", "export", "help"].filter((m) => m.startsWith(prefix)).map((value) => ({ value, label: value })),
		handler: async (args, ctx) => usageCommand(ext, args, ctx),
	});
	pi.registerCommand("cursor-tools", {
		description: "Which Pi tools Cursor can call through the bridge, and why others are not exposed",
		handler: async () => ext.report(ext.toolsReport()),
	});
	pi.registerCommand("cursor-doctor", {
		description: "Check why Cursor does or does not work here (key, backend, natives, transport, store, …)",
		handler: async (_args, ctx) => doctorCommand(ext, ctx),
	});
}
