// Generated Cursor runs through the extension in a real Pi AgentSession (fake SDK): updates in any order, duplicated,
// truncated or malformed, with tool calls that become replay cards. Pi's prompt always ends; every message but the
// last ends with tool calls that all get results; the last one's stop reason is how Cursor ended the run; the answer
// text is exactly the streamed text, once, across the messages; the key and a proxy URL's password that tool output and
// failures carry never reach the session's messages, entries or usage journal.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { AssistantMessage, ToolResultMessage } from "@earendil-works/pi-ai";
import { FakeCursorSdk, type FakeStep } from "../support/fake-sdk.ts";
import { createHarnessSession, type HarnessSession } from "../support/harness.ts";
import { anyJson, fc, PropertyTarget, wrongTyped } from "../support/property.ts";

const target = new PropertyTarget("turn-in-pi");
const KEY = "key_6f1d0c9a8b7e6d5c4b3a29181706f5e4d3c2b1a0";
const PASSWORD = "7pr0xy-s3cret!";
const PROXY = `https://me:${PASSWORD}@proxy.example:8080`;
const sdk = new FakeCursorSdk();
let h: HarnessSession;
beforeAll(async () => {
	h = await createHarnessSession({ sdk, apiKey: KEY, settings: { retry: { enabled: false } } });
});
afterAll(async () => {
	target.report();
	await h?.close();
});

const toolCallOf = (kind: string, n: number) =>
	kind === "read"
		? { type: "read", args: { path: `f${n}.md` }, result: { status: "success", value: { content: `body ${n}` } } }
		: kind === "shell"
			? {
					type: "shell",
					args: { command: `curl ${PROXY}/${n}` },
					result: { status: "success", value: { stdout: `${n} ${KEY}\n`, stderr: `via ${PROXY}`, exitCode: 0 } },
				}
			: kind === "mcp"
				? {
						type: "mcp",
						args: { toolName: "search", providerIdentifier: "web" },
						result: { status: "error", error: "x" },
					}
				: { type: kind, args: anyJson, result: wrongTyped };

/** One generated step of a run, before call ids are made unique per case. */
const stepArb = fc.oneof(
	{ weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 8 }).map((text) => ({ text })) },
	{ weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 8 }).map((thinking) => ({ thinking })) },
	{
		weight: 3,
		arbitrary: fc
			.record({ kind: fc.constantFrom("read", "shell", "mcp", "todo", "bogus"), n: fc.nat(3), complete: fc.boolean() })
			.map((tool) => ({ tool })),
	},
	{
		weight: 1,
		arbitrary: fc
			.oneof(wrongTyped, fc.record({ type: fc.constantFrom("text-delta", "tool-call-completed"), text: wrongTyped }))
			.map((raw) => ({ raw })),
	},
);

const runArb = fc.record({
	steps: fc.array(stepArb, { maxLength: 12 }),
	duplicate: fc.option(fc.nat(), { nil: undefined }),
	fail: fc.option(
		fc.constantFrom(
			"[internal] backend error",
			`[unavailable] connection reset by ${PROXY}`,
			`[internal] bad key ${KEY}`,
		),
		{ nil: undefined },
	),
});

let caseNo = 0;

/** The fake SDK's script for one case, and the text Pi must show for it. */
function scriptOf(run: typeof runArb extends fc.Arbitrary<infer T> ? T : never): { steps: FakeStep[]; text: string } {
	const n = caseNo++;
	const steps: FakeStep[] = [];
	for (const step of run.steps) {
		if ("text" in step) {
			steps.push({ raw: { type: "text-delta", text: step.text } });
		} else if ("thinking" in step) {
			steps.push({ thinking: step.thinking });
		} else if ("raw" in step) {
			steps.push({ raw: step.raw });
		} else {
			const callId = `case${n}-${step.tool.kind}-${step.tool.n}`;
			const toolCall = toolCallOf(step.tool.kind, step.tool.n);
			steps.push({ raw: { type: "tool-call-started", callId, toolCall } });
			if (step.tool.complete) steps.push({ raw: { type: "tool-call-completed", callId, toolCall } });
		}
	}
	if (run.duplicate !== undefined && steps.length > 0) {
		steps.splice(run.duplicate % steps.length, 0, steps[run.duplicate % steps.length] as FakeStep);
	}
	const text = steps
		.map((step) => ("raw" in step ? (step.raw as { type?: unknown; text?: unknown } | null) : null))
		.flatMap((raw) => (raw?.type === "text-delta" && typeof raw.text === "string" ? [raw.text] : []))
		.join("");
	steps.push({ turnEnded: { inputTokens: 10, outputTokens: 2 } });
	if (run.fail) steps.push({ fail: run.fail });
	return { steps, text };
}

test("generated runs in Pi: the prompt ends, tool calls all get results, the text arrives once, the run decides the end", async () => {
	await target.check(
		fc.asyncProperty(runArb, async (run) => {
			const { steps, text } = scriptOf(run);
			sdk.script = () => steps;
			const from = h.session.state.messages.length;
			await h.session.prompt(`case ${caseNo}`);
			const added = h.session.state.messages.slice(from);
			const assistants = added.filter((m): m is AssistantMessage => m.role === "assistant");
			expect(assistants.length).toBeGreaterThan(0);
			for (const message of assistants.slice(0, -1)) expect(message.stopReason).toBe("toolUse");
			expect(assistants.at(-1)?.stopReason).toBe(run.fail ? "error" : "stop");
			const calls = assistants.flatMap((m) => m.content.flatMap((c) => (c.type === "toolCall" ? [c.id] : [])));
			const results = added.filter((m): m is ToolResultMessage => m.role === "toolResult").map((m) => m.toolCallId);
			expect(results.sort()).toEqual(calls.sort());
			const shown = assistants.flatMap((m) => m.content.map((c) => (c.type === "text" ? c.text : ""))).join("");
			expect(shown).toBe(text);
			expect(h.extensionErrors).toEqual([]);
			const journal = h.extension.accounting.ledger.source()?.records ?? [];
			expect(journal.length).toBeGreaterThan(0);
			const stored = JSON.stringify([added, h.customEntries(), journal]);
			expect(stored).not.toContain(KEY);
			expect(stored).not.toContain(PASSWORD);
		}),
		150,
	);
});
