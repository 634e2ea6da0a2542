import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { activateSkill } from "../../src/bridge/activate-skill.ts";
import { ASK_QUESTION_BLOCKED_EVENT, NO_UI_ANSWER, registerAskQuestion } from "../../src/bridge/ask-question.ts";
import { renderToolsReport } from "../../src/bridge/report.ts";
import { readBridgeSettings } from "../../src/bridge/settings.ts";
import { buildBridgeSurface } from "../../src/bridge/snapshot.ts";
import { readEnv } from "../../src/settings/env.ts";

// biome-ignore lint/suspicious/noExplicitAny: a registered tool definition, called as Pi would.
type Tool = { name: string; executionMode?: string; execute: (...args: any[]) => Promise<any> };

function askTool() {
	const tools: Tool[] = [];
	const events: unknown[] = [];
	const pi = {
		registerTool: (t: Tool) => tools.push(t),
		events: { emit: (name: string, data: unknown) => events.push(name === ASK_QUESTION_BLOCKED_EVENT ? data : name) },
	};
	registerAskQuestion(pi as unknown as ExtensionAPI);
	return { tool: tools[0] as Tool, events };
}

test("cursor_ask_question without a UI says so, so Cursor states an assumption", async () => {
	const { tool, events } = askTool();
	expect(tool.executionMode).toBe("sequential");
	const result = await tool.execute("id", { question: "Proceed?" }, undefined, undefined, { hasUI: false });
	expect(result.content).toEqual([{ type: "text", text: NO_UI_ANSWER }]);
	expect(events).toEqual([]);
});

test("cursor_ask_question asks in Pi's UI and marks itself blocked while the dialog is open", async () => {
	const { tool, events } = askTool();
	const seen: unknown[] = [];
	const ui = {
		select: async (title: string, options: string[]) => {
			seen.push(["select", title, options, [...events]]);
			return "blue";
		},
		input: async () => "free text",
	};
	const ctx = { hasUI: true, ui };
	const picked = await tool.execute("id", { question: "Color?", options: ["red", "blue"] }, undefined, undefined, ctx);
	expect(picked.content[0].text).toBe("The user answered: blue");
	expect(seen).toEqual([["select", "Color?", ["red", "blue"], [{ active: true }]]]);
	expect(events).toEqual([{ active: true }, { active: false }]);
	const typed = await tool.execute("id", { question: "Name?" }, undefined, undefined, ctx);
	expect(typed.content[0].text).toBe("The user answered: free text");
});

test("/cursor-tools names each tool's MCP name or why it is not bridged", () => {
	const settings = readBridgeSettings(readEnv({}), 3_600_000);
	const surface = buildBridgeSurface(
		["web_search", "bash"],
		[{ name: "web_search" }, { name: "bash" }, { name: "sleepy" }, { name: "cursor" }],
		{ replayNames: ["cursor"] },
	);
	const report = renderToolsReport({ settings, surface, settingSources: "all", running: false });
	expect(report).toContain("Pi tool bridge: on");
	expect(report).toContain("web_search → pi__web_search");
	expect(report).toContain("bash: Pi built-in");
	expect(report).toContain("sleepy: not active in Pi");
	expect(report).toContain("cursor: shows Cursor's own tool calls");
	const off = renderToolsReport({
		settings: readBridgeSettings(readEnv({ PI_CURSOR_PI_TOOL_BRIDGE: "0" }), 3_600_000),
		surface,
		settingSources: "none",
		running: false,
	});
	expect(off).toContain("Pi tool bridge: off");
	expect(off).toContain("web_search: bridge off");
});

test("cursor_activate_skill returns the skill's SKILL.md and its resource files; unknown or hidden skills say so", () => {
	const dir = mkdtempSync(join(tmpdir(), "skill-test-"));
	try {
		mkdirSync(join(dir, "pdf", "scripts"), { recursive: true });
		writeFileSync(join(dir, "pdf", "SKILL.md"), "---\nname: pdf\n---\nUse scripts/extract.py.\n");
		writeFileSync(join(dir, "pdf", "scripts", "extract.py"), "print('x')\n");
		const skills = [
			{ name: "pdf", description: "PDFs", filePath: join(dir, "pdf", "SKILL.md"), baseDir: join(dir, "pdf") },
			{ name: "secret", description: "", filePath: join(dir, "x.md"), baseDir: dir, disableModelInvocation: true },
		];
		const found = activateSkill(skills, "pdf");
		expect(found.isError).toBe(false);
		expect(found.text).toContain("Use scripts/extract.py.");
		expect(found.text).toContain(join(dir, "pdf", "scripts", "extract.py"));
		expect(found.text).not.toContain(`- ${join(dir, "pdf", "SKILL.md")}`);
		expect(activateSkill(skills, "nope")).toEqual({ text: 'No Pi skill named "nope". Available: pdf.', isError: true });
		expect(activateSkill(skills, "secret").isError).toBe(true);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
