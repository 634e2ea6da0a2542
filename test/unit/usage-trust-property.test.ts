// Usage Pi can trust: whatever Cursor's `turn-ended` reports (nothing, cache above the input, a total beyond the
// model's context window, or a sound report), the message Pi gets describes a context Pi can act on, and
// `/cursor-usage` marks an estimate and keeps the raw report beside it.
import { afterAll, expect, test } from "bun:test";
import { type AssistantMessage, isContextOverflow, type Model } from "@earendil-works/pi-ai";
import { type CursorTurnUsage, mapTurnUsage, trustedTurnUsage } from "../../src/turn/usage.ts";
import { estimatePromptTokens } from "../../src/usage/estimate.ts";
import { parseRecord, sendRecordOf } from "../../src/usage/records.ts";
import { buildUsageView, renderUsageView } from "../../src/usage/view.ts";
import { fc, PropertyTarget } from "../support/property.ts";

const target = new PropertyTarget("usage-trust");
afterAll(() => target.report());

const model = {
	id: "composer-2.5",
	api: "cursor",
	provider: "cursor",
	contextWindow: 200_000,
	maxTokens: 64_000,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
} as unknown as Model<string>;
const answer = (text: string) => ({ content: [{ type: "text" as const, text }] });
const asMessage = (usage: AssistantMessage["usage"], stopReason: AssistantMessage["stopReason"] = "stop") =>
	({
		role: "assistant",
		content: [],
		usage,
		stopReason,
		api: "cursor",
		provider: "cursor",
		model: model.id,
		timestamp: 0,
	}) as AssistantMessage;

const tokens = fc.oneof(fc.nat(2_000), fc.nat(300_000), fc.integer({ min: 0, max: 2_000_000 }));
const report: fc.Arbitrary<CursorTurnUsage | undefined> = fc.option(
	fc.record({ inputTokens: tokens, outputTokens: tokens, cacheReadTokens: tokens, cacheWriteTokens: tokens }),
	{ nil: undefined },
);

test("the issue's reports: 1,132,478 tokens on a 200K model and cache above input are estimated; a sound one is mapped", () => {
	const prompt = 12_000;
	const huge = trustedTurnUsage(
		{ inputTokens: 1_132_000, outputTokens: 478, cacheReadTokens: 1_000_000, cacheWriteTokens: 0 },
		model,
		prompt,
		answer("ok"),
		true,
	);
	expect(huge).toMatchObject({
		estimated: "exceeds the context window",
		usage: { input: prompt, cacheRead: 0, output: 478 },
	});
	const cache = trustedTurnUsage(
		{ inputTokens: 100, outputTokens: 5, cacheReadTokens: 4096, cacheWriteTokens: 0 },
		model,
		prompt,
		answer("ok"),
		true,
	);
	expect(cache).toMatchObject({ estimated: "cache exceeds input", usage: { input: prompt, totalTokens: prompt + 5 } });
	const none = trustedTurnUsage(undefined, model, prompt, answer("x".repeat(400)), true);
	expect(none).toMatchObject({
		estimated: "not reported",
		usage: { input: prompt, output: 100, totalTokens: prompt + 100 },
	});
	// A failed turn without a report keeps zeros (Pi estimates an error's context itself).
	const failed = trustedTurnUsage(undefined, model, prompt, answer(""), false);
	expect(failed).toMatchObject({ usage: { input: 0, output: 0, totalTokens: 0 } });
	expect(failed.estimated).toBeUndefined();
	const sound = { inputTokens: 4232, outputTokens: 3, cacheReadTokens: 4096, cacheWriteTokens: 0 };
	expect(trustedTurnUsage(sound, model, prompt, answer("ok"), true)).toEqual({ usage: mapTurnUsage(sound, model) });
	expect(estimatePromptTokens([{ role: "user", content: "x".repeat(4000), timestamp: 0 }])).toBe(1000);
});

test("whatever is reported, Pi gets disjoint components that add up and a context it can act on", async () => {
	await target.check(
		fc.property(report, fc.nat(150_000), fc.string({ maxLength: 200 }), fc.boolean(), (raw, prompt, text, ended) => {
			const { usage, estimated } = trustedTurnUsage(raw, model, prompt, answer(text), ended);
			const parts = [usage.input, usage.output, usage.cacheRead, usage.cacheWrite];
			for (const part of parts) expect(Number.isSafeInteger(part) && part >= 0).toBe(true);
			expect(parts.reduce((a, b) => a + b, 0)).toBe(usage.totalTokens);
			if (estimated) expect(usage).toMatchObject({ input: prompt, cacheRead: 0, cacheWrite: 0 });
			else if (raw) expect(usage).toEqual(mapTurnUsage(raw, model));
			// A sound prompt never reads as a silent overflow: Pi compacts only for a context that is really too long.
			expect(isContextOverflow(asMessage(usage), model.contextWindow)).toBe(
				usage.input + usage.cacheRead > model.contextWindow,
			);
			if (raw && ended && !estimated)
				expect(raw.inputTokens + raw.outputTokens).toBeLessThanOrEqual(model.contextWindow);
			if (!raw || raw.inputTokens === 0) expect(estimated).toBe(ended ? "not reported" : undefined);
		}),
		3000,
	);
});

test("the journal keeps an estimate's reason beside the raw report, and /cursor-usage shows both", async () => {
	await target.check(
		fc.property(report, fc.nat(150_000), (raw, prompt) => {
			const { usage, estimated } = trustedTurnUsage(raw, model, prompt, answer("fine"), true);
			const record = sendRecordOf("s1", {
				agentId: "agent-1",
				runId: "run-1",
				model: { id: "composer-2.5" },
				kind: "bootstrap",
				startedAt: 1,
				outcome: "finished",
				rawUsage: raw,
				mappedUsage: usage,
				...(estimated ? { usageEstimate: estimated } : {}),
				endedAt: 2,
			});
			const read = parseRecord(JSON.parse(JSON.stringify(record)));
			expect(read).toEqual(record);
			const text = renderUsageView(
				buildUsageView({ sessionId: "s1", journal: "/j", records: read ? [read] : [], skippedLines: 0, inherited: [] }),
			);
			if (raw) expect(text).toContain(`raw input ${raw.inputTokens} (cache read ${raw.cacheReadTokens}`);
			if (estimated) expect(text).toContain(`${raw ? "→ " : ": "}estimated input ${prompt} ·`);
			else expect(text).not.toContain("estimated input");
		}),
		500,
	);
});
