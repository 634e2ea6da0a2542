// Every phase of a Cursor turn ends on Pi's abort within a second, Cursor's silence ends a turn as a retryable
// network error, a broken stream is a lost connection (never "aborted"), and the next prompt always works.
// One Pi AgentSession in process with the fake SDK, which can stall any SDK call like a black-holed backend.
import { afterEach, describe, expect, test } from "bun:test";
import { defaultScript, FakeCursorSdk, latestRequest, type StallPoint } from "../support/fake-sdk.ts";
import { createHarnessSession, type HarnessSession } from "../support/harness.ts";

const open: HarnessSession[] = [];
const savedEnv = { ...process.env };
afterEach(async () => {
	for (const s of open.splice(0)) await s.close();
	for (const key of ["PI_CURSOR_FIRST_RESPONSE_TIMEOUT_MS", "PI_CURSOR_STREAM_IDLE_TIMEOUT_MS"]) {
		if (savedEnv[key] === undefined) delete process.env[key];
		else process.env[key] = savedEnv[key];
	}
});

async function session(sdk: FakeCursorSdk): Promise<HarnessSession> {
	// Pi's own retry is off: each test asserts what one attempt ends with.
	const s = await createHarnessSession({ sdk, settings: { retry: { enabled: false } } });
	open.push(s);
	return s;
}

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error("condition not met in time");
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}

function lastAssistant(h: HarnessSession) {
	const messages = h.session.state.messages.filter((m) => m.role === "assistant");
	return messages[messages.length - 1] as { stopReason: string; errorMessage?: string; content: unknown[] };
}

const textOf = (message: { content: unknown[] }) =>
	message.content.map((c) => ((c as { type: string }).type === "text" ? (c as { text: string }).text : "")).join("");

describe("abort ends the turn in every phase", () => {
	const phases: [string, StallPoint, boolean][] = [
		// [phase, stall point, whether a first turn must already exist (resume needs a pooled conversation)]
		["opening the session store", "openStore", false],
		["creating the agent", "createAgent", false],
		["sending the prompt", "send", true],
	];
	for (const [name, point, afterFirstTurn] of phases) {
		test(`${name}: aborted within a second; the late SDK result is discarded; the next prompt works`, async () => {
			const sdk = new FakeCursorSdk();
			const h = await session(sdk);
			if (afterFirstTurn) await h.session.prompt("turn one");
			const agentsBefore = sdk.agents.length;
			sdk.stalls.add(point);
			const stuck = h.session.prompt("this gets stuck");
			await waitFor(() => sdk.stalled > 0);
			const abortedAt = Date.now();
			await h.session.abort();
			await stuck;
			expect(Date.now() - abortedAt).toBeLessThan(1_000);
			expect(lastAssistant(h).stopReason).toBe("aborted");

			sdk.releaseStalls(); // the SDK call completes after the turn ended
			await new Promise((resolve) => setTimeout(resolve, 20));
			for (const agent of sdk.agents.slice(agentsBefore)) expect(agent.closed).toBe(true); // never pooled
			expect(sdk.sends.filter((s) => s.status === "running")).toEqual([]);

			await h.session.prompt("after the abort");
			expect(lastAssistant(h).stopReason).toBe("stop");
			expect(textOf(lastAssistant(h))).toContain("reply 1 from");
			expect(JSON.stringify(h.events)).not.toContain("already has active run");
		});
	}
});

describe("Cursor's silence is a retryable network error", () => {
	test("no first event within PI_CURSOR_FIRST_RESPONSE_TIMEOUT_MS: a network error naming the proxy/HTTP hint", async () => {
		process.env.PI_CURSOR_FIRST_RESPONSE_TIMEOUT_MS = "300";
		const sdk = new FakeCursorSdk();
		sdk.stalls.add("createAgent");
		const h = await session(sdk);
		const startedAt = Date.now();
		await h.session.prompt("hello");
		expect(Date.now() - startedAt).toBeLessThan(3_000);
		const message = lastAssistant(h);
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toContain("Cursor did not respond within 300 ms");
		expect(message.errorMessage).toContain("network error");
		expect(message.errorMessage).toContain("/cursor-http on");
		expect(message.errorMessage).not.toMatch(/aborted/i);

		sdk.releaseStalls();
		await h.session.prompt("again");
		expect(lastAssistant(h).stopReason).toBe("stop");
	});

	test("a run that goes silent past PI_CURSOR_STREAM_IDLE_TIMEOUT_MS: an idle error, the partial answer kept", async () => {
		process.env.PI_CURSOR_STREAM_IDLE_TIMEOUT_MS = "300";
		const sdk = new FakeCursorSdk();
		sdk.script = (send) =>
			latestRequest(send.text) === "go quiet" ? [{ text: "partial " }, { hang: true }] : defaultScript(send);
		const h = await session(sdk);
		await h.session.prompt("go quiet");
		const message = lastAssistant(h);
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toContain("no update for 300 ms");
		expect(textOf(message)).toBe("partial ");
		await waitFor(() => sdk.sends[0]?.status === "cancelled"); // the silent run is cancelled

		await h.session.prompt("next one");
		expect(lastAssistant(h).stopReason).toBe("stop");
		expect(sdk.sends[1]?.agentId).not.toBe(sdk.sends[0]?.agentId); // the pooled agent was replaced
	});

	test("a steady stream is not cut by the idle deadline", async () => {
		process.env.PI_CURSOR_STREAM_IDLE_TIMEOUT_MS = "200";
		const sdk = new FakeCursorSdk();
		const steps = Array.from({ length: 8 }, (_, i) => [{ delay: 100 }, { text: `${i} ` }]).flat();
		sdk.script = () => [...steps, { turnEnded: { inputTokens: 1, outputTokens: 1 } }];
		const h = await session(sdk);
		await h.session.prompt("slow but steady");
		expect(lastAssistant(h).stopReason).toBe("stop");
		expect(textOf(lastAssistant(h))).toBe("0 1 2 3 4 5 6 7 ");
	});
});

test("a stream that breaks without the user aborting: the connection was lost, the partial answer kept", async () => {
	const sdk = new FakeCursorSdk();
	sdk.script = (send) =>
		latestRequest(send.text) === "break"
			? [{ text: "half an answer" }, { fail: "[unknown] [aborted] aborted" }]
			: defaultScript(send);
	const h = await session(sdk);
	await h.session.prompt("break");
	const message = lastAssistant(h);
	expect(message.stopReason).toBe("error");
	expect(message.errorMessage).toContain("connection to Cursor was lost");
	expect(message.errorMessage).toContain("network error"); // Pi's automatic retry recognises it
	// Cursor's internal detail reads as if the user had aborted: it is not shown.
	expect(message.errorMessage).not.toMatch(/aborted|\[unknown\]/i);
	expect(textOf(message)).toBe("half an answer");
	await h.session.prompt("retry");
	expect(lastAssistant(h).stopReason).toBe("stop");
});
