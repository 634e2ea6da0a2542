// The rules of Pi's tools under Cursor's safety modes (src/bridge/transport.ts), the surface they build, the
// in-process transport (src/bridge/in-process.ts), and the once-per-session notice of the bridge view.
import { describe, expect, test } from "bun:test";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import fc from "fast-check";
import type { BridgeCall } from "../../src/bridge/calls.ts";
import { startInProcessBridge } from "../../src/bridge/in-process.ts";
import { renderToolsReport } from "../../src/bridge/report.ts";
import { readBridgeSettings } from "../../src/bridge/settings.ts";
import { BRIDGE_SERVER_NAME, buildBridgeSurface, type PiToolInfo } from "../../src/bridge/snapshot.ts";
import {
	bridgeTransport,
	IN_PROCESS_SERVER_NAME,
	isSafetyRun,
	safetyNotice,
	safetyWords,
	transportServerName,
} from "../../src/bridge/transport.ts";
import { BridgeView } from "../../src/bridge/view.ts";
import { readEnv } from "../../src/settings/env.ts";
import { sessionSafety } from "../../src/settings/safety.ts";
import { RunTools } from "../../src/turn/tools.ts";

const BUILTINS = ["read", "bash", "write", "edit", "grep", "find", "ls"];
const tools = (...names: string[]): PiToolInfo[] => names.map((name) => ({ name, description: `${name} tool` }));

describe("which transport a run gets", () => {
	test.each([
		[{}, "mcp", undefined],
		[{ sandbox: true }, "in-process", "Cursor's sandbox"],
		[{ autoReview: true }, "in-process", "Cursor's auto-review"],
		[{ sandbox: true, autoReview: true }, "in-process", "Cursor's sandbox and auto-review"],
		// The agent-option form a turn carries (src/settings/safety.ts `safetyAgentOptions`).
		[{ sandboxOptions: { enabled: true } }, "in-process", "Cursor's sandbox"],
		[{ autoReview: false, sandbox: false }, "mcp", undefined],
	] as const)("%j → %s", (safety, transport, words) => {
		expect(bridgeTransport(safety)).toBe(transport);
		expect(safetyWords(safety)).toBe(words);
		expect(transportServerName(bridgeTransport(safety))).toBe(
			transport === "mcp" ? BRIDGE_SERVER_NAME : IN_PROCESS_SERVER_NAME,
		);
	});

	test("a session's safety follows the same precedence as a turn's: flag > env > trusted project > user", () => {
		expect(sessionSafety({ flags: { sandbox: true } })).toEqual({ sandbox: true, autoReview: false });
		expect(
			sessionSafety({ env: { autoReview: false, sandbox: undefined }, config: { local: { autoReview: true } } }),
		).toEqual({ sandbox: false, autoReview: false });
		expect(sessionSafety({ config: { local: { autoReview: true } } })).toEqual({ sandbox: false, autoReview: true });
	});
});

describe("the surface of a sandboxed or auto-review run", () => {
	test("built-ins are withheld (reason `safety`) even with PI_CURSOR_EXPOSE_BUILTIN_TOOLS=1", () => {
		const surface = buildBridgeSurface([...BUILTINS, "web"], tools(...BUILTINS, "web"), {
			safety: true,
			exposeBuiltins: true,
			serverName: IN_PROCESS_SERVER_NAME,
		});
		expect(surface.tools.map((t) => t.piName)).toEqual(["web"]);
		expect(surface.decisions.filter((d) => d.reason === "safety").map((d) => d.piName)).toEqual(BUILTINS);
		expect(surface.serverName).toBe(IN_PROCESS_SERVER_NAME);
	});

	test("PI_CURSOR_EXPOSE_BUILTIN_TOOLS_UNDER_SAFETY=1 offers them; without safety it changes nothing", () => {
		const opted = buildBridgeSurface(["bash", "web"], tools("bash", "web"), {
			safety: true,
			exposeBuiltinsUnderSafety: true,
		});
		expect(opted.tools.map((t) => t.piName)).toEqual(["bash", "web"]);
		const plain = buildBridgeSurface(["bash", "web"], tools("bash", "web"), { exposeBuiltinsUnderSafety: true });
		expect(plain.decisions.find((d) => d.piName === "bash")?.reason).toBe("builtin");
	});

	test("model-facing names fit 64 characters under either server, and a server change changes the fingerprint", () => {
		fc.assert(
			fc.property(fc.array(fc.string({ minLength: 1, maxLength: 90 }), { minLength: 1, maxLength: 6 }), (names) => {
				for (const serverName of [BRIDGE_SERVER_NAME, IN_PROCESS_SERVER_NAME]) {
					const surface = buildBridgeSurface(names, tools(...names), { serverName });
					for (const tool of surface.tools) expect(`${serverName}-${tool.mcpName}`.length).toBeLessThanOrEqual(64);
					expect(new Set(surface.tools.map((t) => t.mcpName)).size).toBe(surface.tools.length);
				}
			}),
			{ numRuns: 200 },
		);
		const mcp = buildBridgeSurface(["web"], tools("web"));
		const inProcess = buildBridgeSurface(["web"], tools("web"), { serverName: IN_PROCESS_SERVER_NAME });
		expect(mcp.fingerprint).not.toBe(inProcess.fingerprint);
		expect(mcp.fingerprint).toBe(buildBridgeSurface(["web"], tools("web")).fingerprint);
	});
});

