// Usage Pi can trust and context overflow, as a user meets them: the real `pi --mode rpc` on the built bundle and the
// real @cursor/sdk against the loopback fake backend. A `turn_ended` without usage, with cache above its input or
// with a total beyond the model's context window gives Pi an estimate from the prompt (Pi neither goes blind nor
// compacts for nothing) and `/cursor-usage` marks it beside the raw report. Cursor's "Input length exceeds the
// maximum context length" makes Pi compact and retry, and the session answers the next prompt. Both tests take turns
// on one Pi (a new Pi session each), whose home turns compaction on.
import { expect, test } from "bun:test";
import { TURN_TEST_MS, turnSuite } from "../support/pi-turn.ts";
import { isNotify, type RpcPi, type RpcRecord, SharedRpcPi, startRpcPi } from "../support/rpc.ts";

const MODEL = "cursor/composer-2";
const OK = "[[ok]]";
const USAGE = {
	"[[usage:none]]": true,
	"[[usage:huge]]": { inputTokens: 1_132_000, outputTokens: 478, cacheReadTokens: 1_000_000, cacheWriteTokens: 0 },
	"[[usage:cache]]": { inputTokens: 100, outputTokens: 5, cacheReadTokens: 4096, cacheWriteTokens: 0 },
} as const;
const scenarioMap: Record<string, object> = {
	[OK]: { steps: [{ text: "Noted." }, { turnEnded: { inputTokens: 300, outputTokens: 2 } }] },
};
for (const [marker, turnEnded] of Object.entries(USAGE)) {
	scenarioMap[marker] = { steps: [{ text: `Answer for ${marker}.` }, { turnEnded }] };
}
const OVERFLOW = {
	name: "overflow",
	steps: [{ error: { code: "invalid_argument", message: "Input length exceeds the maximum context length" } }],
};
const suite = turnSuite({ scenarioMap }, 2);
/** One Pi for both tests; compaction on and keeping as little as it can, so an overflow compacts what there is. */
const shared = new SharedRpcPi(() =>
	startRpcPi(["--model", MODEL], {
		home: suite.home({ retry: { enabled: false }, compaction: { enabled: true, keepRecentTokens: 1 } }),
		env: suite.env(),
		lifetimeMs: 2 * TURN_TEST_MS,
	}),
);
/** A prompt of about 2,000 tokens by Pi's own measure (4 characters a token). */
const LONG = "The quick brown fox jumps over the lazy dog. ".repeat(180);

async function turn(pi: RpcPi, text: string): Promise<RpcRecord[]> {
	const from = pi.mark();
	const { response } = await pi.prompt(text);
	if (!response.success) throw new Error(`prompt failed: ${JSON.stringify(response)}\n${pi.describe()}`);
	await pi.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 60_000 });
	return pi.records.slice(from);
}

type Message = { role?: string; stopReason?: string; usage?: Record<string, number>; content?: { text?: string }[] };
const assistantEnds = (records: RpcRecord[]) =>
	records
		.filter((r) => r.type === "message_end" && (r.message as Message | undefined)?.role === "assistant")
		.map((r) => r.message as Message);
const textOf = (message: Message | undefined) => (message?.content ?? []).map((c) => c.text ?? "").join("");

suite.test(
	"turn_ended without usage, with cache above input, or beyond the window: Pi gets an estimate; /cursor-usage marks it",
	async () => {
		await shared.use(async (pi) => {
			const figures: Record<string, Record<string, number>> = {};
			for (const marker of Object.keys(USAGE)) {
				const records = await turn(pi, `${marker} ${LONG}`);
				const answer = assistantEnds(records).at(-1);
				expect({ marker, stop: answer?.stopReason, text: textOf(answer) }).toEqual({
					marker,
					stop: "stop",
					text: `Answer for ${marker}.`,
				});
				figures[marker] = answer?.usage ?? {};
				// Never a silent overflow: Pi does not compact for a report it cannot trust.
				expect(records.filter((r) => r.type === "compaction_start")).toEqual([]);
			}
			for (const [marker, usage] of Object.entries(figures)) {
				// The whole prompt as Pi's context (at least the long text, well under the 200K window), never zero.
				expect({
					marker,
					input: (usage.input ?? 0) > 2_000 && (usage.input ?? 0) < 20_000,
					cacheRead: usage.cacheRead,
				}).toEqual({ marker, input: true, cacheRead: 0 });
				expect(usage.totalTokens).toBe((usage.input ?? 0) + (usage.output ?? 0));
			}
			expect(figures["[[usage:huge]]"]?.output).toBe(478);
			const from = pi.mark();
			await pi.prompt("/cursor-usage", { timeoutMs: 30_000 });
			const view = String(
				(await pi.waitFor(isNotify("Cursor usage for this session"), { from, timeoutMs: 15_000 })).message,
			);
			expect(view).toMatch(
				/: estimated input \d+ · cache read 0 · cache write 0 · output \d+ · total \d+ \(Cursor reported no usage\)/,
			);
			expect(view).toMatch(
				/raw input 1132000 \(cache read 1000000, cache write 0\) · output 478 → estimated input \d+ .* \(the raw report exceeds the model's context window\)/,
			);
			expect(view).toMatch(
				/raw input 100 \(cache read 4096, cache write 0\) · output 5 → estimated input \d+ .* \(the raw report's cache tokens exceed its input\)/,
			);
		});
	},
);

suite.test(
	"Cursor's context overflow: Pi compacts and retries, the answer arrives, and the next prompt is answered",
	async () => {
		await shared.use(async (pi) => {
			await turn(pi, `${OK} first, ${LONG}`);
			await turn(pi, `${OK} second, ${LONG}`);
			// The next un-marked run overflows once; the summary (it quotes the marked history) and the retry do not.
			await suite.backend.enqueue(OVERFLOW);
			const records = await turn(pi, "third: what now?");
			const ends = assistantEnds(records);
			expect(ends[0]).toMatchObject({
				stopReason: "error",
				errorMessage: expect.stringContaining("Cursor context overflow"),
			});
			expect(records.find((r) => r.type === "compaction_end")).toMatchObject({
				reason: "overflow",
				willRetry: true,
				aborted: false,
			});
			expect(ends.at(-1)?.stopReason).toBe("stop");
			expect(textOf(ends.at(-1)).length).toBeGreaterThan(0);
			const next = assistantEnds(await turn(pi, "fourth: and then?")).at(-1);
			expect(next?.stopReason).toBe("stop");
			expect(textOf(next).length).toBeGreaterThan(0);
			const runs = await suite.backend.runs();
			expect(runs.filter((r) => r.scenarioName === "overflow")).toHaveLength(1);
		});
	},
);

test(
	"the shared Pi exits cleanly",
	async () => {
		await shared.closeCleanly();
	},
	TURN_TEST_MS,
);

suite.nothingLeftBehind();
