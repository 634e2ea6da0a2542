import { expect, test } from "bun:test";
import { type BridgeCall, BridgeCallQueue, type BridgeToolResult } from "../../src/bridge/calls.ts";
import type { BridgeDebugRecord } from "../../src/bridge/debug.ts";
import type { BridgeTool } from "../../src/bridge/snapshot.ts";

const RUN = "0123456789abcdef0123456789abcdef";
const TOOL: BridgeTool = { piName: "slow", mcpName: "pi__slow", description: "", inputSchema: { type: "object" } };
const ok = (text: string): BridgeToolResult => ({ content: [{ type: "text", text }] });
const textOf = (result: BridgeToolResult) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("");

/** A handler whose calls the test finishes by hand. */
function manualHandler() {
	const calls: { call: BridgeCall; finish: (result: BridgeToolResult) => void; fail: (error: unknown) => void }[] = [];
	const handler = (call: BridgeCall) =>
		new Promise<BridgeToolResult>((resolve, reject) => calls.push({ call, finish: resolve, fail: reject }));
	return { calls, handler };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

test("calls reach the handler one at a time, in arrival order, with numbered bridge ids", async () => {
	const { calls, handler } = manualHandler();
	const queue = new BridgeCallQueue({ runId: RUN, handler, callTimeoutMs: 60_000 });
	const results = [1, 2, 3].map((n) => queue.submit(TOOL, { n }));
	await tick();
	expect(calls.map((c) => c.call.args)).toEqual([{ n: 1 }]);
	expect(queue.pending).toBe(3);
	expect(queue.queued).toBe(2);
	calls[0]?.finish(ok("one"));
	await tick();
	calls[1]?.finish(ok("two"));
	await tick();
	calls[2]?.finish(ok("three"));
	expect((await Promise.all(results)).map(textOf)).toEqual(["one", "two", "three"]);
	expect(calls.map((c) => c.call.toolCallId)).toEqual([1, 2, 3].map((n) => `cursor-pi-bridge-${RUN}-t${n}`));
	expect(calls.map((c) => [c.call.piName, c.call.mcpName])).toEqual(Array(3).fill(["slow", "pi__slow"]));
	expect(queue.pending).toBe(0);
});

test("with more concurrency, calls still start in arrival order", async () => {
	const { calls, handler } = manualHandler();
	const queue = new BridgeCallQueue({ runId: RUN, handler, callTimeoutMs: 60_000, concurrency: 2 });
	const results = [1, 2, 3].map((n) => queue.submit(TOOL, { n }));
	await tick();
	expect(calls.map((c) => c.call.args)).toEqual([{ n: 1 }, { n: 2 }]);
	calls[1]?.finish(ok("b"));
	await tick();
	expect(calls.map((c) => c.call.args)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
	calls[0]?.finish(ok("a"));
	calls[2]?.finish(ok("c"));
	expect((await Promise.all(results)).map(textOf)).toEqual(["a", "b", "c"]);
});

test("the deadline aborts a running call and answers with a clear error; the next call goes on", async () => {
	const { calls, handler } = manualHandler();
	const queue = new BridgeCallQueue({ runId: RUN, handler, callTimeoutMs: 40 });
	const first = queue.submit(TOOL, {});
	await tick();
	const signal = calls[0]?.call.signal;
	const result = await first;
	expect(result.isError).toBe(true);
	expect(textOf(result)).toBe(
		'Pi tool "slow" did not finish within 40 ms and was stopped (PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS).',
	);
	expect(signal?.aborted).toBe(true);
	expect(queue.pending).toBe(0);
	// A late result of the aborted call changes nothing.
	calls[0]?.finish(ok("late"));
	const second = queue.submit(TOOL, {});
	await tick();
	calls[1]?.finish(ok("fine"));
	expect(textOf(await second)).toBe("fine");
});

test("a call that expires while queued never reaches the handler", async () => {
	const { calls, handler } = manualHandler();
	const queue = new BridgeCallQueue({ runId: RUN, handler, callTimeoutMs: 30 });
	const blocker = queue.submit(TOOL, { n: 1 });
	const queued = queue.submit(TOOL, { n: 2 });
	// Both deadlines pass while the process is busy: when the first timer frees the queue, the second call is due too.
	const until = Date.now() + 60;
	while (Date.now() < until) {}
	const [a, b] = await Promise.all([blocker, queued]);
	expect(a.isError && b.isError).toBe(true);
	await tick();
	expect(calls.map((c) => c.call.args)).toEqual([{ n: 1 }]);
	expect(queue.pending).toBe(0);
});

test("MCP cancellation aborts a running call and drops a queued one", async () => {
	const { calls, handler } = manualHandler();
	const queue = new BridgeCallQueue({ runId: RUN, handler, callTimeoutMs: 60_000 });
	const runningCancel = new AbortController();
	const queuedCancel = new AbortController();
	const running = queue.submit(TOOL, { n: 1 }, runningCancel.signal);
	const queued = queue.submit(TOOL, { n: 2 }, queuedCancel.signal);
	await tick();
	queuedCancel.abort();
	runningCancel.abort();
	expect(textOf(await running)).toBe('Pi tool "slow" was cancelled.');
	expect((await queued).isError).toBe(true);
	expect(calls[0]?.call.signal.aborted).toBe(true);
	await tick();
	expect(calls).toHaveLength(1);
	expect(queue.pending).toBe(0);
});

test("an already cancelled request never runs", async () => {
	const { calls, handler } = manualHandler();
	const queue = new BridgeCallQueue({ runId: RUN, handler, callTimeoutMs: 60_000 });
	const result = await queue.submit(TOOL, {}, AbortSignal.abort());
	expect(result.isError).toBe(true);
	await tick();
	expect(calls).toHaveLength(0);
});

test("close settles every pending call, aborts the running one, and refuses new calls", async () => {
	const { calls, handler } = manualHandler();
	const queue = new BridgeCallQueue({ runId: RUN, handler, callTimeoutMs: 60_000 });
	const results = [queue.submit(TOOL, {}), queue.submit(TOOL, {})];
	await tick();
	queue.close();
	for (const result of await Promise.all(results)) {
		expect(textOf(result)).toContain("the Pi run that offered it has ended");
	}
	expect(calls[0]?.call.signal.aborted).toBe(true);
	expect(queue.pending).toBe(0);
	expect((await queue.submit(TOOL, {})).isError).toBe(true);
	expect(calls).toHaveLength(1);
});

test.each([
	[
		"throws",
		() => Promise.reject(new Error("disk full, token=abcdefghijklmnop1234")),
		'Pi tool "slow" failed: disk full, token=[redacted]',
	],
	[
		"throws synchronously",
		() => {
			throw new Error("boom");
		},
		'Pi tool "slow" failed: boom',
	],
	[
		"returns an error result",
		async () => ({ content: [{ type: "text" as const, text: "nope" }], isError: true }),
		"nope",
	],
	["returns malformed content", async () => ({ content: [{ type: "audio" }] }) as never, ""],
])("a handler that %s gives the model an error or empty result, not a crash", async (_name, impl, text) => {
	const queue = new BridgeCallQueue({ runId: RUN, handler: impl as never, callTimeoutMs: 60_000 });
	const result = await queue.submit(TOOL, {});
	expect(textOf(result)).toBe(text);
});

test("images pass through", async () => {
	const image = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" };
	const queue = new BridgeCallQueue({ runId: RUN, handler: async () => ({ content: [image] }), callTimeoutMs: 1000 });
	expect((await queue.submit(TOOL, {})).content).toEqual([image]);
});

test("debug records trace a call without its arguments or result", async () => {
	const records: BridgeDebugRecord[] = [];
	const queue = new BridgeCallQueue({
		runId: RUN,
		handler: async () => ok("RESULT-TEXT"),
		callTimeoutMs: 1000,
		debug: (record) => records.push(record),
	});
	await queue.submit(TOOL, { secret: "ARG-VALUE" }, undefined, 5);
	expect(records.map((r) => r.event)).toEqual(["call_queued", "call_started", "call_resolved"]);
	expect(JSON.stringify(records)).not.toMatch(/ARG-VALUE|RESULT-TEXT/);
	expect(records.every((r) => r.runId === RUN && r.callId === `cursor-pi-bridge-${RUN}-t1`)).toBe(true);
});
