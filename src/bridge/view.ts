// The Pi tool bridge as this session sees it: its settings, the Pi tools it would expose, what a turn bridges, the
// skills Cursor may activate, and the facts /cursor-tools and /cursor-doctor show.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { NEUTRAL_TOOL } from "../replay/mapping.ts";
import { type EnvRecord, readEnv } from "../settings/env.ts";
import { registerActivateSkill, type SkillInfo } from "./activate-skill.ts";
import { renderToolsReport } from "./report.ts";
import { type BridgeEnv, type BridgeSettings, readBridgeSettings } from "./settings.ts";
import { type BridgeSurface, buildBridgeSurface } from "./snapshot.ts";

export interface BridgePlan {
	readonly surface: BridgeSurface;
	readonly settings: BridgeSettings;
}

export class BridgeView {
	private skills: readonly SkillInfo[] = [];
	private skillToolRegistered = false;

	constructor(
		private readonly pi: Pick<ExtensionAPI, "getActiveTools" | "getAllTools" | "registerTool">,
		private readonly env: EnvRecord,
		/** The SDK's effective MCP tool timeout: a bridged call's deadline never exceeds it. */
		private readonly mcpToolMs: () => number,
	) {}

	/** The bridge's settings from `env` (default: the environment as it is now, for commands). */
	settings(env: BridgeEnv = readEnv(this.env)): BridgeSettings {
		return readBridgeSettings(env, this.mcpToolMs());
	}

	/** The active Pi tools as Cursor would see them through the bridge (every registered tool with its verdict). */
	surface(settings = this.settings()): BridgeSurface {
		return buildBridgeSurface(this.pi.getActiveTools(), this.pi.getAllTools(), {
			replayNames: [NEUTRAL_TOOL],
			exposeBuiltins: settings.exposeBuiltins,
		});
	}

	/** What a turn bridges to Cursor (from the turn's reading of the env), or undefined: bridge off, or no Pi tool. */
	plan(env: BridgeEnv): BridgePlan | undefined {
		const settings = this.settings(env);
		if (!settings.enabled) return undefined;
		const surface = this.surface(settings);
		return surface.tools.length > 0 ? { surface, settings } : undefined;
	}

	/** Pi's loaded skills, offered to Cursor through `cursor_activate_skill` (registered once skills exist). */
	offerSkills(skills: readonly SkillInfo[], env: BridgeEnv): void {
		this.skills = skills;
		if (this.skillToolRegistered || skills.length === 0 || !this.settings(env).enabled) return;
		this.skillToolRegistered = true;
		registerActivateSkill(this.pi, () => this.skills);
	}

	/** The `/cursor-tools` report. */
	report(running: boolean): string {
		const settings = this.settings();
		const sources = readEnv(this.env).settingSources;
		const settingSources = sources.ok ? sources.sources.join(",") || "none" : sources.error;
		return renderToolsReport({ settings, surface: this.surface(settings), settingSources, running });
	}

	/** The bridge line of /cursor-doctor. */
	doctorFact(running: boolean): { status: "ok" | "warn"; detail: string; fix?: string } {
		const settings = this.settings();
		if (!settings.enabled) return { status: "ok", detail: "off (PI_CURSOR_PI_TOOL_BRIDGE=0)" };
		if (settings.problems.length > 0) {
			return { status: "warn", detail: settings.problems.join(" "), fix: "Fix the named variable or unset it." };
		}
		const exposed = this.surface(settings).tools.length;
		const serving = running ? ", serving the current run" : "";
		return { status: "ok", detail: `${exposed} Pi tool(s) bridged as pi__<name>${serving}; /cursor-tools lists them` };
	}
}
