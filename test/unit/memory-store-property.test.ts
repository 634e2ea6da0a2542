// The in-memory agent store summaries run on (src/sdk/memory-store.ts), with generated rows and events as the SDK
// writes them: paging in any page size returns every row exactly once in the SDK's order, a repeated event
// (same idempotency key) is stored once, and nothing the caller keeps can change what the store holds.
import { afterAll, expect, test } from "bun:test";
import { memoryAgentStore } from "../../src/sdk/memory-store.ts";
import { fc, PropertyTarget } from "../support/property.ts";

const target = new PropertyTarget("memory-store");
afterAll(() => target.report());

const agent = (agentId: string, updatedAt: number, cwd = "/w") => ({
	agentId,
	cwd,
	status: "idle" as const,
	createdAt: 1,
	updatedAt,
	sdkMetadata: { nested: { n: 1 } },
});
const run = (agentId: string, runId: string, turnNumber: number) => ({
	runId,
	agentId,
	turnNumber,
	status: "running" as const,
	createdAt: 1,
	updatedAt: 1,
});

async function allPages<T>(
	list: (cursor: string | undefined) => Promise<{ items: readonly T[]; nextCursor?: string }>,
) {
	const seen: T[] = [];
	let cursor: string | undefined;
	for (let pages = 0; pages < 1000; pages++) {
		const result = await list(cursor);
		seen.push(...result.items);
		if (result.nextCursor === undefined) return seen;
		cursor = result.nextCursor;
	}
	throw new Error("paging never ended");
}

test("agents, runs and checkpoints page completely, once each, in the SDK's order, for any page size", async () => {
	const ids = fc.uniqueArray(fc.stringMatching(/^[a-z0-9-]{1,12}$/), { minLength: 0, maxLength: 30 });
	await target.check(
		fc.asyncProperty(
			ids,
			fc.integer({ min: 1, max: 7 }),
			fc.integer({ min: 0, max: 3 }),
			async (names, limit, ties) => {
				const store = memoryAgentStore();
				for (const [i, name] of names.entries()) {
					await store.agents.create({ agent: agent(name, ties === 0 ? i : i % ties) });
					await store.runs.create({ run: run("a", name, ties === 0 ? i : i % ties) });
					await store.checkpoints.create({ agentId: "a", blobId: name, data: new Uint8Array([i % 256]) });
				}
				const agents = await allPages((cursor) => store.agents.list({ filter: { cursor, limit } }));
				expect(agents.map((a) => a.agentId).sort()).toEqual([...names].sort());
				for (let i = 1; i < agents.length; i++) {
					const [a, b] = [agents[i - 1], agents[i]];
					if (!a || !b) continue;
					expect(a.updatedAt > b.updatedAt || (a.updatedAt === b.updatedAt && a.agentId > b.agentId)).toBe(true);
				}
				const runs = await allPages((cursor) => store.runs.list({ filter: { agentIds: ["a"], cursor, limit } }));
				expect(runs.map((r) => r.runId).sort()).toEqual([...names].sort());
				for (let i = 1; i < runs.length; i++) {
					const [a, b] = [runs[i - 1], runs[i]];
					if (!a || !b) continue;
					expect(a.turnNumber < b.turnNumber || (a.turnNumber === b.turnNumber && a.runId < b.runId)).toBe(true);
				}
				const blobs = await allPages((cursor) => store.checkpoints.list({ filter: { cursor, limit } }));
				expect(blobs).toEqual([...names].sort());
			},
		),
		200,
	);
});

test("run events: a repeated idempotency key is stored once; paging after an offset returns the rest in order", async () => {
	const event = fc.record({ key: fc.option(fc.constantFrom("k1", "k2", "k3"), { nil: undefined }), text: fc.string() });
	await target.check(
		fc.asyncProperty(fc.array(event, { maxLength: 40 }), fc.integer({ min: 1, max: 9 }), async (appends, limit) => {
			const store = memoryAgentStore();
			const expected: string[] = [];
			const keys = new Set<string>();
			for (const { key, text } of appends) {
				const stored = await store.runEvents.append({
					runId: "r",
					eventType: "delta",
					payload: { text },
					...(key ? { idempotencyKey: key } : {}),
				});
				if (key && keys.has(key)) continue;
				if (key) keys.add(key);
				expected.push(text);
				expect(stored.seq).toBe(expected.length);
			}
			await store.runEvents.append({ runId: "other", eventType: "delta", payload: { text: "not mine" } });
			const seen: string[] = [];
			let afterOffset: string | undefined;
			for (;;) {
				const page = await store.runEvents.list({ runId: "r", afterOffset, limit });
				seen.push(...page.items.map((e) => (e.payload as { text: string }).text));
				if (page.nextOffset === undefined) break;
				afterOffset = page.nextOffset;
			}
			expect(seen).toEqual(expected);
		}),
		200,
	);
});

test("rows are copies both ways, duplicates and missing rows are refused, deletes follow their filters", async () => {
	const store = memoryAgentStore();
	const mine = agent("x", 1);
	await store.agents.create({ agent: mine });
	mine.sdkMetadata.nested.n = 2;
	const read = await store.agents.get({ agentId: "x" });
	if (!read) throw new Error("the agent was not stored");
	expect(read.sdkMetadata).toEqual({ nested: { n: 1 } });
	(read.sdkMetadata as { nested: { n: number } }).nested.n = 3;
	expect((await store.agents.get({ agentId: "x" }))?.sdkMetadata).toEqual({ nested: { n: 1 } });
	await expect(store.agents.create({ agent: agent("x", 2) })).rejects.toThrow("already exists");
	await expect(store.agents.update({ agent: agent("y", 2) })).rejects.toThrow("not found");

	const data = new Uint8Array([1, 2, 3]);
	await store.checkpoints.create({ agentId: "x", blobId: "b", data });
	data[0] = 9;
	expect([...((await store.checkpoints.get({ agentId: "x", blobId: "b" })) ?? [])]).toEqual([1, 2, 3]);

	await store.runs.create({ run: run("x", "r1", 1) });
	await store.runs.create({ run: run("x", "r2", 2) });
	await store.runEvents.append({ runId: "r1", eventType: "e" });
	await store.runs.delete({ filter: { runIds: ["r1"] } });
	expect(await store.runs.get({ agentId: "x", runId: "r1" })).toBeNull();
	expect((await store.runEvents.list({ runId: "r1" })).items).toEqual([]); // a run's events go with it
	expect(await store.runs.get({ agentId: "x", runId: "r2" })).not.toBeNull();

	await store.agents.create({ agent: agent("z", 1, "/elsewhere") });
	await store.agents.delete({ filter: { cwd: "/w" } });
	expect((await store.agents.list()).items.map((a) => a.agentId)).toEqual(["z"]);
});
