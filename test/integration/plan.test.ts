// Plan, then build in a real Pi AgentSession (JSON mode, no dialog) on the fake SDK: the last plan is the current
// branch's (a plan card, or the answer of a plan-mode turn), `/cursor-plan` reports it and `/cursor-plan build`
// builds it in agent mode.
import { afterEach, expect, spyOn, test } from "bun:test";
import { BUILD_PROMPT, NO_PLAN, PLAN_USAGE } from "../../src/plan/approval.ts";
import { PLAN_ENTRY_TYPE } from "../../src/plan/capture.ts";
import { MODE_ENTRY_TYPE } from "../../src/settings/session-state.ts";
import { defaultScript, FakeCursorSdk, type FakeStep, latestRequest } from "../support/fake-sdk.ts";
import { createHarnessSession, type HarnessSession } from "../support/harness.ts";

const open: HarnessSession[] = [];
afterEach(async () => {
	for (const s of open.splice(0)) await s.close();
});

const PLAN_A = "# Plan A\n1. Edit `src/a.ts`";
const createPlan = (type: string) => ({
	raw: {
		type,
		callId: "plan-a",
		toolCall: { type: "createPlan", args: { plan: PLAN_A }, result: { status: "success", value: {} } },
	},
});

/** "plan A" writes a plan card; "plan B" answers with its plan as text; anything else gets the default reply. */
function script(text: string, send: Parameters<typeof defaultScript>[0]): FakeStep[] {
	const done = { turnEnded: { inputTokens: 5, outputTokens: 5 } };
	if (text.includes("plan A"))
		return [createPlan("tool-call-started"), createPlan("tool-call-completed"), { text: "A ready" }, done];
	if (text.includes("plan B")) return [{ text: "# Plan B\n1. Do B" }, done];
	return defaultScript(send);
}

test("the last plan follows the branch, /cursor-plan reports it, and /cursor-plan build builds it in agent mode", async () => {
	const sdk = new FakeCursorSdk({ script: (send) => script(latestRequest(send.text), send) });
	const s = await createHarnessSession({ sdk });
	open.push(s);
	const reports = spyOn(console, "error").mockImplementation(() => {});
	const lastReport = () => String(reports.mock.calls.at(-1)?.[0]);
	try {
		await s.session.prompt("/cursor-plan");
		expect(lastReport()).toBe(NO_PLAN);
		await s.session.prompt("/cursor-plan bogus");
		expect(lastReport()).toBe(`Unknown /cursor-plan argument "bogus". ${PLAN_USAGE}`);

		await s.session.prompt("/cursor-mode plan");
		await s.session.prompt("make plan A");
		await s.session.prompt("make plan B");
		expect(s.customEntries(PLAN_ENTRY_TYPE).map((e) => e.data)).toEqual([
			{ text: PLAN_A },
			{ text: "# Plan B\n1. Do B" },
		]);
		await s.session.prompt("/cursor-plan");
		expect(lastReport()).toStartWith("Cursor's plan: Plan B\n1. Do B\n");

		// Back on plan A's branch (/tree), plan A is the last plan again.
		const planA = s.session.sessionManager
			.getBranch()
			.find((e) => e.type === "custom" && e.customType === PLAN_ENTRY_TYPE);
		await s.session.navigateTree(planA?.id as string, { summarize: false });
		await s.session.prompt("/cursor-plan");
		expect(lastReport()).toStartWith("Cursor's plan: Plan A\n1. Edit `src/a.ts`\n\nFiles: src/a.ts\n\n");

		await s.session.prompt("/cursor-plan build");
		await s.session.waitForIdle();
		const build = sdk.sends.at(-1);
		expect(latestRequest(build?.text ?? "")).toBe(BUILD_PROMPT);
		expect(build?.mode).toBe("agent");
		expect(build?.status).toBe("finished");
		expect(s.session.messages.at(-1)?.role).toBe("assistant");
		expect(s.customEntries(MODE_ENTRY_TYPE).map((e) => e.data)).toEqual([{ mode: "plan" }, { mode: "agent" }]);
		expect(sdk.sends.map((send) => send.mode)).toEqual(["plan", "plan", "agent"]);
		expect(s.errorMessages()).toEqual([]);
	} finally {
		reports.mockRestore();
	}
});
