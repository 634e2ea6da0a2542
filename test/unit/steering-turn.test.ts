// Pi's steering through the provider's turn code (src/turn/stream.ts) on a stub runtime: a cloud run is never
// steered (Cursor Cloud refuses it); the message waits for the run's end and goes as a follow-up on the same agent,
// continuing the same assistant message. A local run gets the message through `Run.steer`.
import { expect, test } from "bun:test";
import type { AssistantMessageEvent, TranscriptContext } from "@earendil-works/pi-ai";
import type { TurnRuntime } from "../../src/runtime/types.ts";
import type { Run, RunResult, SDKAgent } from "../../src/sdk/cursor-sdk.ts";
import { LiveRun } from "../../src/turn/live-run.ts";
import { streamCursorTurn } from "../../src/turn/stream.ts";
import type { AgentLease } from "../../src/turn/types.ts";
import { cursorModel } from "../support/messages.ts";
import { turnSetup } from "../support/pool-request.ts";

function deferred<T>() {
	let resolve!: (value: T) => void;
	const promise = new Promise<T>((r) => {
		resolve = r;
	});
	return { promise, resolve };
}

/** A live run waiting for Pi's result of tool call `t1`, on a stub agent that records its sends. */
function waitingRun(runtime: "local" | "cloud") {
	const log: string[] = [];
	const firstResult = deferred<RunResult>();
	const first = {
		id: "run-1",
		wait: () => firstResult.promise,
		cancel: async () => void log.push("cancel run-1"),
		steer: async (text: string) => {
			log.push(`steer ${text}`);
			return runtime === "cloud" ? ("revert_to_followup" as const) : ("complete_delivered" as const);
		},
	};
	const agent = {
		agentId: "agent-1",
		send: async (message: string, options: { onDelta?: (d: { update: unknown }) => Promise<void> | undefined }) => {
			log.push(`send ${message.includes("also the tests") ? "the steer" : "other"}`);
			void (async () => {
				await options.onDelta?.({ update: { type: "text-delta", text: "follow-up answer" } });
			})();
			return {
				id: "run-2",
				wait: async () => ({ id: "run-2", status: "finished" }),
				cancel: async () => {},
			} as unknown as Run;
		},
	} as unknown as SDKAgent;
	const lease: AgentLease = {
		agent,
		prompt: { text: "first", images: [] },
		kind: "bootstrap",
		release: (outcome) => void log.push(`release ${outcome}`),
	};
	let slot: LiveRun | undefined;
	const turnRuntime: TurnRuntime = {
		acquire: () => Promise.reject(new Error("no new lease expected")),
		liveRun: () => slot,
		keepLive: (run) => {
			if (slot !== run) slot?.dispose();
			slot = run;
		},
		dropLive: (run) => {
			if (slot === run) slot = undefined;
		},
		toolDisplay: () => ({
			replay: undefined,
			print: false,
			declared: undefined,
			context: { cwd: "/tmp", secrets: [] },
			trace: () => {},
		}),
	};
	const live = new LiveRun(
		lease,
		{ agentId: "agent-1", runId: "run-1", model: { id: "m" }, kind: "bootstrap", startedAt: 0 },
		60_000,
		() => {},
	);
	live.started(first as unknown as Run);
	live.detach(new Set(["t1"]));
	slot = live;
	const context = {
		messages: [
			{ role: "user", content: "check the notes", timestamp: 1 },
			{ role: "assistant", content: [{ type: "toolCall", id: "t1", name: "read", arguments: {} }], timestamp: 2 },
			{ role: "toolResult", toolCallId: "t1", toolName: "read", content: [], isError: false, timestamp: 3 },
			{ role: "user", content: "also the tests", timestamp: 4 },
		],
	} as unknown as TranscriptContext;
	const entry = {
		runtime: turnRuntime,
		cloud: turnRuntime,
		isSummary: () => false,
		setup: () => turnSetup({ runtime }),
	};
	const stream = streamCursorTurn(entry, cursorModel, context, { apiKey: "key_a" });
	return { stream, log, finishFirst: () => firstResult.resolve({ id: "run-1", status: "finished" }) };
}

async function collect(stream: AsyncIterable<AssistantMessageEvent>): Promise<AssistantMessageEvent[]> {
	const events: AssistantMessageEvent[] = [];
	for await (const event of stream) events.push(event);
	return events;
}

test("cloud: the steer is not steered; after the run it goes as a follow-up on the same agent, one message", async () => {
	const { stream, log, finishFirst } = waitingRun("cloud");
	const events = collect(stream);
	await Bun.sleep(20);
	expect(log).toEqual([]); // nothing sent while the run goes on
	finishFirst();
	const done = await events;
	expect(log).toEqual(["send the steer", "release finished"]);
	const end = done.at(-1) as { type: string; message?: { content: { type: string; text?: string }[] } };
	expect(end.type).toBe("done");
	expect(JSON.stringify(end.message?.content)).toContain("follow-up answer");
});

test("local: the steer goes into the running run; no second send", async () => {
	const { stream, log, finishFirst } = waitingRun("local");
	const events = collect(stream);
	await Bun.sleep(20);
	finishFirst();
	await events;
	expect(log).toEqual(["steer also the tests", "release finished"]);
});
