// Acceptance of a Cursor turn as a user sees it: the real `pi` CLI (Node 24), the built bundle, the real
// @cursor/sdk and the loopback fake Cursor backend. Print mode prints the streamed answer; the JSON events of a turn
// (from one RPC Pi the usage cases take turns on) show thinking then text and honest usage; every CLI form of the
// spec's "CLI / Print Mode" reaches Cursor as the right ModelSelection and mode (one `pi -p` each: the flags are the
// subject); the basic answer also works in compiled Pi and Pi 0.87.1.
import { describe, expect, test } from "bun:test";
import type { RunRequestSummary, Scenario } from "../support/fake-backend/client.ts";
import { type PiHost, piHosts } from "../support/pi.ts";
import { leakedSecrets, type PiRecord, TURN_TEST_MS, turnSuite, withOutput } from "../support/pi-turn.ts";
import { SharedRpcPi, startRpcPi } from "../support/rpc.ts";

const ANSWER = {
	name: "answer",
	steps: [
		{ stepStarted: 1 },
		{ thinking: "The user wants a number." },
		{ thinkingCompleted: 7 },
		{ text: "The answer " },
		{ text: "is 42." },
		{ stepCompleted: { stepId: 1, durationMs: 5 } },
		{ turnEnded: { inputTokens: 120, outputTokens: 9, cacheReadTokens: 100, cacheWriteTokens: 0 } },
	],
};

/** Thinking then text, with the usage a test case drives. */
function thinkingThenText(usage: {
	inputTokens: number;
	outputTokens: number;
	cacheReadTokens: number;
	cacheWriteTokens: number;
}) {
	return {
		name: "thinking-then-text",
		steps: [
			{ stepStarted: 1 },
			{ thinking: "Let me " },
			{ thinking: "think." },
			{ thinkingCompleted: 12 },
			{ text: "Hello " },
			{ text: "world" },
			{ stepCompleted: { stepId: 1, durationMs: 3 } },
			{ turnEnded: usage },
		],
	};
}

const USAGE_CASES = [
	// Mostly cached prompt (the example): input = 4232 − 4096 − 0 = 136, total = 4232 + 3.
	{
		marker: "[[turn:usage-a]]",
		raw: [4232, 3, 4096, 0],
		expected: { input: 136, output: 3, cacheRead: 4096, cacheWrite: 0, totalTokens: 4235 },
	},
	// Cache writes are part of the prompt too: input = 5000 − 1200 − 800 = 3000, total = 5000 + 250.
	{
		marker: "[[turn:usage-b]]",
		raw: [5000, 250, 1200, 800],
		expected: { input: 3000, output: 250, cacheRead: 1200, cacheWrite: 800, totalTokens: 5250 },
	},
] as const;

const scenarioMap: Record<string, Scenario> = { "[[turn:answer]]": ANSWER };
for (const c of USAGE_CASES) {
	const [inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens] = c.raw;
	scenarioMap[c.marker] = thinkingThenText({ inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens });
}
const suite = turnSuite({ scenarioMap });

/** The run request whose prompt carries `marker` (each test uses its own marker). */
async function runRequestFor(marker: string): Promise<RunRequestSummary[]> {
	return (await suite.backend.runRequests()).filter((r) => r.text.includes(marker));
}

suite.test("`pi -p` prints the streamed answer on stdout and exits 0", async () => {
	const result = await suite.run(["--model", "cursor/composer-2.5", "-p", "[[turn:answer]] What is the answer?"]);
	const requests = await runRequestFor("[[turn:answer]] What is the answer?");
	withOutput(result, () => {
		expect(result.code).toBe(0);
		expect(result.stdout).toBe("The answer is 42.\n");
		// Thinking is not part of the printed answer.
		expect(result.stdout).not.toContain("The user wants a number.");
		expect(result.stderr).not.toMatch(/Cursor (error|rejected|connection failed)|No Cursor API key/);
		expect(leakedSecrets(result.stdout + result.stderr)).toEqual([]);
		expect(requests).toHaveLength(1);
		expect(requests[0]?.modelId).toBe("composer-2.5");
	});
});

/** The JSON-mode events of a turn, from one RPC Pi that both usage cases take turns on (a new Pi session each). */
const jsonPi = new SharedRpcPi(() =>
	startRpcPi(["--model", "cursor/composer-2.5"], { home: suite.home(), env: suite.env(), lifetimeMs: 10 * 60_000 }),
);

