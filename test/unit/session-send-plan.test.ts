// planSessionSend: when the pooled Cursor conversation continues (incremental) and when it starts over (bootstrap).
import { describe, expect, test } from "bun:test";
import type { AssistantMessage, Message } from "@earendil-works/pi-ai";
import { coverageOf, MAX_INCREMENTAL_SENDS, planSessionSend } from "../../src/session/send-plan.ts";
import { assistantMessage, systemMessage, toolResultMessage, userMessage } from "../support/messages.ts";

const KEY = "composer-2|key-fp|/work|all|http1=default";

const system = systemMessage;
const user = userMessage;
const assistant = (text: string, content: AssistantMessage["content"] = [{ type: "text", text }]): Message =>
	assistantMessage(content);
const toolResult = (id: string, text: string) => toolResultMessage(id, text);

/** The messages of the first turn as the provider saw them: what the pool covers after it finished. */
const turn1: Message[] = [system(), user("first question")];
const covered = coverageOf(KEY, turn1, 0);

describe("planSessionSend", () => {
	test("no pooled conversation: bootstrap (new)", () => {
		expect(planSessionSend(undefined, KEY, turn1)).toEqual({ kind: "bootstrap", reason: "new" });
	});

	test("happy path: the covered prefix, Cursor's reply, then a new user message → incremental with only it", () => {
		const next = [...turn1, assistant("first answer"), user("second question")];
		const plan = planSessionSend(covered, KEY, next);
		expect(plan.kind).toBe("incremental");
		if (plan.kind !== "incremental") return;
		expect(plan.newMessages).toEqual([user("second question")]);
	});

	test("new input with tool results before the user message → incremental carrying both, in order", () => {
		const next = [...turn1, assistant("first answer"), toolResult("call-1", "exit 0"), user("and now?")];
		const plan = planSessionSend(covered, KEY, next);
		expect(plan).toEqual({ kind: "incremental", newMessages: [toolResult("call-1", "exit 0"), user("and now?")] });
	});

	test("a system message after the reply that leaves the instructions unchanged is not sent", () => {
		const next = [...turn1, assistant("first answer"), system(), user("second question")];
		expect(planSessionSend(covered, KEY, next)).toEqual({
			kind: "incremental",
			newMessages: [user("second question")],
		});
	});

	test("timestamps and usage of covered messages do not matter", () => {
		const restamped = [
			{ ...system(), timestamp: 99 },
			{ ...user("first question"), timestamp: 98 },
		] as Message[];
		const next = [...restamped, assistant("first answer"), user("second question")];
		expect(planSessionSend(covered, KEY, next).kind).toBe("incremental");
	});

	test("pool key change (model, API key, cwd, setting sources, transport) → bootstrap (pool-key)", () => {
		const next = [...turn1, assistant("first answer"), user("second question")];
		expect(planSessionSend(covered, `${KEY}-other`, next)).toEqual({ kind: "bootstrap", reason: "pool-key" });
	});

	test("changed Pi instructions → bootstrap (instructions)", () => {
		const next = [system("You are Pi. New rules."), user("first question"), assistant("a"), user("second")];
		expect(planSessionSend(covered, KEY, next)).toEqual({ kind: "bootstrap", reason: "instructions" });
	});

	test("a later system message with new instructions → bootstrap (instructions)", () => {
		const next = [...turn1, assistant("a"), system("You are Pi. Tools changed."), user("second")];
		expect(planSessionSend(covered, KEY, next)).toEqual({ kind: "bootstrap", reason: "instructions" });
		const added: Message = { role: "system", content: "Also: be brief.", timestamp: 4 };
		expect(planSessionSend(covered, KEY, [...turn1, assistant("a"), added, user("second")])).toEqual({
			kind: "bootstrap",
			reason: "instructions",
		});
	});

	test("the instructions check comes before the shape check (a changed prompt is never sent incrementally)", () => {
		const next = [system("Changed."), user("first question"), user("second")];
		expect(planSessionSend(covered, KEY, next)).toEqual({ kind: "bootstrap", reason: "instructions" });
	});

	test("diverged prefix (an edited earlier message) → bootstrap (diverged)", () => {
		const next = [system(), user("first question, edited"), assistant("first answer"), user("second question")];
		expect(planSessionSend(covered, KEY, next)).toEqual({ kind: "bootstrap", reason: "diverged" });
	});

	test("a shorter branch (tree navigation, compaction) → bootstrap (diverged)", () => {
		expect(planSessionSend(covered, KEY, [system(), user("other")])).toEqual({
			kind: "bootstrap",
			reason: "diverged",
		});
	});

	test("missing assistant reply after the covered messages → bootstrap (diverged)", () => {
		const next = [...turn1, user("second question")];
		expect(planSessionSend(covered, KEY, next)).toEqual({ kind: "bootstrap", reason: "diverged" });
	});

	test("nothing new after the reply, or new input not ending with a user message → bootstrap (diverged)", () => {
		expect(planSessionSend(covered, KEY, [...turn1, assistant("a")])).toEqual({
			kind: "bootstrap",
			reason: "diverged",
		});
		expect(planSessionSend(covered, KEY, [...turn1, assistant("a"), toolResult("c", "x")])).toEqual({
			kind: "bootstrap",
			reason: "diverged",
		});
	});

	test(`after ${MAX_INCREMENTAL_SENDS} incremental sends the agent is recreated → bootstrap (limit)`, () => {
		expect(MAX_INCREMENTAL_SENDS).toBe(20);
		// Simulate the pool: each finished incremental send covers one more turn.
		let messages: Message[] = [...turn1];
		let coverage = coverageOf(KEY, messages, 0);
		for (let sends = 1; sends <= MAX_INCREMENTAL_SENDS; sends++) {
			messages = [...messages, assistant(`answer ${sends}`), user(`question ${sends + 1}`)];
			const plan = planSessionSend(coverage, KEY, messages);
			expect(plan.kind).toBe("incremental");
			coverage = coverageOf(KEY, messages, coverage.incrementalSends + 1);
		}
		expect(coverage.incrementalSends).toBe(MAX_INCREMENTAL_SENDS);
		messages = [...messages, assistant("answer 21"), user("question 22")];
		expect(planSessionSend(coverage, KEY, messages)).toEqual({ kind: "bootstrap", reason: "limit" });
	});

	test("coverageOf records the pool key, the message count and the number of incremental sends", () => {
		const coverage = coverageOf(KEY, turn1, 3);
		expect(coverage).toMatchObject({ poolKey: KEY, count: 2, incrementalSends: 3 });
		expect(coverage.fingerprint).toMatch(/^[0-9a-f]{32}$/);
		expect(coverage.instructions).toMatch(/^[0-9a-f]{32}$/);
	});
});
