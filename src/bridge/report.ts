// `/cursor-tools`: what the bridge would give Cursor right now, and why each registered Pi tool is or is not in it.
// A report of settings and the current registry, not a health check of a live run.
import type { BridgeSettings } from "./settings.ts";
import type { BridgeSurface, ExposureReason } from "./snapshot.ts";
import { isSafetyRun, type RunSafety, safetyWords, UNDER_SAFETY_VARIABLE } from "./transport.ts";

const REASONS: Record<ExposureReason, string> = {
	exposed: "exposed",
	inactive: "not active in Pi",
	hidden: "hidden by its extension",
	builtin: "Pi built-in (Cursor has its own; PI_CURSOR_EXPOSE_BUILTIN_TOOLS=1 exposes it)",
	safety: `Pi built-in, not offered while Cursor's sandbox or auto-review is on: it would run in Pi, outside them (${UNDER_SAFETY_VARIABLE}=1 exposes it)`,
	replay: "shows Cursor's own tool calls",
};

export interface ToolsReportInput {
	settings: BridgeSettings;
	surface: BridgeSurface;
	/** `PI_CURSOR_SETTING_SOURCES` as the SDK gets it, or its error. */
	settingSources: string;
	/** Whether a bridge is serving the current run. */
	running: boolean;
	/** The local safety controls as they stand now (they decide how Cursor reaches the tools). */
	safety?: RunSafety;
}

export function renderToolsReport({
	settings,
	surface,
	settingSources,
	running,
	safety = {},
}: ToolsReportInput): string {
	const mcpNames = new Map(surface.tools.map((tool) => [tool.piName, tool.mcpName]));
	const words = safetyWords(safety);
	const transport =
		settings.enabled && isSafetyRun(safety)
			? [
					`${words} ${words?.includes(" and ") ? "are" : "is"} on: the SDK refuses MCP tool calls on such runs, so Cursor calls Pi's tools in process ("${surface.serverName}").`,
					"A bridged call runs in Pi, under Pi's rules, not inside Cursor's sandbox or past its auto-review.",
				]
			: [];
	const lines = [
		`Pi tool bridge: ${settings.enabled ? "on" : "off (PI_CURSOR_PI_TOOL_BRIDGE=0)"}${running ? ", serving the current run" : ""}`,
		...transport,
		`Manifest in bootstrap prompts: ${settings.manifest ? "on" : "off"}`,
		`Bridged call deadline: ${Math.round(settings.callTimeoutMs / 1000)} s`,
		`Cursor setting sources: ${settingSources}`,
		`Tools (${surface.tools.length} bridged as ${isSafetyRun(safety) ? "in-process" : "MCP"} server "${surface.serverName}"):`,
		...surface.decisions.map(({ piName, reason }) =>
			reason === "exposed" && settings.enabled
				? `  ${piName} → ${mcpNames.get(piName)}`
				: `  ${piName}: ${settings.enabled ? REASONS[reason] : "bridge off"}`,
		),
		...settings.problems.map((problem) => `Warning: ${problem}`),
	];
	return lines.join("\n");
}
