// A bridged Pi tool call whose deadline passes before Pi gets to run it (another extension's `tool_call` hook, e.g. a
// confirmation dialog, holds it): Cursor gets the deadline error and goes on, and Pi does not run the tool afterwards.
import { afterEach, expect, test } from "bun:test";
import type { ToolResultMessage } from "@earendil-works/pi-ai";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { FakeCursorSdk } from "../support/fake-sdk.ts";
import { createHarnessSession, type HarnessSession } from "../support/harness.ts";

const open: HarnessSession[] = [];
const savedTimeout = process.env.PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS;
afterEach(async () => {
	for (const s of open.splice(0)) await s.close();
	if (savedTimeout === undefined) delete process.env.PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS;
	else process.env.PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS = savedTimeout;
});

/** An extension with a tool Cursor can call, and a `tool_call` hook that holds it for `holdMs` (a slow confirmation). */
function gatedTool(runs: string[], holdMs: number): ExtensionFactory {
	return (pi) => {
		pi.registerTool({
			name: "echo_tool",
			label: "Echo",
			description: "Echoes a message back.",
			parameters: Type.Object({ msg: Type.String() }),
			async execute(_id, params) {
				runs.push(params.msg);
				return { content: [{ type: "text", text: `echo:${params.msg}` }], details: {} };
			},
		});
		pi.on("tool_call", async (event) => {
			if (event.toolName === "echo_tool") await new Promise((resolve) => setTimeout(resolve, holdMs));
			return undefined;
		});
	};
}

async function bridgedTurn(holdMs: number, deadlineMs: number) {
	process.env.PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS = String(deadlineMs);
	const runs: string[] = [];
	const sdk = new FakeCursorSdk();
	sdk.script = () => [{ mcpCall: { name: "pi__echo_tool", args: { msg: "hi" } } }, { text: "final answer" }];
	const h = await createHarnessSession({
		sdk,
		settings: { retry: { enabled: false } },
		extensions: { before: [gatedTool(runs, holdMs)] },
	});
	open.push(h);
	await h.session.prompt("use the tool");
	const result = h.session.state.messages.find((m): m is ToolResultMessage => m.role === "toolResult");
	const last = h.session.state.messages.at(-1);
	return { runs, result, last, cursorSaw: JSON.stringify(sdk.sends[0]?.mcpResults) };
}

test("the deadline passes while another extension holds the call: Pi does not run it afterwards; Cursor goes on", async () => {
	const { runs, result, last, cursorSaw } = await bridgedTurn(800, 200);
	expect(cursorSaw).toContain("did not finish within 200 ms");
	expect(runs).toEqual([]); // not run after Cursor gave up on it
	expect(result?.toolName).toBe("echo_tool");
	expect(result?.isError).toBe(true);
	expect(JSON.stringify(result?.content)).toContain("Cursor stopped waiting for this call");
	expect(last?.role === "assistant" && last.stopReason).toBe("stop");
	expect(JSON.stringify(last)).toContain("final answer");
});

test("within the deadline the call runs once and its result goes back to Cursor", async () => {
	const { runs, result, cursorSaw } = await bridgedTurn(0, 10_000);
	expect(runs).toEqual(["hi"]);
	expect(result?.isError).toBe(false);
	expect(cursorSaw).toContain("echo:hi");
});
