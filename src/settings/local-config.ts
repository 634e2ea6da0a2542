// Reads the user `cursor-sdk.json` and, for a trusted project, `.pi/cursor-sdk.json`, with every warning they give
// (file problems and skipped subagents). Re-read at each turn, so edits apply to the next one.
import type { AgentDefinition } from "../sdk/cursor-sdk.ts";
import { chooseStoreRoot, type StoreRootChoice } from "../session/store-root.ts";
import { CursorSdkConfigFile } from "./config-file.ts";
import type { CursorSdkUserConfig } from "./config-schema.ts";
import type { CursorEnv } from "./env.ts";
import { type ProjectTrustFacts, projectConfigPath, projectConfigTrusted } from "./project-config.ts";
import {
	buildSubagentDefinitions,
	definitionsDigest,
	effectiveSubagents,
	NO_SUBAGENTS,
	parseSubagents,
	type SubagentModelResolver,
	type SubagentSet,
	subagentsWarning,
} from "./subagents.ts";

export interface LocalConfigRead {
	readonly user: CursorSdkUserConfig;
	/** `undefined` when the project is not trusted (the file is then never opened) or has no config file. */
	readonly project: CursorSdkUserConfig | undefined;
	readonly userSubagents: SubagentSet;
	readonly projectSubagents: SubagentSet | undefined;
	readonly warnings: readonly string[];
}

export function readLocalConfig(
	userFile: CursorSdkConfigFile,
	projectFile: CursorSdkConfigFile | undefined,
): LocalConfigRead {
	const warnings: string[] = [];
	const user = userFile.readSync();
	if (user.warning) warnings.push(user.warning);
	const userSubagents = parseSubagents(user.config.subagents);
	const userSkipped = subagentsWarning(userSubagents, userFile.path);
	if (userSkipped) warnings.push(userSkipped);
	if (!projectFile)
		return { user: user.config, project: undefined, userSubagents, projectSubagents: undefined, warnings };
	const project = projectFile.readSync();
	if (project.warning) warnings.push(project.warning);
	const projectSubagents = parseSubagents(project.config.subagents);
	const projectSkipped = subagentsWarning(projectSubagents, projectFile.path);
	if (projectSkipped) warnings.push(projectSkipped);
	return {
		user: user.config,
		project: project.exists ? project.config : undefined,
		userSubagents,
		projectSubagents: project.exists ? projectSubagents : undefined,
		warnings,
	};
}

/** Reports each warning once while it persists (a re-read that gives the same warning stays quiet). */
export class WarningOnce {
	private last = new Set<string>();

	report(warnings: readonly string[], notify: (message: string) => void): void {
		for (const warning of warnings) if (!this.last.has(warning)) notify(warning);
		this.last = new Set(warnings);
	}
}

/**
 * The local agent's configuration for one extension instance: the user file, the project file when the project is
 * trusted for this run, their warnings (each once), and the custom subagent definitions of a turn.
 */
export class LocalAgentConfig {
	private projectFile: CursorSdkConfigFile | undefined;
	private readonly warnings = new WarningOnce();
	/** Folders whose `project_trust` event reached this extension. */
	private readonly trustEvents = new Set<string>();
	current: LocalConfigRead = {
		user: {},
		project: undefined,
		userSubagents: NO_SUBAGENTS,
		projectSubagents: undefined,
		warnings: [],
	};

	constructor(
		private readonly userFile: CursorSdkConfigFile,
		private readonly notify: (message: string) => void,
	) {}

	onTrustEvent(cwd: string): void {
		this.trustEvents.add(cwd);
	}

	/** On `session_start`: decides whether the project file may be read, then reads both files. */
	start(cwd: string, facts: Omit<ProjectTrustFacts, "trustEventSeen">): LocalConfigRead {
		const trusted = projectConfigTrusted({ ...facts, trustEventSeen: this.trustEvents.has(cwd) });
		this.projectFile = trusted ? new CursorSdkConfigFile(projectConfigPath(cwd)) : undefined;
		return this.reload();
	}

	get projectTrusted(): boolean {
		return this.projectFile !== undefined;
	}

	/** Re-reads both files (each turn and `/cursor-refresh-config`); new warnings are reported. */
	reload(): LocalConfigRead {
		this.current = readLocalConfig(this.userFile, this.projectFile);
		this.warnings.report(this.current.warnings, this.notify);
		return this.current;
	}

	/** Where the session stores go: `PI_CURSOR_SDK_STATE_ROOT` > the user file's `local.storeRoot` > SDK default. */
	storeRoot(env: Pick<CursorEnv, "stateRoot">): StoreRootChoice {
		return chooseStoreRoot(env, this.current.user.local?.storeRoot);
	}

	/** The definitions a turn sends (trusted project set over the user set) and their digest; `{}` for none. */
	subagents(resolveModel: SubagentModelResolver): { agents?: Record<string, AgentDefinition>; agentsDigest?: string } {
		const set = effectiveSubagents(this.current.projectSubagents, this.current.userSubagents);
		if (set.entries.length === 0) return {};
		const agents = buildSubagentDefinitions(set, resolveModel);
		const agentsDigest = definitionsDigest(agents);
		return agentsDigest ? { agents, agentsDigest } : {};
	}
}
