// Steering under load: while a long Cursor run streams (the real `pi` in RPC mode, the real SDK, the fake backend),
// several steering and follow-up messages arrive. Each reaches Cursor once and in order, nothing fails as busy, and
// every answer Cursor gave is in Pi's conversation. The fake answers every message after the long run by echoing the
// prompt it received, so each answer names what Cursor got.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Scenario } from "../support/fake-backend/client.ts";
import { TURN_TEST_MS, turnSuite } from "../support/pi-turn.ts";
import { type RpcRecord, startRpcPi } from "../support/rpc.ts";

const TIMEOUT_MS = TURN_TEST_MS;

/** 24 chunks over about 5 s: the run the messages arrive during. */
const chunks = Array.from({ length: 24 }, (_, i) => `chunk-${i} `);
const longRun = (midway: Scenario["steps"] = []): Scenario => ({
	steps: [
		...chunks.slice(0, 12).flatMap((text) => [{ text }, { delay: 200 }]),
		...midway,
		...chunks.slice(12).flatMap((text) => [{ text }, { delay: 200 }]),
		{ turnEnded: { inputTokens: 100, outputTokens: 24 } },
	],
});

const suite = turnSuite({
	defaultScenario: { steps: [{ echo: "reply to: " }, { turnEnded: { inputTokens: 10, outputTokens: 5 } }] },
});

/** Two steers and two follow-ups, each tagged for its test (markers are how the fake's log is read). */
const messagesOf = (name: string) =>
	[
		{ type: "steer", marker: `[[${name}:steer-1]]`, text: "also check the tests" },
		{ type: "steer", marker: `[[${name}:steer-2]]`, text: "and the docs" },
		{ type: "follow_up", marker: `[[${name}:follow-1]]`, text: "then summarise" },
		{ type: "follow_up", marker: `[[${name}:follow-2]]`, text: "and list open questions" },
	] as const;

const textOf = (message: { content?: { type: string; text?: string }[] }) =>
	(message.content ?? []).map((c) => (c.type === "text" ? (c.text ?? "") : "")).join("");

async function underLoad(name: string, scenario: Scenario) {
	const home = suite.home();
	writeFileSync(join(home.dir, "notes.md"), "hello notes\n");
	await suite.backend.enqueue(scenario);
	const pi = startRpcPi(["--model", "cursor/composer-2.5", "--no-session"], { home, env: suite.env() });
	try {
		await pi.ready();
		const from = pi.mark();
		const prompt = `[[${name}]] write the long answer`;
		const { response } = await pi.send({ type: "prompt", message: prompt });
		expect(response.success).toBe(true);
		// The messages arrive one by one while the long answer streams.
		await pi.waitFor((r) => r.type === "message_update", { from, timeoutMs: 60_000 });
		for (const { type, marker, text } of messagesOf(name)) {
			await new Promise((resolve) => setTimeout(resolve, 400));
			const { response: queued } = await pi.send({ type, message: `${marker} ${text}` });
			expect({ marker, success: queued.success }).toEqual({ marker, success: true });
		}
		await pi.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 90_000 });
		const records = pi.records.slice(from);
		const markers = messagesOf(name).map((m) => m.marker);
		const ours = (await suite.backend.runs()).filter(
			(run) => run.userText?.includes(`[[${name}]]`) || markers.some((m) => run.userText?.includes(m)),
		);
		await pi.close();
		return { records, runs: ours, markers };
	} finally {
		await pi.kill();
	}
}

function expectEachOnceInOrder(runs: { userText?: string }[], records: RpcRecord[], markers: readonly string[]) {
	// Each message is new input of exactly one Cursor send, and the sends came in the order they were typed.
	const latest = runs.map(
		(run) => /<latest_user_request>\n([\s\S]*?)\n<\/latest_user_request>/.exec(run.userText ?? "")?.[1] ?? "",
	);
	for (const marker of markers) {
		expect({ marker, sends: latest.filter((text) => text.includes(marker)).length }).toEqual({ marker, sends: 1 });
	}
	const order = markers.map((marker) => latest.findIndex((text) => text.includes(marker)));
	expect(order).toEqual([...order].sort((a, b) => a - b));
	// No busy error, no failed message.
	const assistants = records
		.filter((r) => r.type === "message_end" && (r.message as { role?: string }).role === "assistant")
		.map(
			(r) => r.message as { stopReason: string; errorMessage?: string; content?: { type: string; text?: string }[] },
		);
	expect(assistants.filter((m) => m.stopReason === "error" || m.stopReason === "aborted")).toEqual([]);
	expect(JSON.stringify(records)).not.toMatch(/already has active run|busy/i);
	// Every echo answer (one per message) arrived whole.
	const shown = assistants.map(textOf).join("\n");
	for (const run of runs.slice(1)) {
		const text = /<latest_user_request>\n([\s\S]*?)\n<\/latest_user_request>/.exec(run.userText ?? "")?.[1] ?? "";
		expect(shown).toContain(text);
	}
	return assistants;
}

test(
	"a long text answer: two steers and two follow-ups sent while it streams each reach Cursor once, in order; no text lost",
	async () => {
		const { records, runs, markers } = await underLoad("long-text", longRun());
		const assistants = expectEachOnceInOrder(runs, records, markers);
		expect(textOf(assistants[0] ?? {})).toBe(chunks.join(""));
		expect(runs).toHaveLength(1 + markers.length);
	},
	TIMEOUT_MS,
);

test(
	"a long answer with a tool batch midway: steering reaches the running run, which Cursor finishes; every message still reaches Cursor once, in order",
	async () => {
		const { records, runs, markers } = await underLoad(
			"long-tools",
			longRun([
				{ tool: { callId: "c-read", read: { path: "notes.md" } } },
				// Cursor cannot take the steer into this turn: it comes back as a follow-up once the run ends.
				{ steer: { state: "queued_for_next_turn", timeoutMs: 10_000 } },
				{ delay: 200 },
			]),
		);
		const assistants = expectEachOnceInOrder(runs, records, markers);
		// What Cursor streamed before the batch is kept; the read card ran once.
		expect(textOf(assistants[0] ?? {})).toContain(chunks.slice(0, 3).join(""));
		const reads = records.filter((r) => r.type === "tool_execution_end" && r.toolName === "read");
		expect(reads).toHaveLength(1);
		// The first steer went to the running run (not cancelled: its whole answer is kept), then, reverted by Cursor, as
		// a follow-up on the same agent: only the new message, no history sent again.
		expect(runs[0]?.clientClosed).toBe(false);
		expect(runs[0]?.steers?.map((s) => s.text)).toEqual([`${markers[0]} also check the tests`]);
		expect(textOf(assistants[0] ?? {}) + textOf(assistants[1] ?? {})).toContain(chunks.join(""));
		expect(runs[1]?.conversationId).toBe(runs[0]?.conversationId);
		expect(runs[1]?.userText).not.toContain("<conversation_history>");
		expect(runs[1]?.userText).not.toContain("[[long-tools]] write the long answer");
	},
	TIMEOUT_MS,
);

suite.nothingLeftBehind();
