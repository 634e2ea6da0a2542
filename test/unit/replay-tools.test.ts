// Which replay tools get registered (and with which Pi settings), against a recording stand-in for Pi's ExtensionAPI:
// the opt-outs, names other extensions own, and the edit card's preview for replays.
import { describe, expect, test } from "bun:test";
import type { ExtensionAPI, ToolDefinition } from "@earendil-works/pi-coding-agent";
import { replayToolCallId } from "../../src/replay/ids.ts";
import { ReplayStore } from "../../src/replay/store.ts";
import { builtinSettings, canOwn, ReplayTools, withoutLivePreview } from "../../src/replay/tools.ts";

const BUILTIN = ["read", "bash", "edit", "write", "grep", "find", "ls"].map((name) => ({
	name,
	sourceInfo: { source: "builtin" },
}));

function fakePi(tools = BUILTIN, settings?: unknown) {
	const registered: ToolDefinition[] = [];
	const pi = {
		getAllTools: () => tools,
		registerTool: (tool: ToolDefinition) => {
			registered.push(tool);
		},
		...(settings === undefined ? {} : { getSettings: () => settings }),
	} as unknown as ExtensionAPI;
	return { pi, registered };
}

function register(env: Record<string, string> = {}, tools = BUILTIN) {
	const { pi, registered } = fakePi(tools);
	const replay = new ReplayTools(pi, { store: new ReplayStore(), env });
	replay.register("/w");
	return { names: registered.map((t) => t.name), owned: [...replay.ownedNames], registered };
}

describe("registration", () => {
	test("every built-in replay name plus the neutral cursor tool", () => {
		expect(register().names).toEqual(["read", "bash", "grep", "find", "ls", "edit", "write", "cursor"]);
	});

	test("PI_CURSOR_NATIVE_TOOL_DISPLAY=0 registers nothing", () => {
		expect(register({ PI_CURSOR_NATIVE_TOOL_DISPLAY: "0" }).names).toEqual([]);
	});

	test("PI_CURSOR_REGISTER_NATIVE_TOOLS=0 shadows no Pi name (only the neutral tool)", () => {
		expect(register({ PI_CURSOR_REGISTER_NATIVE_TOOLS: "off" }).names).toEqual(["cursor"]);
	});

	test("names owned by another extension, or absent (disabled built-ins), are left alone", () => {
		const tools = [
			{ name: "bash", sourceInfo: { source: "local" } },
			{ name: "read", sourceInfo: { source: "builtin" } },
			{ name: "cursor", sourceInfo: { source: "npm" } },
		];
		expect(register({}, tools).names).toEqual(["read"]);
	});

	test("a second session_start refreshes the names already ours", () => {
		const tools = [...BUILTIN];
		const { pi, registered } = fakePi(tools);
		const replay = new ReplayTools(pi, { store: new ReplayStore(), env: {} });
		replay.register("/w");
		// Pi now lists ours under our extension's source; they stay ours.
		tools.splice(0, tools.length, ...BUILTIN.map((t) => ({ ...t, sourceInfo: { source: "local" } })));
		replay.register("/w2");
		expect(registered.length).toBe(16);
	});

	test("canOwn", () => {
		expect(canOwn("bash", BUILTIN, false)).toBe(true);
		expect(canOwn("bash", [], false)).toBe(false);
		expect(canOwn("bash", [{ name: "bash", sourceInfo: { source: "local" } }], true)).toBe(true);
		expect(canOwn("cursor", [], false)).toBe(true);
		expect(canOwn("cursor", [{ name: "cursor", sourceInfo: { source: "builtin" } }], false)).toBe(false);
	});
});

describe("Pi settings for the built-ins", () => {
	test("shell path (with ~), command prefix and image resizing come from pi.getSettings()", () => {
		const { pi } = fakePi(BUILTIN, {
			shellPath: "~/bin/zsh",
			shellCommandPrefix: "set -e",
			images: { autoResize: false },
		});
		expect(builtinSettings(pi, { HOME: "/home/u" })).toEqual({
			shellPath: "/home/u/bin/zsh",
			shellCommandPrefix: "set -e",
			autoResizeImages: false,
		});
	});

	test("a Pi without getSettings (0.87.1) uses the built-in defaults", () => {
		expect(builtinSettings(fakePi().pi, {})).toEqual({});
	});

	test("the command prefix reaches the shadowed bash", async () => {
		const { pi, registered } = fakePi(BUILTIN, { shellCommandPrefix: "echo prefixed" });
		new ReplayTools(pi, { store: new ReplayStore(), env: {} }).register(process.cwd());
		const bash = registered.find((t) => t.name === "bash");
		if (!bash) throw new Error("bash was not registered");
		const result = await bash.execute("call_x", { command: "echo body" }, undefined, undefined, undefined as never);
		expect(result.content[0]).toEqual({ type: "text", text: "prefixed\nbody\n" });
	});
});

describe("edit card preview", () => {
	test("a replayed edit's card skips Pi's on-disk preview (the file already holds the edit); other edits keep it", () => {
		const replayed = { toolCallId: replayToolCallId("c1"), argsComplete: true, cwd: "/w" };
		expect(withoutLivePreview(replayed)).toEqual({ ...replayed, argsComplete: false });
		const live = { toolCallId: "call_1", argsComplete: true };
		expect(withoutLivePreview(live)).toBe(live);
		expect(typeof register().registered.find((t) => t.name === "edit")?.renderCall).toBe("function");
	});
});
