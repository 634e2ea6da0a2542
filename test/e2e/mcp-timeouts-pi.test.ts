// The MCP timeout override as users get it: the real `pi` CLI (Node 24, and compiled Pi on Bun) with the built
// bundle and the real SDK. A Cursor MCP server from the user's ~/.cursor/mcp.json (hosted by this test) has a tool
// that takes 3 s; the fake backend makes the SDK call it. With PI_CURSOR_MCP_TOOL_TIMEOUT_MS=1000 the SDK's own MCP
// client gives up after 1 s (its default would wait 60 s), and the turn still finishes.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Type } from "typebox";
import type { BridgeCallHandler } from "../../src/bridge/calls.ts";
import { type BridgeServer, startBridgeServer } from "../../src/bridge/server.ts";
import { buildBridgeSurface } from "../../src/bridge/snapshot.ts";
import { piHosts } from "../support/pi.ts";
import { turnSuite, withOutput } from "../support/pi-turn.ts";

const TIMEOUT_MS = 120_000;
let server: BridgeServer;
const outcomes: { aborted: boolean; finished: boolean }[] = [];

// Any MCP server would do; the bridge server is a convenient one to host in-process.
const slowTool: BridgeCallHandler = (call) =>
	new Promise((resolve) => {
		const outcome = { aborted: false, finished: false };
		outcomes.push(outcome);
		const timer = setTimeout(() => {
			outcome.finished = true;
			resolve({ content: [{ type: "text", text: "slept 3 s" }] });
		}, 3_000);
		call.signal.addEventListener("abort", () => {
			outcome.aborted = true;
			clearTimeout(timer);
		});
	});

const suite = turnSuite({
	scenarioMap: {
		"[[mcp-timeout:slow]]": [
			{ exec: { mcp: { toolName: "pi__slow", providerIdentifier: "user_tools", args: {} }, timeoutMs: 30_000 } },
			{ text: "done" },
			{ turnEnded: { inputTokens: 1, outputTokens: 1 } },
		],
	},
});
beforeAll(async () => {
	server = await startBridgeServer({
		surface: buildBridgeSurface(["slow"], [{ name: "slow", description: "Slow.", parameters: Type.Object({}) }]),
		handler: slowTool,
		callTimeoutMs: 600_000,
	});
});
afterAll(async () => {
	await server?.close();
});

function homeWithUserMcpServer() {
	const home = suite.home();
	mkdirSync(join(home.dir, ".cursor"), { recursive: true });
	writeFileSync(
		join(home.dir, ".cursor", "mcp.json"),
		JSON.stringify({ mcpServers: { user_tools: server.mcpServers.pi_tools } }),
	);
	return home;
}

const hosts = piHosts().filter((host) => host.name !== "npm pi 0.87.1 on node");

test.each(hosts.map((host) => [host.name, host] as const))(
	"%s: PI_CURSOR_MCP_TOOL_TIMEOUT_MS=1000 makes the SDK give up on a 3 s MCP call after 1 s",
	async (_name, host) => {
		const before = outcomes.length;
		const marker = `[[mcp-timeout:slow]] ${crypto.randomUUID()}`;
		const result = await suite.run(["--model", "cursor/composer-2.5", "-p", marker], {
			host,
			home: homeWithUserMcpServer(),
			env: { PI_CURSOR_MCP_TOOL_TIMEOUT_MS: "1000" },
			timeoutMs: TIMEOUT_MS,
		});
		const runs = (await suite.backend.runs()).filter((run) => run.userText?.includes(marker));
		const ids = new Set(runs.map((run) => run.requestId));
		const log = (await suite.backend.log()).filter((entry) => ids.has(entry.requestId));
		withOutput(result, () => {
			expect(result.code).toBe(0);
			expect(result.stdout.trim()).toBe("done");
			const thrown = log.find((entry) => entry.kind === "exec_throw");
			expect(JSON.stringify(thrown?.message)).toContain("MCP error -32001: Request timed out");
			expect(log.some((entry) => entry.resultCase === "mcp_result")).toBe(false);
			// The SDK cancelled its request at 1 s: the tool was stopped, not left to finish.
			expect(outcomes.slice(before)).toEqual([{ aborted: true, finished: false }]);
			expect(result.stderr).not.toContain("PI_CURSOR_MCP");
		});
	},
	TIMEOUT_MS,
);

test(
	"a malformed timeout setting is reported once and the default stays (the 3 s call succeeds)",
	async () => {
		const before = outcomes.length;
		const marker = `[[mcp-timeout:slow]] ${crypto.randomUUID()}`;
		const result = await suite.run(["--model", "cursor/composer-2.5", "-p", marker], {
			home: homeWithUserMcpServer(),
			env: { PI_CURSOR_MCP_TOOL_TIMEOUT_SECONDS: "soon" },
			timeoutMs: TIMEOUT_MS,
		});
		withOutput(result, () => {
			expect(result.code).toBe(0);
			expect(result.stdout.trim()).toBe("done");
			const warning = 'PI_CURSOR_MCP_TOOL_TIMEOUT_SECONDS="soon" is not a positive whole number; using the default.';
			expect(result.stderr.split(warning)).toHaveLength(2);
			expect(outcomes.slice(before)).toEqual([{ aborted: false, finished: true }]);
		});
	},
	TIMEOUT_MS,
);

suite.nothingLeftBehind();
