// The Pi tool bridge as this session sees it: its settings, the Pi tools it would expose, what a turn bridges and
// how (src/bridge/transport.ts), the skills Cursor may activate, and the facts /cursor-tools and /cursor-doctor show.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { NEUTRAL_TOOL } from "../replay/mapping.ts";
import { type EnvRecord, readEnv } from "../settings/env.ts";
import { registerActivateSkill, type SkillInfo } from "./activate-skill.ts";
import { renderToolsReport } from "./report.ts";
import { type BridgeEnv, type BridgeSettings, readBridgeSettings } from "./settings.ts";
import { type BridgeSurface, buildBridgeSurface } from "./snapshot.ts";
import {
	type BridgeTransport,
	bridgeTransport,
	isSafetyRun,
	type RunSafety,
	safetyNotice,
	safetyWords,
	transportServerName,
	UNDER_SAFETY_VARIABLE,
} from "./transport.ts";

export interface BridgePlan {
	readonly surface: BridgeSurface;
	readonly settings: BridgeSettings;
	readonly transport: BridgeTransport;
}

/** What the view reads of the session beyond Pi's tools. */
export interface BridgeSessionView {
	/** The local safety controls as they stand now (flags, env, trusted project, user file), for the commands. */
	readonly safety?: () => RunSafety;
	/** Tells the user (the safety notice, once per session). */
	readonly notify?: (message: string) => void;
}

export class BridgeView {
	private skills: readonly SkillInfo[] = [];
	private skillToolRegistered = false;
	private safetyNoticeShown = false;

	constructor(
		private readonly pi: Pick<ExtensionAPI, "getActiveTools" | "getAllTools" | "registerTool">,
		private readonly env: EnvRecord,
		/** The SDK's effective MCP tool timeout: a bridged call's deadline never exceeds it. */
		private readonly mcpToolMs: () => number,
		private readonly session: BridgeSessionView = {},
	) {}

	/** The bridge's settings from `env` (default: the environment as it is now, for commands). */
	settings(env: BridgeEnv = readEnv(this.env)): BridgeSettings {
		return readBridgeSettings(env, this.mcpToolMs());
	}

	/** The session's safety controls as they stand now (off when the view was given no way to read them). */
	private safetyNow(): RunSafety {
		return this.session.safety?.() ?? {};
	}

	/**
	 * The active Pi tools as Cursor would see them through the bridge on a run with `safety` (every registered tool
	 * with its verdict).
	 */
	surface(settings = this.settings(), safety: RunSafety = this.safetyNow()): BridgeSurface {
		return buildBridgeSurface(this.pi.getActiveTools(), this.pi.getAllTools(), {
			replayNames: [NEUTRAL_TOOL],
			exposeBuiltins: settings.exposeBuiltins,
			safety: isSafetyRun(safety),
			exposeBuiltinsUnderSafety: settings.exposeBuiltinsUnderSafety,
			serverName: transportServerName(bridgeTransport(safety)),
		});
	}

	/**
	 * What a turn bridges to Cursor and how (from the turn's reading of the env and its safety controls), or
	 * undefined: bridge off, or no Pi tool. `announce`: a turn about to run, which says once per session what a
	 * sandboxed or auto-review run means for Pi's tools.
	 */
	plan(env: BridgeEnv, safety: RunSafety, announce = false): BridgePlan | undefined {
		const settings = this.settings(env);
		if (!settings.enabled) return undefined;
		const surface = this.surface(settings, safety);
		if (announce && !this.safetyNoticeShown) {
			const notice = safetyNotice(safety, surface, settings.exposeBuiltins);
			if (notice) {
				this.safetyNoticeShown = true;
				this.session.notify?.(notice);
			}
		}
		return surface.tools.length > 0 ? { surface, settings, transport: bridgeTransport(safety) } : undefined;
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
		const safety = this.safetyNow();
		return renderToolsReport({ settings, surface: this.surface(settings, safety), settingSources, running, safety });
	}

	/** The bridge line of /cursor-doctor. */
	doctorFact(running: boolean): { status: "ok" | "warn"; detail: string; fix?: string } {
		const settings = this.settings();
		if (!settings.enabled) return { status: "ok", detail: "off (PI_CURSOR_PI_TOOL_BRIDGE=0)" };
		if (settings.problems.length > 0) {
			return { status: "warn", detail: settings.problems.join(" "), fix: "Fix the named variable or unset it." };
		}
		const safety = this.safetyNow();
		const surface = this.surface(settings, safety);
		const serving = running ? ", serving the current run" : "";
		const withheld = surface.decisions.some((d) => d.reason === "safety");
		const how = isSafetyRun(safety)
			? ` in process ("${surface.serverName}"), since ${safetyWords(safety)} refuses MCP tool calls: they run in Pi, not inside Cursor's sandbox${withheld ? `; Pi's built-ins are not offered (${UNDER_SAFETY_VARIABLE}=1 offers them)` : ""}`
			: " as pi__<name>";
		return {
			status: "ok",
			detail: `${surface.tools.length} Pi tool(s) bridged${how}${serving}; /cursor-tools lists them`,
		};
	}
}
