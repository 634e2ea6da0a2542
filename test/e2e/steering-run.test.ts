// Steering goes into Cursor's running turn: the real `pi` in RPC mode, the real SDK and the fake backend. A message
// steered while Cursor works reaches the same run with `Run.steer` (the fake sees the SDK's inject-context action and
// answers it); when Cursor answers that it cannot take it (`revert_to_followup`), it goes as a follow-up on the same
// agent once the run ends. Either way Cursor's work is kept and no fresh agent gets the whole conversation again.
import { expect } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Scenario } from "../support/fake-backend/client.ts";
import { turnSuite } from "../support/pi-turn.ts";
import { type RpcRecord, startRpcPi } from "../support/rpc.ts";

const suite = turnSuite({
	defaultScenario: { steps: [{ echo: "reply to: " }, { turnEnded: { inputTokens: 10, outputTokens: 5 } }] },
});

/** Cursor works (text, a read batch that ends Pi's message), then meets the steer as `state` says. */
const steeredRun = (steer: Scenario["steps"]): Scenario => ({
	steps: [
		{ text: "Looking at the notes. " },
		{ delay: 1200 },
		{ tool: { callId: "c-read", read: { path: "notes.md" } } },
		...(steer ?? []),
		{ text: "First job done." },
		{ turnEnded: { inputTokens: 100, outputTokens: 20 } },
	],
});

const textOf = (message: { content?: { type: string; text?: string }[] }) =>
	(message.content ?? []).map((c) => (c.type === "text" ? (c.text ?? "") : "")).join("");

type Assistant = { stopReason: string; errorMessage?: string; content?: { type: string; text?: string }[] };
const assistantsOf = (records: RpcRecord[]) =>
	records
		.filter((r) => r.type === "message_end" && (r.message as { role?: string }).role === "assistant")
		.map((r) => r.message as Assistant);

async function steerWhileWorking(name: string, scenario: Scenario, followUp?: Scenario) {
	const home = suite.home();
	writeFileSync(join(home.dir, "notes.md"), "hello notes\n");
	const marker = `[[${name}]]`;
	const steerMarker = `[[${name}:steer]]`;
	await suite.backend.setScenarioMap({ [marker]: scenario, ...(followUp ? { [steerMarker]: followUp } : {}) });
	const pi = startRpcPi(["--model", "cursor/composer-2.5", "--no-session"], { home, env: suite.env() });
	try {
		await pi.ready();
		const from = pi.mark();
		expect((await pi.send({ type: "prompt", message: `${marker} check the notes` })).response.success).toBe(true);
		await pi.waitFor((r) => r.type === "message_update", { from, timeoutMs: 60_000 });
		const steer = `${steerMarker} also check the tests`;
		expect((await pi.send({ type: "steer", message: steer })).response.success).toBe(true);
		await pi.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 90_000 });
		const records = pi.records.slice(from);
		const runs = (await suite.backend.runs()).filter(
			(run) => run.userText?.includes(marker) || run.userText?.includes(steerMarker),
		);
		await pi.close();
		return { records, runs, steer };
	} finally {
		await pi.kill();
	}
}

suite.test("a steer typed while Cursor works goes into the running turn: one run, Cursor's work kept", async () => {
	const { records, runs, steer } = await steerWhileWorking(
		"steer-into",
		steeredRun([{ steer: { state: "delivered", echo: "Taking your note: " } }]),
	);
	// One Cursor run: no second send, nothing cancelled, and the steer reached it once, as typed.
	expect(runs).toHaveLength(1);
	expect(runs[0]?.clientClosed).toBe(false);
	expect(runs[0]?.steers?.map((s) => [s.text, s.state])).toEqual([[steer, "delivered"]]);
	// Pi shows the read, then what Cursor made of the steer and the rest of the same run; nothing failed.
	const assistants = assistantsOf(records);
	expect(assistants.filter((m) => m.stopReason === "error" || m.stopReason === "aborted")).toEqual([]);
	const shown = assistants.map(textOf).join("\n");
	expect(shown).toContain("Looking at the notes.");
	expect(shown).toContain(`Taking your note: ${steer}`);
	expect(shown).toContain("First job done.");
	expect(records.filter((r) => r.type === "tool_execution_end" && r.toolName === "read")).toHaveLength(1);
});

suite.test(
	"a steer Cursor cannot take (revert_to_followup) goes as a follow-up on the same agent once the run ends",
	async () => {
		const { records, runs, steer } = await steerWhileWorking(
			"steer-revert",
			steeredRun([{ steer: { state: "queued_for_next_turn" } }]),
			{ steps: [{ echo: "Follow-up got: " }, { turnEnded: { inputTokens: 12, outputTokens: 4 } }] },
		);
		expect(runs).toHaveLength(2);
		const [first, second] = runs;
		// The first run ran to its end (not superseded); the steer went to it first, then as the next send.
		expect(first?.clientClosed).toBe(false);
		expect(first?.steers?.map((s) => s.state)).toEqual(["queued_for_next_turn"]);
		// The follow-up is incremental on the same Cursor conversation: only the steer, no history re-sent.
		expect(second?.conversationId).toBe(first?.conversationId);
		expect(second?.userText).toContain(steer);
		expect(second?.userText).not.toContain("<conversation_history>");
		expect(second?.userText).not.toContain("check the notes");
		const assistants = assistantsOf(records);
		expect(assistants.filter((m) => m.stopReason === "error" || m.stopReason === "aborted")).toEqual([]);
		const last = textOf(assistants.at(-1) ?? {});
		expect(last).toContain("First job done.");
		expect(last).toContain("Follow-up got:");
		expect(last).toContain(steer);
	},
);

suite.nothingLeftBehind();