describe("--mode json", () => {
	for (const c of USAGE_CASES) {
		suite.test(
			`thinking events, then text events; usage ${c.raw.join("/")} → input ${c.expected.input}, total ${c.expected.totalTokens}`,
			() =>
				jsonPi.use(async (pi) => {
					const from = pi.mark();
					await pi.turn(`${c.marker} hi`);
					const settled = await pi.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 30_000 });
					const records = pi.records.slice(from, pi.records.indexOf(settled) + 1) as PiRecord[];
					withOutput({ stdout: records.map((r) => JSON.stringify(r)).join("\n"), stderr: pi.stderr }, () => {
						const assistantEvents = records
							.filter((r) => r.type === "message_update")
							.map((r) => r.assistantMessageEvent as PiRecord);
						expect(assistantEvents.map((e) => e.type)).toEqual([
							"thinking_start",
							"thinking_delta",
							"thinking_delta",
							"thinking_end",
							"text_start",
							"text_delta",
							"text_delta",
							"text_end",
						]);
						expect(assistantEvents.filter((e) => e.type === "thinking_delta").map((e) => e.delta)).toEqual([
							"Let me ",
							"think.",
						]);
						expect(assistantEvents.filter((e) => e.type === "text_delta").map((e) => e.delta)).toEqual([
							"Hello ",
							"world",
						]);
						const ends = records.filter((r) => r.type === "message_end" && r.message?.role === "assistant");
						expect(ends).toHaveLength(1);
						const message = ends[0]?.message as PiRecord;
						expect(message.stopReason).toBe("stop");
						expect(message.content).toEqual([
							{ type: "thinking", thinking: "Let me think." },
							{ type: "text", text: "Hello world" },
						]);
						expect(message.usage).toMatchObject(c.expected);
						// The components are disjoint: they add up to the total.
						const u = message.usage as Record<string, number>;
						expect((u.input ?? 0) + (u.output ?? 0) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0)).toBe(
							u.totalTokens ?? -1,
						);
						// The run's last event: it settled, not aborted, after everything else it emitted.
						const events = records.filter((r) => r.type !== "extension_ui_request" && r.type !== "response");
						expect(events.at(-1)).toMatchObject({ type: "agent_settled", aborted: false });
						expect(events.findIndex((r) => r.type === "agent_end")).toBe(events.length - 2);
					});
				}),
		);
	}
});

// Expected ModelSelections are read off the captured catalog (data/cursor-model-catalog.json) and the
// spec by hand, not computed with the extension's selection code:
// - gpt-5.5: params context 272k|1m, reasoning none|low|medium|high|extra-high, fast; default variant
//   context=1m reasoning=medium fast=false. Pi xhigh → "extra-high" (no "xhigh" value). The 1m variants all have
//   fast=false (no 1m fast variant exists), 272k has both.
// - claude-opus-4-7: variants carry cyber=false, thinking, context, effort, fast (in that order); default
//   thinking=true context=1m effort=xhigh fast=false. Pi off → thinking=false and no effort param.
// - composer-2.5: fast only; default fast=true.
const SELECTION_CASES: {
	args: string[];
	modelId: string;
	params: [string, string][];
	mode?: "agent" | "plan";
}[] = [
	// The spec's "CLI / Print Mode" guaranteed forms.
	{
		args: ["--model", "cursor/gpt-5.5@1m", "--thinking", "medium"],
		modelId: "gpt-5.5",
		params: [
			["context", "1m"],
			["reasoning", "medium"],
			["fast", "false"],
		],
	},
	{
		args: ["--model", "cursor/gpt-5.5@1m", "--cursor-mode", "plan"],
		modelId: "gpt-5.5",
		params: [
			["context", "1m"],
			["reasoning", "medium"],
			["fast", "false"],
		],
		mode: "plan",
	},
	{
		args: ["--model", "cursor/gpt-5.5@1m:medium"],
		modelId: "gpt-5.5",
		params: [
			["context", "1m"],
			["reasoning", "medium"],
			["fast", "false"],
		],
	},
	{
		args: ["--model", "cursor/gpt-5.5@272k:xhigh"],
		modelId: "gpt-5.5",
		params: [
			["context", "272k"],
			["reasoning", "extra-high"],
			["fast", "false"],
		],
	},
	// "Validation evidence criteria" §3 (print mode).
	{
		args: ["--model", "cursor/gpt-5.5@272k", "--thinking", "xhigh"],
		modelId: "gpt-5.5",
		params: [
			["context", "272k"],
			["reasoning", "extra-high"],
			["fast", "false"],
		],
	},
	{
		args: ["--model", "cursor/claude-opus-4-7@1m", "--thinking", "max"],
		modelId: "claude-opus-4-7",
		params: [
			["cyber", "false"],
			["thinking", "true"],
			["context", "1m"],
			["effort", "max"],
			["fast", "false"],
		],
	},
	{
		// The catalog has no fast variant at 1m: the selected context wins and fast stays false.
		args: ["--model", "cursor/gpt-5.5@1m", "--cursor-fast"],
		modelId: "gpt-5.5",
		params: [
			["context", "1m"],
			["reasoning", "medium"],
			["fast", "false"],
		],
	},
	// Around them: the fast flag where a fast variant exists, `--thinking` over a `:` suffix, and thinking off.
	{
		args: ["--model", "cursor/gpt-5.5@272k", "--cursor-fast"],
		modelId: "gpt-5.5",
		params: [
			["context", "272k"],
			["reasoning", "medium"],
			["fast", "true"],
		],
	},
	{
		args: ["--model", "cursor/gpt-5.5@1m:high", "--thinking", "low"],
		modelId: "gpt-5.5",
		params: [
			["context", "1m"],
			["reasoning", "low"],
			["fast", "false"],
		],
	},
	{
		args: ["--model", "cursor/claude-opus-4-7@300k", "--thinking", "off"],
		modelId: "claude-opus-4-7",
		params: [
			["cyber", "false"],
			["thinking", "false"],
			["context", "300k"],
			["fast", "false"],
		],
	},
];

