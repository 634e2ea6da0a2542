// `cursor_activate_skill`: when Pi has Agent Skills loaded, Cursor loads one through Pi (`pi__cursor_activate_skill`):
// the skill's full SKILL.md and the list of its resource files, from the skills Pi itself loaded (the source of truth).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

export const ACTIVATE_SKILL_TOOL = "cursor_activate_skill";

/** What the tool needs of Pi's loaded skills (`systemPromptOptions.skills`). */
export interface SkillInfo {
	name: string;
	description: string;
	filePath: string;
	baseDir: string;
	disableModelInvocation?: boolean;
}

const MAX_SKILL_CHARS = 100_000;
const MAX_RESOURCES = 200;

/** The files beside a skill's SKILL.md (relative paths, bounded), which the skill may tell Cursor to read. */
function resourcesOf(skill: SkillInfo): string[] {
	try {
		return readdirSync(skill.baseDir, { recursive: true, withFileTypes: true })
			.filter((entry) => entry.isFile())
			.map((entry) => relative(skill.baseDir, join(entry.parentPath, entry.name)))
			.filter((path) => path !== relative(skill.baseDir, skill.filePath))
			.sort()
			.slice(0, MAX_RESOURCES);
	} catch {
		return [];
	}
}

/** The tool's answer for `name` among `skills`. */
export function activateSkill(skills: readonly SkillInfo[], name: string): { text: string; isError: boolean } {
	const skill = skills.find((s) => s.name === name && !s.disableModelInvocation);
	if (!skill) {
		const known = skills.filter((s) => !s.disableModelInvocation).map((s) => s.name);
		return { text: `No Pi skill named "${name}". Available: ${known.join(", ") || "none"}.`, isError: true };
	}
	let body: string;
	try {
		body = readFileSync(skill.filePath, "utf8");
	} catch (error) {
		return { text: `Skill "${name}" could not be read: ${(error as Error).message}`, isError: true };
	}
	if (body.length > MAX_SKILL_CHARS) body = `${body.slice(0, MAX_SKILL_CHARS)}\n[truncated]`;
	const resources = resourcesOf(skill);
	const list = resources.length > 0 ? resources.map((path) => `- ${join(skill.baseDir, path)}`).join("\n") : "(none)";
	return {
		text: `Skill "${skill.name}" (${skill.filePath}):\n\n${body}\n\nResource files (read them with your own tools when the skill says so):\n${list}`,
		isError: false,
	};
}

/** Registers the tool once; `skills()` returns the skills Pi loaded for the current turn. */
export function registerActivateSkill(
	pi: Pick<ExtensionAPI, "registerTool">,
	skills: () => readonly SkillInfo[],
): void {
	pi.registerTool({
		name: ACTIVATE_SKILL_TOOL,
		label: "Activate skill",
		description:
			"Load one of the user's Pi Agent Skills: returns its full SKILL.md instructions and its resource files. Use it when a task matches a skill's description.",
		parameters: Type.Object({ name: Type.String({ description: "The skill's name" }) }),
		async execute(_id, params) {
			const result = activateSkill(skills(), params.name);
			if (result.isError) throw new Error(result.text);
			return { content: [{ type: "text", text: result.text }], details: {} };
		},
	});
}