describe("the safety notice", () => {
	const surfaceOf = (names: string[], options = {}) =>
		buildBridgeSurface(names, tools(...names), { safety: true, serverName: IN_PROCESS_SERVER_NAME, ...options });

	test("names the mode, the tools, where a call runs and why built-ins are not offered", () => {
		const notice = safetyNotice({ sandbox: true }, surfaceOf(["bash", "web"]), false) ?? "";
		expect(notice).toStartWith("Cursor's sandbox is on.");
		expect(notice).toContain('Cursor calls Pi\'s tools (web) in process ("custom-user-tools")');
		expect(notice).toContain("each call runs in Pi, under Pi's rules, not inside Cursor's sandbox");
		expect(notice).toContain(
			"Pi's built-ins (bash) are not offered, since they would run in Pi, outside Cursor's sandbox",
		);
		expect(notice).toContain("PI_CURSOR_EXPOSE_BUILTIN_TOOLS_UNDER_SAFETY=1 offers them");
		expect(safetyNotice({ sandbox: true, autoReview: true }, surfaceOf(["web"]), false)).toStartWith(
			"Cursor's sandbox and auto-review are on.",
		);
	});

	test("opted-in built-ins are named as running outside the sandbox", () => {
		const notice = safetyNotice({ autoReview: true }, surfaceOf(["bash"], { exposeBuiltinsUnderSafety: true }), false);
		expect(notice).toContain("Pi's built-ins (bash) are offered too");
		expect(notice).toContain("run in Pi, outside Cursor's auto-review");
	});

	test("nothing to say: no safety control, or no tool offered and no built-in asked for", () => {
		expect(safetyNotice({}, surfaceOf(["web"]), true)).toBeUndefined();
		expect(safetyNotice({ sandbox: true }, surfaceOf(["bash"]), false)).toBeUndefined();
		// Asked for built-ins that a sandboxed run withholds: the user is told why they are absent.
		expect(safetyNotice({ sandbox: true }, surfaceOf(["bash"]), true)).toContain("are not offered");
	});

	test("the view says it once per session, only for a turn about to run", () => {
		const notices: string[] = [];
		let safety = { sandbox: true };
		// The fields of Pi's ToolInfo the bridge reads (src/bridge/snapshot.ts `PiToolInfo`).
		const all = [{ name: "web", description: "web tool", parameters: {} }] as unknown as ReturnType<
			ExtensionAPI["getAllTools"]
		>;
		const pi = { getActiveTools: () => ["web"], getAllTools: () => all, registerTool: () => {} };
		const view = new BridgeView(pi, {}, () => 60_000, { safety: () => safety, notify: (m) => notices.push(m) });
		const env = readEnv({});
		expect(view.plan(env, { sandboxOptions: { enabled: true } })?.transport).toBe("in-process"); // a prewarm
		expect(notices).toEqual([]);
		view.plan(env, { sandboxOptions: { enabled: true } }, true);
		view.plan(env, { autoReview: true }, true);
		expect(notices).toHaveLength(1);
		expect(view.plan(env, {}, true)?.transport).toBe("mcp");
		safety = { sandbox: false };
		expect(view.report(false)).not.toContain("in process");
	});
});

