import { expect, test } from "bun:test";
import type { Run } from "../../src/sdk/cursor-sdk.ts";
import { type LiveEvent, LiveRun } from "../../src/turn/live-run.ts";
import type { AgentLease } from "../../src/turn/types.ts";

function fakeRun() {
	let finish: (value: unknown) => void = () => {};
	const waited = new Promise((resolve) => {
		finish = resolve;
	});
	const run = {
		id: "run-1",
		cancelled: 0,
		wait: () => waited,
		cancel: async () => {
			run.cancelled++;
			finish({ id: "run-1", status: "cancelled" });
		},
	};
	return run;
}

function liveRun(idleMs = 60_000) {
	const released: string[] = [];
	const disposed: LiveRun[] = [];
	const lease = { release: (outcome: string) => void released.push(outcome) } as unknown as AgentLease;
	const send = { agentId: "a", runId: undefined, model: { id: "m" }, kind: "bootstrap" as const, startedAt: 0 };
	const live = new LiveRun(lease, send, idleMs, (run) => {
		disposed.push(run);
		void run.lease.release("aborted");
	});
	const run = fakeRun();
	live.started(run as unknown as Run);
	return { live, run, released, disposed };
}

const update = (text: string): LiveEvent => ({ kind: "update", update: { type: "text-delta", text } });

test("events arriving while detached are buffered and replayed in order to the next attachment", () => {
	const { live } = liveRun();
	const first: string[] = [];
	live.attach({
		event: (e) => void first.push(e.kind === "update" && e.update.type === "text-delta" ? e.update.text : ""),
		settled: () => {},
	});
	live.push(update("a"));
	live.detach(new Set(["t1"]));
	live.push(update("b"));
	live.push(update("c"));
	expect(first).toEqual(["a"]);
	const second: string[] = [];
	live.attach({
		event: (e) => void second.push(e.kind === "update" && e.update.type === "text-delta" ? e.update.text : ""),
		settled: () => {},
	});
	expect(second).toEqual(["b", "c"]);
	expect(live.awaiting).toEqual(new Set(["t1"]));
});

test("a run left waiting for Pi past the idle window is cancelled and its lease released", async () => {
	const { live, run, released, disposed } = liveRun(50);
	live.detach(new Set(["t1"]));
	await new Promise((resolve) => setTimeout(resolve, 120));
	expect(run.cancelled).toBe(1);
	expect(released).toEqual(["aborted"]);
	expect(disposed).toEqual([live]);
	expect(live.disposed).toBe(true);
});

test("attaching again stops the idle clock; a closed run is never given up later", async () => {
	const { live, run, released } = liveRun(50);
	live.detach(new Set(["t1"]));
	live.attach({ event: () => undefined, settled: () => {} });
	await new Promise((resolve) => setTimeout(resolve, 120));
	expect(run.cancelled).toBe(0);
	live.close();
	live.dispose();
	expect(run.cancelled).toBe(0);
	expect(released).toEqual([]);
});
