// A Cursor shell command that is still running after a moment is shown as Pi's `bash` card right away, and the output
// the SDK reports (`shell-output-delta`) appears on that card while it runs; Cursor's recorded result ends it. A run
// that fails or is aborted meanwhile ends the card too, so nothing waits forever.
import { afterEach, expect, test } from "bun:test";
import type { AgentSessionEvent } from "@earendil-works/pi-coding-agent";
import type { InteractionUpdate } from "../../src/sdk/cursor-sdk.ts";
import { FakeCursorSdk, type FakeStep } from "../support/fake-sdk.ts";
import { createHarnessSession, type HarnessSession } from "../support/harness.ts";

const open: HarnessSession[] = [];
afterEach(async () => {
	for (const s of open.splice(0)) await s.close();
});

const shell = { type: "shell", args: { command: "npm test" } };
const done = { ...shell, result: { status: "success", value: { stdout: "line 1\nline 2\n", exitCode: 0 } } };
const raw = (update: unknown): FakeStep => ({ raw: update as InteractionUpdate });
const output = (data: string) => raw({ type: "shell-output-delta", event: { case: "stdout", value: { data } } });
const started = raw({ type: "tool-call-started", callId: "c1", toolCall: shell });

async function run(steps: FakeStep[], during?: (h: HarnessSession) => Promise<void>) {
	const sdk = new FakeCursorSdk();
	sdk.script = () => steps;
	const h = await createHarnessSession({ sdk, settings: { retry: { enabled: false } } });
	open.push(h);
	const prompt = h.session.prompt("run the tests");
	await during?.(h);
	await prompt;
	const toolEvents = h.events.filter(
		(e): e is Extract<AgentSessionEvent, { type: `tool_execution_${string}` }> =>
			e.type.startsWith("tool_execution_") && (e as { toolName?: string }).toolName === "bash",
	);
	const text = (e: unknown) =>
		((e as { partialResult?: unknown; result?: unknown }).partialResult ?? (e as { result?: unknown }).result) as {
			content?: { text?: string }[];
		};
	return {
		h,
		sdk,
		shape: toolEvents.map((e) => `${e.type.replace("tool_execution_", "")}:${text(e)?.content?.[0]?.text ?? ""}`),
		stops: h.session.state.messages.flatMap((m) => (m.role === "assistant" ? [m.stopReason] : [])),
	};
}

test("a long shell command's output shows on its bash card while it runs; Cursor's result ends the card", async () => {
	const { shape, stops, sdk, h } = await run([
		started,
		{ delay: 1_300 }, // still running after a second: the card is shown now
		output("line 1\n"),
		{ delay: 150 },
		output("line 2\n"),
		{ delay: 150 },
		raw({ type: "tool-call-completed", callId: "c1", toolCall: done }),
		{ text: "tests pass" },
	]);
	expect(shape).toEqual(["start:", "update:line 1", "update:line 1\nline 2", "end:line 1\nline 2\n\nExit code 0"]);
	expect(stops).toEqual(["toolUse", "stop"]);
	expect(sdk.sends).toHaveLength(1); // one run, continued after the card
	expect(JSON.stringify(h.session.state.messages.at(-1))).toContain("tests pass");
	expect(h.errorMessages()).toEqual([]);
});

test("a quick command keeps today's shape: its card appears when it completes, with its recorded output", async () => {
	const { shape, stops } = await run([
		started,
		output("line 1\nline 2\n"),
		raw({ type: "tool-call-completed", callId: "c1", toolCall: done }),
		{ text: "tests pass" },
	]);
	expect(shape).toEqual(["start:", "end:line 1\nline 2\n\nExit code 0"]);
	expect(stops).toEqual(["toolUse", "stop"]);
});

test("the run fails while the card shows a running command: the card ends as failed, then the turn", async () => {
	const { shape, stops, h } = await run([
		started,
		{ delay: 1_300 },
		output("partial\n"),
		{ delay: 100 },
		{ fail: "[internal] boom" },
	]);
	expect(shape).toEqual([
		"start:",
		"update:partial",
		"end:Cursor started this tool but the run failed before it reported a result.",
	]);
	expect(stops).toEqual(["toolUse", "error"]);
	expect(h.errorMessages()[0]?.errorMessage).toContain("boom");
});

test("Esc while the card shows a running command: the wait ends, the run is cancelled", async () => {
	const { stops, sdk } = await run([started, { delay: 1_300 }, output("partial\n"), { hang: true }], async (h) => {
		const deadline = Date.now() + 5_000;
		while (!h.events.some((e) => e.type === "tool_execution_update") && Date.now() < deadline) {
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
		await h.session.abort();
	});
	expect(stops[0]).toBe("toolUse");
	expect(sdk.sends[0]?.status).toBe("cancelled");
});
