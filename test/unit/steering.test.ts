// Pi's steering of a live Cursor run (src/turn/steer.ts, LiveRun.steer): what counts as steering, what text goes into
// Cursor's running turn, and where a steer Cursor does not take ends up (a follow-up on the same agent).
import { afterAll, expect, test } from "bun:test";
import type { Message, UserMessage } from "@earendil-works/pi-ai";
import type { Run, SteerOutcome } from "../../src/sdk/cursor-sdk.ts";
import { LiveRun } from "../../src/turn/live-run.ts";
import { steeringOf, steerText } from "../../src/turn/steer.ts";
import type { AgentLease } from "../../src/turn/types.ts";
import { fc, PropertyTarget } from "../support/property.ts";

const target = new PropertyTarget("steering-split");
afterAll(() => target.report());

const user = (content: UserMessage["content"]): UserMessage => ({ role: "user", content, timestamp: 0 });
const result = (id: string): Message =>
	({ role: "toolResult", toolCallId: id, toolName: "read", content: [], isError: false, timestamp: 0 }) as Message;
const assistant = { role: "assistant", content: [], timestamp: 0 } as unknown as Message;

test("steering: the awaited tool results, then the user's messages; anything else is not steering", () => {
	const awaiting = new Set(["t1", "t2"]);
	const base = [user("go"), assistant, result("t1"), result("t2")];
	expect(steeringOf([...base, user("also the tests")], awaiting)?.messages).toEqual([user("also the tests")]);
	expect(steeringOf([...base, user("a"), user("b")], awaiting)?.answered).toEqual(base);
	expect(steeringOf(base, awaiting)).toBeUndefined(); // results alone continue the run
	expect(steeringOf([user("go"), assistant, result("t1"), user("x")], awaiting)).toBeUndefined(); // t2 unanswered
	expect(steeringOf([user("go"), assistant, user("new prompt")], awaiting)).toBeUndefined();
	expect(steeringOf([...base, user("x")], new Set())).toBeUndefined(); // the run awaits nothing
});

test("the steered text is the messages' text; an image (Run.steer takes text only) or no text makes it a follow-up", () => {
	expect(steerText([user("  also the tests "), user([{ type: "text", text: "and docs" }])])).toBe(
		"also the tests\n\nand docs",
	);
	expect(steerText([user([{ type: "image", data: "AA", mimeType: "image/png" }])])).toBeUndefined();
	expect(
		steerText([
			user([
				{ type: "text", text: "see" },
				{ type: "image", data: "AA", mimeType: "image/png" },
			]),
		]),
	).toBe(undefined);
	expect(steerText([user("   ")])).toBeUndefined();
});

test("whatever Pi hands over, steering splits it into the answered part and the trailing user messages", async () => {
	const message = fc.oneof(
		fc.constant(assistant),
		fc.constantFrom("t1", "t2", "t3").map(result),
		fc.string({ maxLength: 8 }).map((text) => user(text)),
	);
	await target.check(
		fc.property(fc.array(message, { maxLength: 8 }), fc.subarray(["t1", "t2", "t3"]), (messages, awaited) => {
			const awaiting = new Set(awaited);
			const steering = steeringOf(messages, awaiting);
			if (!steering) return;
			expect([...steering.answered, ...steering.messages]).toEqual(messages);
			expect(steering.messages.length).toBeGreaterThan(0);
			expect(steering.messages.every((m) => m.role === "user")).toBe(true);
			expect(steering.answered.at(-1)?.role).toBe("toolResult");
			const answered = new Set<string>();
			for (const m of [...steering.answered].reverse()) {
				if (m.role !== "toolResult") break;
				answered.add(m.toolCallId);
			}
			expect(awaited.every((id) => answered.has(id))).toBe(true);
		}),
		300,
	);
});

function liveWith(steer: ((text: string) => Promise<SteerOutcome>) | undefined) {
	const lease = { release: () => {} } as unknown as AgentLease;
	const send = { agentId: "a", runId: undefined, model: { id: "m" }, kind: "bootstrap" as const, startedAt: 0 };
	const live = new LiveRun(lease, send, 60_000, () => {});
	const steered: string[] = [];
	const run = {
		id: "run-1",
		wait: () => new Promise(() => {}),
		cancel: async () => {},
		...(steer
			? {
					steer: (text: string) => {
						steered.push(text);
						return steer(text);
					},
				}
			: {}),
	};
	live.started(run as unknown as Run);
	return { live, steered };
}

test("a steer Cursor's running turn takes is not sent again", async () => {
	const { live, steered } = liveWith(async () => "complete_delivered");
	live.steer([user("also the tests")], true);
	expect(live.steerPending).toBe(true);
	await live.steered();
	expect(steered).toEqual(["also the tests"]);
	expect(live.deferred).toEqual([]);
	expect(live.steerPending).toBe(false);
});

test("a steer Cursor reverts, or that fails, waits for the run's end as a follow-up", async () => {
	const reverted = liveWith(async () => "revert_to_followup");
	reverted.live.steer([user("a")], true);
	await reverted.live.steered();
	expect(reverted.live.deferred).toEqual([user("a")]);

	const failed = liveWith(() => Promise.reject(new Error("stream closed")));
	failed.live.steer([user("b")], true);
	await failed.live.steered();
	expect(failed.live.deferred).toEqual([user("b")]);
});

test("a cloud run (intoRun false), a run without steer or an image is never steered: straight to the follow-up", async () => {
	const cloud = liveWith(async () => "complete_delivered");
	cloud.live.steer([user("a")], false);
	expect(cloud.steered).toEqual([]);
	expect(cloud.live.deferred).toEqual([user("a")]);

	const old = liveWith(undefined);
	old.live.steer([user("b")], true);
	expect(old.live.deferred).toEqual([user("b")]);

	const image = liveWith(async () => "complete_delivered");
	const withImage = user([{ type: "image", data: "AA", mimeType: "image/png" }]);
	image.live.steer([withImage], true);
	expect(image.steered).toEqual([]);
	expect(image.live.deferred).toEqual([withImage]);
});
