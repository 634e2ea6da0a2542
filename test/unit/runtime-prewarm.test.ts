// The prewarm scheduler: one prewarmed executor per session, replaced by a newer one, given back at shutdown, and a
// prewarm overtaken by a newer request or by shutdown never kept.
import { expect, test } from "bun:test";
import { type PrewarmRelease, PrewarmSchedule } from "../../src/runtime/prewarm.ts";

const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));

/** A prewarm whose executors are counted while held. */
function executors() {
	const held = new Set<string>();
	const started: string[] = [];
	const work =
		(name: string, ready: Promise<void> = Promise.resolve()) =>
		async (): Promise<PrewarmRelease> => {
			started.push(name);
			await ready;
			held.add(name);
			return async () => {
				held.delete(name);
			};
		};
	return { held, started, work };
}

test("a newer request replaces a pending one; the newer executor replaces the held one once it is ready", async () => {
	const prewarm = new PrewarmSchedule();
	const e = executors();
	prewarm.schedule(e.work("a"), 10);
	prewarm.schedule(e.work("b"), 10);
	await tick();
	expect(e.started).toEqual(["b"]);
	expect([...e.held]).toEqual(["b"]);

	let ready = () => {};
	prewarm.schedule(e.work("c", new Promise((resolve) => (ready = resolve))), 0);
	await tick();
	expect([...e.held]).toEqual(["b"]); // kept until its successor is ready
	ready();
	await tick();
	expect([...e.held]).toEqual(["c"]);
	prewarm.stop();
	await tick();
	expect([...e.held]).toEqual([]);
});

test("stop cancels a pending prewarm, and one that finishes after stop is released at once", async () => {
	const prewarm = new PrewarmSchedule();
	const e = executors();
	prewarm.schedule(e.work("pending"), 20);
	prewarm.stop();
	await tick(40);
	expect(e.started).toEqual([]);

	let ready = () => {};
	prewarm.schedule(e.work("late", new Promise((resolve) => (ready = resolve))), 0);
	await tick();
	prewarm.stop();
	ready();
	await tick();
	expect(e.started).toEqual(["late"]);
	expect([...e.held]).toEqual([]);
});

test("a failing or empty prewarm holds nothing and breaks nothing", async () => {
	const prewarm = new PrewarmSchedule();
	const e = executors();
	prewarm.schedule(async () => {
		throw new Error("offline");
	}, 0);
	await tick();
	prewarm.schedule(async () => undefined, 0);
	await tick();
	prewarm.schedule(e.work("after"), 0);
	await tick();
	expect([...e.held]).toEqual(["after"]);
	prewarm.stop();
});
