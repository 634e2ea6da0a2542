// The cloud turn's phases before a run exists, on a stub SDK (the real SDK against the cloud fake:
// test/e2e/cloud-run.test.ts).
import { describe, expect, test } from "bun:test";
import type { AssistantMessageEvent } from "@earendil-works/pi-ai";
import type { CloudEntry } from "../../src/cloud/records.ts";
import { type CloudTurn, runCloudTurn } from "../../src/cloud/run.ts";
import type { Run, SDKAgent } from "../../src/sdk/cursor-sdk.ts";
import { cursorModel } from "../support/messages.ts";

function deferred<T>() {
	let resolve!: (value: T) => void;
	const promise = new Promise<T>((r) => {
		resolve = r;
	});
	return { promise, resolve };
}

function stubAgent(send: () => Promise<Run>, log: string[]): SDKAgent {
	return {
		agentId: "bc-12345678-1234-4234-8234-123456789abc",
		send,
		close: () => log.push("close"),
	} as unknown as SDKAgent;
}

function turn(signal: AbortSignal): CloudTurn {
	return {
		apiKey: "key_unit_test_cloud_run",
		selection: { id: "composer-2" },
		mode: "agent",
		prompt: { text: "hello", images: [] },
		cloud: { repos: [] },
		signal,
	};
}

async function collect(stream: AsyncIterable<AssistantMessageEvent>): Promise<AssistantMessageEvent[]> {
	const events: AssistantMessageEvent[] = [];
	for await (const event of stream) events.push(event);
	return events;
}

describe("a cloud turn before its run exists", () => {
	test("Pi's abort while the agent is being created ends the turn aborted; the late agent is closed, nothing recorded", async () => {
		const log: string[] = [];
		const created = deferred<SDKAgent>();
		const records: CloudEntry[] = [];
		const controller = new AbortController();
		const stream = runCloudTurn(cursorModel, turn(controller.signal), {
			sdk: { createAgent: () => created.promise, resumeAgent: () => created.promise },
			journal: { record: (entry) => void records.push(entry) },
		});
		controller.abort();
		const events = await collect(stream);
		expect(events.map((e) => e.type)).toEqual(["error"]);
		expect(events[0]).toMatchObject({ reason: "aborted" });
		created.resolve(stubAgent(() => Promise.reject(new Error("never sent")), log));
		await Bun.sleep(10);
		expect(log).toEqual(["close"]);
		expect(records).toEqual([]);
	});

	test("Pi's abort while the send is pending ends the turn at once; a run that arrives later is recorded and cancelled", async () => {
		const log: string[] = [];
		const sent = deferred<Run>();
		const records: CloudEntry[] = [];
		const controller = new AbortController();
		const agent = stubAgent(() => sent.promise, log);
		const stream = runCloudTurn(cursorModel, turn(controller.signal), {
			sdk: { createAgent: async () => agent, resumeAgent: async () => agent },
			journal: { record: (entry) => void records.push(entry) },
		});
		await Bun.sleep(10);
		expect(records.map((r) => r.type)).toEqual(["agent"]);
		const started = performance.now();
		controller.abort();
		const events = await collect(stream);
		expect(performance.now() - started).toBeLessThan(100);
		expect(events.map((e) => e.type)).toEqual(["start", "error"]);
		expect(events.at(-1)).toMatchObject({ reason: "aborted" });
		expect(records.at(-1)).toMatchObject({ type: "result", status: "aborted", runId: null });

		sent.resolve({ id: "run-late", cancel: async () => void log.push("cancel run-late") } as unknown as Run);
		await Bun.sleep(10);
		expect(records.at(-1)).toEqual({ type: "run", agentId: agent.agentId, runId: "run-late" });
		expect(log).toContain("cancel run-late");
	});
});