describe("/cursor-tools under a safety mode", () => {
	test("says how Cursor reaches the tools, what it means, and why each built-in is not offered", () => {
		const settings = readBridgeSettings(readEnv({}), 3_600_000);
		const surface = buildBridgeSurface(["web", "bash"], tools("web", "bash"), {
			safety: true,
			serverName: IN_PROCESS_SERVER_NAME,
		});
		const report = renderToolsReport({
			settings,
			surface,
			settingSources: "all",
			running: true,
			safety: { autoReview: true },
		});
		expect(report).toContain("Cursor's auto-review is on: the SDK refuses MCP tool calls on such runs");
		expect(report).toContain("A bridged call runs in Pi, under Pi's rules, not inside Cursor's sandbox");
		expect(report).toContain('Tools (1 bridged as in-process server "custom-user-tools")');
		expect(report).toContain("web → pi__web");
		expect(report).toContain("bash: Pi built-in, not offered while Cursor's sandbox or auto-review is on");
	});
});

describe("the in-process transport", () => {
	const surface = buildBridgeSurface(["web", "slow"], tools("web", "slow"), { serverName: IN_PROCESS_SERVER_NAME });

	test("offers each tool as a custom tool; a call goes through Pi's path and its result back to the SDK", async () => {
		const calls: BridgeCall[] = [];
		const bridge = startInProcessBridge({
			surface,
			callTimeoutMs: 5_000,
			handler: async (call) => {
				calls.push(call);
				return { content: [{ type: "text", text: `ran ${call.piName} ${JSON.stringify(call.args)}` }] };
			},
		});
		const customTools = bridge.sendOptions.local?.customTools ?? {};
		expect(Object.keys(customTools)).toEqual(["pi__web", "pi__slow"]);
		expect(bridge.sendOptions.mcpServers).toBeUndefined(); // no port, no URL
		expect(customTools.pi__web?.inputSchema as unknown).toEqual(surface.tools[0]?.inputSchema);
		const result = await customTools.pi__web?.execute({ q: "x" }, { toolCallId: "tool-1" });
		expect(result).toEqual({ content: [{ type: "text", text: 'ran web {"q":"x"}' }], isError: false });
		expect(calls[0]?.toolCallId).toMatch(new RegExp(`^cursor-pi-bridge-${bridge.runId}-t1$`));
		await bridge.close();
	});

	test("a call past its deadline, or pending when the run ends, answers Cursor with an error", async () => {
		const bridge = startInProcessBridge({ surface, callTimeoutMs: 50, handler: () => new Promise(() => {}) });
		const tool = bridge.sendOptions.local?.customTools.pi__slow;
		const late = (await tool?.execute({}, {})) as { content: { text: string }[]; isError: boolean };
		expect(late.isError).toBe(true);
		expect(late.content[0]?.text).toContain("did not finish within 50 ms");
		const closing = startInProcessBridge({ surface, callTimeoutMs: 60_000, handler: () => new Promise(() => {}) });
		const pending = closing.sendOptions.local?.customTools.pi__web?.execute({}, {});
		expect(closing.pendingCalls()).toBe(1);
		await closing.close();
		const ended = (await pending) as { content: { text: string }[]; isError: boolean };
		expect(ended.isError).toBe(true);
		expect(ended.content[0]?.text).toContain("the Pi run that offered it has ended");
		expect(closing.closed).toBe(true);
		await bridge.close();
	});

	test("Cursor's in-process call of a bridged tool gets no Cursor card (Pi shows its own tool)", () => {
		const run = new RunTools();
		run.started("c1", { type: "mcp", args: { providerIdentifier: IN_PROCESS_SERVER_NAME, toolName: "pi__web" } });
		run.started("c2", { type: "mcp", args: { providerIdentifier: "someone-else", toolName: "x" } });
		expect([...run.open.keys()]).toEqual(["c2"]);
		expect(isSafetyRun({ autoReview: true })).toBe(true);
	});
});
