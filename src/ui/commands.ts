// The settings and catalog commands (/cursor-fast, /cursor-mode, /cursor-http, /cursor-refresh-models), and the
// registration of the Cursor commands with the dependencies each one uses (/cursor-plan is registered with the plan
// approval's events, in src/plan/approval.ts).
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { REFRESH_ERROR_PREFIX } from "../catalog/discovery.ts";
import type { CatalogState } from "../catalog/state.ts";
import { type DoctorDeps, doctorCommand } from "../doctor/command.ts";
import { classifyCursorError } from "../sdk/errors.ts";
import type { CursorSdkConfigFile } from "../settings/config-file.ts";
import {
	HTTP_USAGE,
	MODE_USAGE,
	parseHttpCommand,
	parseModeCommand,
	planFastToggle,
	resolveEffectiveSettings,
	resolveHttp1,
} from "../settings/effective.ts";
import type { LocalAgentConfig } from "../settings/local-config.ts";
import type { SessionSettings } from "../settings/session-settings.ts";
import { fastEntry, httpEntry, modeEntry } from "../settings/session-state.ts";
import { type UsageCommandDeps, usageCommand } from "../usage/command.ts";
import { type LocalAgentCommandDeps, registerLocalAgentCommands } from "./local-commands.ts";
import type { Notify } from "./types.ts";

/** What /cursor-fast, /cursor-mode and /cursor-http use. */
export interface SettingsCommandDeps {
	/** The session's settings: the precedence input and the session entries (their one owner). */
	readonly settings: Pick<SessionSettings, "input" | "record">;
	/** Writes the user's defaults to cursor-sdk.json. */
	readonly configFile: Pick<CursorSdkConfigFile, "setFastDefault" | "setUseHttp1ForAgent">;
	/** The user config's owner: re-read after a write. */
	readonly local: Pick<LocalAgentConfig, "reload">;
	readonly notify: Notify;
	readonly refreshStatus: () => void;
}

async function fastCommand(deps: SettingsCommandDeps, args: string): Promise<void> {
	const plan = planFastToggle(deps.settings.input(), args);
	if (plan.kind !== "toggle") {
		deps.notify(plan.message, plan.kind === "invalid" ? "warning" : "info");
		return;
	}
	const saved = await deps.configFile.setFastDefault(plan.modelKey, plan.fast);
	deps.settings.record(fastEntry(plan.modelKey, plan.fast));
	if (saved.ok) deps.local.reload();
	deps.notify(
		saved.ok ? plan.message : `${plan.message} Not saved as a default: ${saved.message}`,
		saved.ok ? "info" : "warning",
	);
	deps.refreshStatus();
}

function modeCommand(deps: SettingsCommandDeps, args: string): void {
	const plan = parseModeCommand(args);
	if (plan.kind === "invalid") {
		deps.notify(plan.message, "warning");
		return;
	}
	if (plan.kind === "report") {
		const mode = resolveEffectiveSettings(deps.settings.input()).mode;
		deps.notify(`Cursor mode: ${mode.ok ? mode.mode : mode.fallback.mode}. ${MODE_USAGE}`, "info");
		return;
	}
	deps.settings.record(modeEntry(plan.mode));
	deps.notify(`Cursor mode set to ${plan.mode} for this session.`, "info");
	deps.refreshStatus();
}

async function httpCommand(deps: SettingsCommandDeps, args: string): Promise<void> {
	const current = resolveHttp1(deps.settings.input());
	const plan = parseHttpCommand(args, current);
	if (plan.kind === "invalid") {
		deps.notify(plan.message, "warning");
		return;
	}
	if (plan.kind === "report") {
		const state = current.useHttp1 === undefined ? "unset (SDK default)" : current.useHttp1 ? "on" : "off";
		deps.notify(`Cursor HTTP/1.1 transport: ${state}. ${HTTP_USAGE}`, "info");
		return;
	}
	deps.settings.record(httpEntry(plan.useHttp1));
	const saved = await deps.configFile.setUseHttp1ForAgent(plan.useHttp1);
	if (saved.ok) deps.local.reload();
	const message = `Cursor HTTP/1.1 transport ${plan.useHttp1 ? "on" : "off"}.`;
	deps.notify(
		saved.ok ? message : `${message} Not saved as a default: ${saved.message}`,
		saved.ok ? "info" : "warning",
	);
	deps.refreshStatus();
}

