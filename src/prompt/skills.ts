// Pi's system prompt lists its Agent Skills with the path of each SKILL.md and tells the model to read that file.
// Cursor cannot count on reading Pi's skill folders (they live outside the workspace); when the bridge offers
// `cursor_activate_skill`, the catalog Cursor sees points at that tool instead. Pure.

/** Pi's catalog block: its intro lines (which vary by Pi version), then `<available_skills>…</available_skills>`. */
const CATALOG =
	/The following skills provide specialized instructions for specific tasks\.\n[^<]*<available_skills>\n([\s\S]*?)<\/available_skills>/;

/**
 * `instructions` with Pi's skill catalog pointing at the bridged tool `mcpName` (e.g. `pi__cursor_activate_skill`):
 * the names and descriptions stay, the file locations and the "read the file" advice go. Unchanged when the text
 * holds no catalog in Pi's format.
 */
export function pointSkillsAtTool(instructions: string, mcpName: string): string {
	return instructions.replace(CATALOG, (_block, skills: string) =>
		[
			"The following skills provide specialized instructions for specific tasks.",
			`When a task matches a skill's description, load the skill with the ${mcpName} tool (argument: the skill's name); it returns the skill's instructions and its resource files.`,
			"",
			"<available_skills>",
			`${skills.replace(/^[ \t]*<location>[^\n]*<\/location>\n/gm, "")}</available_skills>`,
		].join("\n"),
	);
}
