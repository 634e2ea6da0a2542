// The first-send prewarm in a real Pi AgentSession with the fake SDK: once a Cursor model and a key are set in an
// interactive-style session (RPC here), the SDK's executor for the session's agent is prepared in the background with
// the options that agent is then created with; it is released at shutdown, silent when it fails, and never prepared
// when turned off, offline, in print/JSON mode or once a turn has started.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { FakeCursorSdk } from "../support/fake-sdk.ts";
import { createHarnessSession, type HarnessSession } from "../support/harness.ts";

const KEY = "key_test_prewarm";
const open: HarnessSession[] = [];
const saved = { prewarm: process.env.PI_CURSOR_PREWARM, offline: process.env.PI_OFFLINE };

beforeEach(() => {
	delete process.env.PI_CURSOR_PREWARM;
	delete process.env.PI_OFFLINE;
});
afterEach(async () => {
	for (const s of open.splice(0)) await s.close();
	for (const [name, value] of [
		["PI_CURSOR_PREWARM", saved.prewarm],
		["PI_OFFLINE", saved.offline],
	] as const) {
		if (value === undefined) delete process.env[name];
		else process.env[name] = value;
	}
});

async function session(sdk: FakeCursorSdk, mode: "rpc" | "json" = "rpc"): Promise<HarnessSession> {
	const s = await createHarnessSession({ sdk, mode, apiKey: KEY });
	open.push(s);
	return s;
}

async function until(condition: () => boolean, timeoutMs = 3_000): Promise<boolean> {
	const deadline = Date.now() + timeoutMs;
	while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
	return condition();
}

/** Longer than the prewarm's start delay (300 ms) plus the fake SDK's work. */
const quietPeriod = () => new Promise((resolve) => setTimeout(resolve, 800));

describe("first-send prewarm", () => {
	test("prepares the executor the first agent then uses, before any prompt; released at shutdown", async () => {
		const sdk = new FakeCursorSdk();
		const h = await session(sdk);
		expect(await until(() => sdk.prewarmsHeld === 1)).toBe(true);
		expect(sdk.agents).toEqual([]); // nothing was sent or created yet

		await h.session.prompt("hello");
		expect(h.errorMessages()).toEqual([]);
		const prewarmed = sdk.prewarms[0]?.options;
		const store = sdk.prewarms[0]?.store;
		const created = sdk.agents[0]?.options;
		// The SDK keys its executor cache on these: the agent finds the prewarmed executor only if they match.
		expect(prewarmed?.apiKey).toBe(KEY);
		expect(created?.apiKey).toBe(KEY);
		expect(prewarmed?.local?.cwd).toBe(created?.local?.cwd);
		expect(prewarmed?.local?.settingSources).toEqual(created?.local?.settingSources);
		expect(prewarmed?.local?.enableAgentRetries).toBe(created?.local?.enableAgentRetries);
		expect(store?.dir).toBe(sdk.agents[0]?.storeDir);
		expect(sdk.opened).toEqual([store?.dir ?? ""]); // the session store, opened once
		expect(prewarmed?.agents).toEqual(created?.agents);
		expect(sdk.prewarms).toHaveLength(1);

		await h.close();
		expect(sdk.prewarmsHeld).toBe(0);
	});

	test("a prewarm that fails is silent, and the first turn runs as without it", async () => {
		const sdk = new FakeCursorSdk();
		sdk.prewarmError = new Error("[unauthenticated] Invalid API key");
		const h = await session(sdk);
		expect(await until(() => sdk.prewarms.length === 1)).toBe(true);
		await h.session.prompt("hello");
		expect(h.errorMessages()).toEqual([]);
		expect(h.extensionErrors).toEqual([]);
		expect(sdk.sends).toHaveLength(1);
	});

	for (const [name, setUp] of [
		["PI_CURSOR_PREWARM=0", () => (process.env.PI_CURSOR_PREWARM = "0")],
		["Pi offline (PI_OFFLINE=1)", () => (process.env.PI_OFFLINE = "1")],
	] as const) {
		test(`${name}: nothing is prepared before the first prompt`, async () => {
			setUp();
			const sdk = new FakeCursorSdk();
			const h = await session(sdk);
			await quietPeriod();
			expect(sdk.prewarms).toEqual([]);
			await h.session.prompt("hello");
			expect(h.errorMessages()).toEqual([]);
		});
	}

	test("print/JSON mode (the prompt follows at once): nothing is prepared", async () => {
		const sdk = new FakeCursorSdk();
		await session(sdk, "json");
		await quietPeriod();
		expect(sdk.prewarms).toEqual([]);
	});

	test("a turn that starts before the prewarm would: the prewarm does not run", async () => {
		const sdk = new FakeCursorSdk();
		const h = await session(sdk);
		await h.session.prompt("right away");
		await quietPeriod();
		expect(sdk.prewarms).toEqual([]);
		expect(sdk.agents).toHaveLength(1);
	});
});