async function refreshModelsCommand(
	catalog: Pick<CatalogState, "models" | "catalogItems" | "source">,
	notify: Notify,
	ctx: ExtensionCommandContext,
): Promise<void> {
	const before = catalog.models.length;
	const result = await ctx.modelRegistry.refresh({
		providers: ["cursor"],
		allowNetwork: true,
		force: true,
		signal: ctx.signal,
	});
	const error = result.errors.get("cursor");
	if (result.aborted) {
		notify("Cursor model refresh cancelled; the current catalog is unchanged.", "warning");
	} else if (error) {
		// Discovery errors are already classified and scrubbed; classifying them again would wrap them twice.
		const detail = error.message.startsWith(REFRESH_ERROR_PREFIX)
			? error.message
			: classifyCursorError(error).message.replace(/^Cursor error: /, "");
		notify(`${detail}${/[.!?]$/.test(detail) ? "" : "."} The current catalog is unchanged.`, "error");
	} else if (catalog.source !== "live") {
		notify("No Cursor API key: set CURSOR_API_KEY or run /login, then /cursor-refresh-models.", "warning");
	} else {
		const models = catalog.catalogItems.length;
		notify(`Cursor models refreshed: ${models} models, ${catalog.models.length} rows (was ${before}).`, "info");
	}
}

/** Each command module's dependencies, named. */
export interface CommandDeps {
	readonly settings: SettingsCommandDeps;
	readonly catalog: Pick<CatalogState, "models" | "catalogItems" | "source">;
	readonly localAgent: LocalAgentCommandDeps;
	readonly usage: UsageCommandDeps;
	readonly doctor: DoctorDeps;
	/** The `/cursor-tools` report. */
	readonly toolsReport: () => string;
	readonly notify: Notify;
	/** Output the user asked for (command results). */
	readonly report: Notify;
}

export function registerCommands(pi: Pick<ExtensionAPI, "registerCommand">, deps: CommandDeps): void {
	pi.registerCommand("cursor-fast", {
		description: "Cursor fast mode for the selected model (saved per model): /cursor-fast [on|off|toggle]",
		getArgumentCompletions: (prefix) =>
			["on", "off", "toggle"].filter((m) => m.startsWith(prefix)).map((value) => ({ value, label: value })),
		handler: async (args) => fastCommand(deps.settings, args),
	});
	pi.registerCommand("cursor-mode", {
		description: "Cursor SDK conversation mode for this session: /cursor-mode [agent|plan]",
		getArgumentCompletions: (prefix) =>
			["agent", "plan"].filter((m) => m.startsWith(prefix)).map((value) => ({ value, label: value })),
		handler: async (args) => modeCommand(deps.settings, args),
	});
	pi.registerCommand("cursor-http", {
		description: "Cursor local HTTP/1.1 transport: /cursor-http [on|off|toggle]",
		getArgumentCompletions: (prefix) =>
			["on", "off", "toggle"].filter((m) => m.startsWith(prefix)).map((value) => ({ value, label: value })),
		handler: async (args) => httpCommand(deps.settings, args),
	});
	pi.registerCommand("cursor-refresh-models", {
		description: "Refresh the Cursor model catalog from Cursor (uses your API key)",
		handler: async (_args, ctx) => refreshModelsCommand(deps.catalog, deps.notify, ctx),
	});
	registerLocalAgentCommands(pi, deps.localAgent);
	pi.registerCommand("cursor-usage", {
		description: "This session's Cursor usage: /cursor-usage [refresh|export <path>|help]",
		getArgumentCompletions: (prefix) =>
			["refresh", "export", "help"].filter((m) => m.startsWith(prefix)).map((value) => ({ value, label: value })),
		handler: async (args, ctx) => usageCommand(deps.usage, args, ctx),
	});
	pi.registerCommand("cursor-tools", {
		description: "Which Pi tools Cursor can call through the bridge, and why others are not exposed",
		handler: async () => deps.report(deps.toolsReport()),
	});
	pi.registerCommand("cursor-doctor", {
		description: "Check why Cursor does or does not work here (key, backend, natives, transport, store, …)",
		handler: async (_args, ctx) => doctorCommand(deps.doctor, ctx),
	});
}
