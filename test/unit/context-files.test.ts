import { expect, test } from "bun:test";
import { type ContextFile, dropCursorLoadedContextFiles } from "../../src/prompt/context-files.ts";

const agentDir = "/home/u/.pi/agent";
const files = (): ContextFile[] => [
	{ path: `${agentDir}/AGENTS.md`, content: "user agents" },
	{ path: `${agentDir}/CLAUDE.md`, content: "user claude" },
	{ path: "/projects/repo/AGENTS.md", content: "repo agents" },
	{ path: "/projects/CLAUDE.md", content: "parent claude" },
	{ path: "/projects/repo/NOTES.md", content: "other" },
];
const kept = (sources: Parameters<typeof dropCursorLoadedContextFiles>[2]) => {
	const list = files();
	dropCursorLoadedContextFiles(list, agentDir, sources);
	return list.map((f) => f.content);
};

test.each([
	[["all"] as const, ["user claude", "other"]],
	[["project"] as const, ["user agents", "user claude", "other"]],
	[["user"] as const, ["user claude", "repo agents", "parent claude", "other"]],
	[["plugins"] as const, ["user agents", "user claude", "repo agents", "parent claude", "other"]],
	[[] as const, ["user agents", "user claude", "repo agents", "parent claude", "other"]],
])("setting sources %j keep %j", (sources, expected) => {
	expect(kept(sources)).toEqual(expected);
});
