import { expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import {
	applyLearnedWindows,
	contextlessBaseId,
	learnedWindowsPath,
	readLearnedWindows,
	recordLearnedWindow,
	WindowLearner,
} from "../../src/catalog/learned-windows.ts";
import { CatalogState } from "../../src/catalog/state.ts";
import type { CatalogItem } from "../../src/catalog/types.ts";
import { tempDirs } from "../support/temp-dirs.ts";

const tempDir = tempDirs("pi-cursor-windows-");

const ITEMS: CatalogItem[] = [
	{
		id: "composer-2",
		displayName: "Composer 2",
		aliases: ["composer-latest"],
		parameters: [{ id: "fast", values: [{ value: "false" }, { value: "true" }] }],
		variants: [
			{ params: [{ id: "fast", value: "true" }], displayName: "Fast", isDefault: true },
			{ params: [{ id: "fast", value: "false" }], displayName: "Slow" },
		],
	},
	{
		id: "gpt-5.5",
		displayName: "GPT-5.5",
		parameters: [{ id: "context", values: [{ value: "272k" }, { value: "1m" }] }],
		variants: [
			{ params: [{ id: "context", value: "272k" }], displayName: "272k", isDefault: true },
			{ params: [{ id: "context", value: "1m" }], displayName: "1m" },
		],
	},
];

test("only models without a context parameter learn, found by base id or alias", () => {
	expect(contextlessBaseId(ITEMS, "composer-2")).toBe("composer-2");
	expect(contextlessBaseId(ITEMS, "composer-latest")).toBe("composer-2");
	expect(contextlessBaseId(ITEMS, "gpt-5.5")).toBeUndefined();
	expect(contextlessBaseId(ITEMS, "unknown")).toBeUndefined();
});

test("a learned window replaces every bundled key of its model and nothing else", () => {
	const table = {
		default: 200_000,
		"composer-2": 200_000,
		"composer-2:slow": 180_000,
		"composer-latest": 190_000,
		"gpt-5.5@1m": 272_000,
	};
	const applied = applyLearnedWindows(table, ITEMS, { "composer-2": 150_000, "gpt-5.5": 999_000, nope: 5 });
	expect(applied).toEqual({ default: 200_000, "composer-2": 150_000, "gpt-5.5@1m": 272_000 });
	const rows = new CatalogState(table, { "composer-2": 150_000 });
	rows.replace(ITEMS, "live");
	const windows = Object.fromEntries(rows.models.map((m) => [m.id, m.contextWindow]));
	expect(windows["composer-2"]).toBe(150_000);
	expect(windows["composer-latest"]).toBe(150_000);
	expect(windows["composer-2:fast"]).toBe(150_000);
	expect(windows["gpt-5.5@272k"]).toBe(272_000);
	expect(new CatalogState(table).models.length).toBeGreaterThan(0);
});

test("the cache file: private, atomic, tolerant of garbage, ignores implausible values", async () => {
	const dir = tempDir();
	const path = learnedWindowsPath(dir);
	expect(readLearnedWindows(path)).toEqual({});
	expect(await recordLearnedWindow(path, "composer-2", 150_000, 1)).toBe(true);
	expect(await recordLearnedWindow(path, "composer-2", 150_000, 2)).toBe(false);
	expect(await recordLearnedWindow(path, "kimi-k3", 12, 3)).toBe(false);
	expect(statSync(path).mode & 0o777).toBe(0o600);
	expect(readLearnedWindows(path)).toEqual({ "composer-2": 150_000 });
	writeFileSync(path, JSON.stringify({ version: 1, windows: { a: { maxTokens: "big" }, b: { maxTokens: 64_000 } } }));
	expect(readLearnedWindows(path)).toEqual({ b: 64_000 });
	writeFileSync(path, "{ not json");
	expect(readLearnedWindows(path)).toEqual({});
});

test("the learner stores a finished send's checkpoint window; failed sends, summaries and context models do not", async () => {
	const dir = tempDir();
	const path = learnedWindowsPath(dir);
	const asked: string[] = [];
	const learner = new WindowLearner({
		path,
		items: () => ITEMS,
		readWindow: async (agentId) => {
			asked.push(agentId);
			return agentId === "agent-none" ? undefined : 131_072;
		},
		now: () => 7,
	});
	const send = { outcome: "finished", kind: "incremental", agentId: "agent-1", model: { id: "composer-latest" } };
	learner.sendEnded({ ...send, outcome: "error" });
	learner.sendEnded({ ...send, kind: "summary" });
	learner.sendEnded({ ...send, model: { id: "gpt-5.5" } });
	learner.sendEnded({ ...send, agentId: "agent-none" });
	learner.sendEnded(send);
	await learner.flush();
	expect(asked).toEqual(["agent-none", "agent-1"]);
	expect(JSON.parse(readFileSync(path, "utf8")).windows).toEqual({
		"composer-2": { maxTokens: 131_072, observedAt: 7 },
	});
});
