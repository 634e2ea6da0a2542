// SDK work abandoned at session shutdown must not keep Pi alive. Under Bun (compiled Pi, and these tests), whose fetch
// publishes no socket channel, the session's fetches are aborted instead: pending ones at release, later ones at once.
import { afterAll, expect, test } from "bun:test";
import { createServer, type Socket } from "node:net";
import { SdkSockets } from "../../src/sdk/sdk-sockets.ts";

/** A server that accepts connections and never answers. */
const sockets = new Set<Socket>();
const blackHole = createServer((socket) => {
	sockets.add(socket);
	socket.on("error", () => {});
});
await new Promise<void>((resolve) => blackHole.listen(0, "127.0.0.1", resolve));
const address = blackHole.address();
const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/v1/models`;
afterAll(() => {
	for (const socket of sockets) socket.destroy();
	blackHole.close();
});

const settled = (promise: Promise<unknown>) =>
	Promise.race([
		promise.then(
			() => "resolved",
			(error: Error) => `rejected: ${error.message}`,
		),
		new Promise((resolve) => setTimeout(() => resolve("still pending"), 1_000)),
	]);

test("release aborts the session's pending fetches; abandoned work's later fetches fail at once; others run on", async () => {
	expect(process.versions.bun).toBeDefined();
	const tracked = new SdkSockets();
	let retry: Promise<{ at: number; result: unknown }> | undefined;
	const pending = tracked.run(() => {
		// An SDK retry 300 ms later, from the same work (a timer it set): after the session ended.
		retry = new Promise((resolve) =>
			setTimeout(() => {
				const at = Date.now();
				void settled(fetch(url)).then((result) => resolve({ at, result }));
			}, 300),
		);
		return fetch(url);
	});
	const outside = fetch(url, { signal: AbortSignal.timeout(1_500) });
	await new Promise((resolve) => setTimeout(resolve, 100));
	expect(tracked.release()).toBe(1);
	expect(await settled(pending)).toMatch(/^rejected/);
	const late = await retry;
	expect(late?.result).toMatch(/^rejected/);
	expect(Date.now() - (late?.at ?? 0)).toBeLessThan(500);
	// A fetch that is not the session's SDK work is left alone (here it ends by its own timeout).
	expect(await settled(outside)).toBe("still pending");
	// The next session's work is tracked afresh.
	const next = tracked.run(() => fetch(url));
	await new Promise((resolve) => setTimeout(resolve, 50));
	expect(tracked.release()).toBe(1);
	expect(await settled(next)).toMatch(/^rejected/);
});
