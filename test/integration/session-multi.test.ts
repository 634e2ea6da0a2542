// Two Pi AgentSessions in ONE process, each with its own CursorExtension, sharing one (fake) Cursor SDK — as the real
// SDK is process-global. Interleaved turns must never share an SDK agent, and Cursor settings stay per session.
import { afterEach, describe, expect, test } from "bun:test";
import { MODE_ENTRY_TYPE } from "../../src/settings/session-state.ts";
import { defaultScript, FakeCursorSdk, type FakeSend } from "../support/fake-sdk.ts";
import { createHarnessSession, type HarnessSession } from "../support/harness.ts";

const open: HarnessSession[] = [];
async function session(sdk: FakeCursorSdk): Promise<HarnessSession> {
	const s = await createHarnessSession({ sdk });
	open.push(s);
	return s;
}
afterEach(async () => {
	for (const s of open.splice(0)) await s.close();
});

/** Slow enough that the two sessions' runs overlap. */
const overlapping = (sdk: FakeCursorSdk) => {
	sdk.script = (send) => [{ delay: 80 }, ...defaultScript(send)];
};

function sendFor(sdk: FakeCursorSdk, text: string): FakeSend {
	const found = sdk.sends.find((s) => s.text.includes(`<latest_user_request>\n${text}\n</latest_user_request>`));
	if (!found) throw new Error(`no send for ${text}: ${JSON.stringify(sdk.sends.map((s) => s.text.slice(-200)))}`);
	return found;
}

const isBootstrap = (send: FakeSend) => send.text.includes("<pi_instructions>");

describe("two sessions in one process", () => {
	test("interleaved turns never share an agent; each session's follow-ups are incremental on its own agent", async () => {
		const sdk = new FakeCursorSdk();
		overlapping(sdk);
		const [a, b] = [await session(sdk), await session(sdk)];
		if (!a || !b) throw new Error("sessions");

		await Promise.all([a.session.prompt("alpha one"), b.session.prompt("beta one")]);
		await Promise.all([a.session.prompt("alpha two"), b.session.prompt("beta two")]);
		await Promise.all([b.session.prompt("beta three"), a.session.prompt("alpha three")]);

		expect(sdk.maxRunning).toBe(2); // the runs really overlapped
		expect(sdk.agents).toHaveLength(2);
		const agentA = sendFor(sdk, "alpha one").agentId;
		const agentB = sendFor(sdk, "beta one").agentId;
		expect(agentA).not.toBe(agentB);

		for (const [agent, prefix, other] of [
			[agentA, "alpha", "beta"],
			[agentB, "beta", "alpha"],
		] as const) {
			const sends = ["one", "two", "three"].map((n) => sendFor(sdk, `${prefix} ${n}`));
			expect(sends.map((s) => s.agentId)).toEqual([agent, agent, agent]);
			expect(sends.map((s) => s.index)).toEqual([1, 2, 3]);
			expect(sends.map(isBootstrap)).toEqual([true, false, false]);
			for (const s of sends) expect(s.text).not.toContain(other);
			expect(sdk.agents.find((r) => r.agentId === agent)?.sends).toHaveLength(3);
		}

		// Each session saw only its own agent's replies, and nothing failed.
		const replies = (h: HarnessSession) =>
			h.session.messages.filter((m) => m.role === "assistant").map((m) => (m.content[0] as { text: string }).text);
		expect(replies(a)).toEqual([1, 2, 3].map((n) => `reply ${n} from ${agentA}`));
		expect(replies(b)).toEqual([1, 2, 3].map((n) => `reply ${n} from ${agentB}`));
		for (const h of [a, b]) {
			expect(h.errorMessages()).toEqual([]);
			expect(h.extensionErrors).toEqual([]);
		}
		expect(JSON.stringify(a.events)).not.toContain("already has active run");
		expect(JSON.stringify(b.events)).not.toContain("already has active run");
	});

	test("/cursor-mode plan in one session changes only that session's sends and entries", async () => {
		const sdk = new FakeCursorSdk();
		overlapping(sdk);
		const [a, b] = [await session(sdk), await session(sdk)];
		if (!a || !b) throw new Error("sessions");

		await Promise.all([a.session.prompt("alpha one"), b.session.prompt("beta one")]);
		await a.session.prompt("/cursor-mode plan");
		await Promise.all([a.session.prompt("alpha two"), b.session.prompt("beta two")]);

		expect(sendFor(sdk, "alpha one").mode).toBe("agent");
		expect(sendFor(sdk, "alpha two").mode).toBe("plan");
		expect(sendFor(sdk, "beta one").mode).toBe("agent");
		expect(sendFor(sdk, "beta two").mode).toBe("agent");
		// A mode change is per send: the pooled agent is kept (incremental).
		expect(isBootstrap(sendFor(sdk, "alpha two"))).toBe(false);
		expect(sendFor(sdk, "alpha two").agentId).toBe(sendFor(sdk, "alpha one").agentId);

		expect(a.customEntries(MODE_ENTRY_TYPE).map((e) => e.data)).toEqual([{ mode: "plan" }]);
		expect(b.customEntries(MODE_ENTRY_TYPE)).toEqual([]);
		expect(a.extension.settings.session.mode).toBe("plan");
		expect(b.extension.settings.session.mode).toBeUndefined();
		// fileless sessions: no resume entries in either
		expect(a.customEntries("pi-cursor-sdk:resume")).toEqual([]);
		expect(b.customEntries("pi-cursor-sdk:resume")).toEqual([]);
	});

	test("shutting one session down closes only its agent; the other keeps continuing incrementally", async () => {
		const sdk = new FakeCursorSdk();
		const [a, b] = [await session(sdk), await session(sdk)];
		if (!a || !b) throw new Error("sessions");
		await a.session.prompt("alpha one");
		await b.session.prompt("beta one");
		await a.close();
		const agentA = sdk.agents.find((r) => r.agentId === sendFor(sdk, "alpha one").agentId);
		const agentB = sdk.agents.find((r) => r.agentId === sendFor(sdk, "beta one").agentId);
		expect(agentA?.closed).toBe(true);
		expect(agentB?.closed).toBe(false);
		await b.session.prompt("beta two");
		expect(sendFor(sdk, "beta two")).toMatchObject({ agentId: agentB?.agentId, index: 2 });
		expect(isBootstrap(sendFor(sdk, "beta two"))).toBe(false);
	});
});
