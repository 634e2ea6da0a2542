// `/cursor-tools`: what the bridge would give Cursor right now, and why each registered Pi tool is or is not in it.
// A report of settings and the current registry, not a health check of a live run.
import type { BridgeSettings } from "./settings.ts";
import { BRIDGE_SERVER_NAME, type BridgeSurface, type ExposureReason } from "./snapshot.ts";

const REASONS: Record<ExposureReason, string> = {
	exposed: "exposed",
	inactive: "not active in Pi",
	hidden: "hidden by its extension",
	builtin: "Pi built-in (Cursor has its own; PI_CURSOR_EXPOSE_BUILTIN_TOOLS=1 exposes it)",
	replay: "shows Cursor's own tool calls",
};

export interface ToolsReportInput {
	settings: BridgeSettings;
	surface: BridgeSurface;
	/** `PI_CURSOR_SETTING_SOURCES` as the SDK gets it, or its error. */
	settingSources: string;
	/** Whether a bridge server is listening for the current run. */
	running: boolean;
}

export function renderToolsReport({ settings, surface, settingSources, running }: ToolsReportInput): string {
	const mcpNames = new Map(surface.tools.map((tool) => [tool.piName, tool.mcpName]));
	const lines = [
		`Pi tool bridge: ${settings.enabled ? "on" : "off (PI_CURSOR_PI_TOOL_BRIDGE=0)"}${running ? ", serving the current run" : ""}`,
		`Manifest in bootstrap prompts: ${settings.manifest ? "on" : "off"}`,
		`Bridged call deadline: ${Math.round(settings.callTimeoutMs / 1000)} s`,
		`Cursor setting sources: ${settingSources}`,
		`Tools (${surface.tools.length} bridged as MCP server "${BRIDGE_SERVER_NAME}"):`,
		...surface.decisions.map(({ piName, reason }) =>
			reason === "exposed" && settings.enabled
				? `  ${piName} → ${mcpNames.get(piName)}`
				: `  ${piName}: ${settings.enabled ? REASONS[reason] : "bridge off"}`,
		),
		...settings.problems.map((problem) => `Warning: ${problem}`),
	];
	return lines.join("\n");
}
