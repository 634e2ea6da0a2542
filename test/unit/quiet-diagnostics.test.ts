import { expect, test } from "bun:test";
import { isSdkInfoFrame, quietSdkDiagnostics } from "../../src/process/quiet-diagnostics.ts";

const FRAMES = [
	"19:09:48.844 INFO  managed_skills.startup_inventory ctx=syncBuiltinSkills meta={skills_on_disk: [], manifest_present: false}",
	"19:09:48.910 INFO  CursorPluginsAgentSkillsService load completed meta={durationMs: 4, ruleCount: 0, skillCount: 0}",
	"\x1b[2m19:09:49.222\x1b[0m \x1b[34mINFO \x1b[0m LocalCursorRulesService load completed meta={durationMs: 374, ruleCount: 0}",
];

test.each(FRAMES)("recognises the SDK's inventory frame %#", (frame) => {
	expect(isSdkInfoFrame(frame)).toBe(true);
});

test.each([
	"19:09:48.844 WARN  LocalCursorRulesService load completed",
	"19:09:48.844 INFO  something else happened",
	"LocalCursorRulesService load completed",
	"19:09:48.844 INFO  LocalCursorRulesService load completed\nsecond line",
])("lets other output through: %j", (text) => {
	expect(isSdkInfoFrame(text)).toBe(false);
});

test("once installed, drops only the SDK's frames, and installing twice wraps once", () => {
	const lines: unknown[][] = [];
	const target = { log: (...args: unknown[]) => lines.push(args) } as unknown as Console;
	quietSdkDiagnostics(target);
	const wrapped = target.log;
	quietSdkDiagnostics(target);
	expect(target.log).toBe(wrapped);
	target.log(FRAMES[0]);
	target.log("user output", 42);
	target.log(FRAMES[1], "and more");
	expect(lines).toEqual([
		["user output", 42],
		[FRAMES[1], "and more"],
	]);
});
