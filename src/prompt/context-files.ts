// Pi puts AGENTS.md/CLAUDE.md files into its system prompt; a local Cursor agent loads the same files itself
// through its setting sources. Sending both doubles the instructions, so Pi's copies of what Cursor loads are dropped.
import { basename, dirname, resolve } from "node:path";
import type { CursorEnv } from "../settings/env.ts";
import type { SettingSources } from "../settings/env-parse.ts";

export interface ContextFile {
	path: string;
	content: string;
}

/**
 * Which of Pi's context files Cursor loads on its own: `user` covers `<agentDir>/AGENTS.md` (not `CLAUDE.md`: Cursor's
 * user layer reads `~/.claude/CLAUDE.md`), `project` covers every other AGENTS.md/CLAUDE.md Pi discovered.
 */
export function loadedByCursor(file: ContextFile, agentDir: string, sources: SettingSources): boolean {
	const all = sources.includes("all" as never);
	const name = basename(file.path);
	if (resolve(dirname(file.path)) === resolve(agentDir)) {
		return name === "AGENTS.md" && (all || sources.includes("user" as never));
	}
	return (name === "AGENTS.md" || name === "CLAUDE.md") && (all || sources.includes("project" as never));
}

/** Removes, in place, the context files Cursor loads itself; returns how many were removed. */
export function dropCursorLoadedContextFiles(files: ContextFile[], agentDir: string, sources: SettingSources): number {
	let removed = 0;
	for (let i = files.length - 1; i >= 0; i--) {
		const file = files[i];
		if (file && loadedByCursor(file, agentDir, sources)) {
			files.splice(i, 1);
			removed++;
		}
	}
	return removed;
}

/**
 * Before a Cursor turn: drops the context files Cursor loads itself (per `PI_CURSOR_SETTING_SOURCES`), unless
 * `PI_CURSOR_PRESERVE_PI_AGENTS_MD` keeps Pi's copies, or the sources are invalid (the turn reports that).
 */
export function dropForCursorTurn(
	files: ContextFile[],
	agentDir: string,
	env: Pick<CursorEnv, "preservePiAgentsMd" | "settingSources">,
): void {
	if (env.preservePiAgentsMd) return;
	if (env.settingSources.ok) dropCursorLoadedContextFiles(files, agentDir, env.settingSources.sources);
}