describe("the run request carries the selected model id, params and mode", () => {
	SELECTION_CASES.forEach((c, index) => {
		suite.test(c.args.join(" "), async () => {
			const marker = `[[turn:selection-${index}]]`;
			const result = await suite.run([...c.args, "-p", `${marker} Say ok only`]);
			const requests = await runRequestFor(marker);
			withOutput(result, () => {
				expect(result.code).toBe(0);
				expect(result.stdout).toBe("Hello from fake backend\n");
				expect(requests).toHaveLength(1);
				const request = requests[0] as RunRequestSummary;
				expect({
					modelId: request.modelId,
					params: request.params.map((p) => [p.id, p.value]),
					mode: request.mode,
				}).toEqual({
					modelId: c.modelId,
					params: c.params,
					mode: c.mode ?? "agent",
				});
			});
		});
	});
});

/** The basic answer under another Pi host. */
async function hostAnswer(host: PiHost): Promise<void> {
	const marker = `[[turn:answer]] host ${host.name}`;
	const result = await suite.run(["--model", "cursor/composer-2.5", "-p", marker], { host });
	const requests = await runRequestFor(marker);
	withOutput(result, () => {
		expect(result.code).toBe(0);
		expect(result.stdout).toBe("The answer is 42.\n");
		expect(leakedSecrets(result.stdout + result.stderr)).toEqual([]);
		expect(requests.map((r) => [r.modelId, r.params])).toEqual([["composer-2.5", [{ id: "fast", value: "true" }]]]);
	});
}

describe("other Pi hosts", () => {
	const hosts = piHosts();
	const npm087 = hosts.find((h) => h.name.startsWith("npm pi 0.87.1"));
	const compiled = hosts.find((h) => h.name.startsWith("compiled"));
	if (!npm087 || !compiled) throw new Error(`unexpected hosts: ${hosts.map((h) => h.name).join(", ")}`);

	suite.test(`${npm087.name}: \`pi -p\` prints the streamed answer`, () => hostAnswer(npm087));

	// stdout must hold only the answer: under Bun, console.log bypasses Pi's stdout takeover in print mode.
	suite.test(`${compiled.name}: \`pi -p\` prints the streamed answer`, () => hostAnswer(compiled));
});

// After both usage turns, the JSON events' Pi exits as cleanly as `pi --mode json` did (code 0, nothing but JSON).
test(
	"the usage cases' RPC Pi exits cleanly",
	async () => {
		await jsonPi.closeCleanly();
	},
	TURN_TEST_MS,
);

suite.nothingLeftBehind();
