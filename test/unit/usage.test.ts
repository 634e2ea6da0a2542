import { expect, test } from "bun:test";
import type { Model } from "@earendil-works/pi-ai";
import { mapTurnUsage } from "../../src/turn/usage.ts";

const model = (cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }): Model<string> => ({
	id: "m",
	name: "m",
	api: "cursor-sdk",
	provider: "cursor",
	baseUrl: "https://api.cursor.com",
	reasoning: false,
	input: ["text"],
	cost,
	contextWindow: 200_000,
	maxTokens: 32_000,
});

test("splits the full-prompt input into disjoint components (recorded cache case)", () => {
	const usage = mapTurnUsage(
		{ inputTokens: 4232, outputTokens: 3, cacheReadTokens: 4096, cacheWriteTokens: 0 },
		model(),
	);
	expect(usage).toMatchObject({ input: 136, cacheRead: 4096, cacheWrite: 0, output: 3, totalTokens: 4235 });
	expect(usage.input + usage.cacheRead + usage.cacheWrite + usage.output).toBe(usage.totalTokens);
});

test("totalTokens is input + output, not the SDK's cache-inclusive total", () => {
	const usage = mapTurnUsage({ inputTokens: 100, outputTokens: 7, cacheReadTokens: 3, cacheWriteTokens: 2 }, model());
	expect(usage).toMatchObject({ input: 95, cacheRead: 3, cacheWrite: 2, output: 7, totalTokens: 107 });
});

test("costs are zero by default and follow models.json rates when configured", () => {
	const raw = { inputTokens: 1_000_000, outputTokens: 1_000_000, cacheReadTokens: 0, cacheWriteTokens: 0 };
	expect(mapTurnUsage(raw, model()).cost.total).toBe(0);
	const priced = mapTurnUsage(raw, model({ input: 2, output: 10, cacheRead: 0.5, cacheWrite: 2 }));
	expect(priced.cost.input).toBeCloseTo(2);
	expect(priced.cost.output).toBeCloseTo(10);
	expect(priced.cost.total).toBeCloseTo(12);
});

test("malformed numbers become zero and cache never exceeds input", () => {
	const usage = mapTurnUsage(
		{ inputTokens: 10, outputTokens: Number.NaN, cacheReadTokens: 50, cacheWriteTokens: -1, reasoningTokens: 4 },
		model(),
	);
	expect(usage).toMatchObject({ input: 0, cacheRead: 10, cacheWrite: 0, output: 0, totalTokens: 10, reasoning: 4 });
});
