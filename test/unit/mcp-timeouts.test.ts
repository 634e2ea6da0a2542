import { afterEach, expect, test } from "bun:test";
import {
	classifyMcpTimer,
	installMcpTimeoutOverride,
	readMcpTimeoutSettings,
	uninstallMcpTimeoutOverride,
} from "../../src/process/mcp-timeouts.ts";
import { readEnv } from "../../src/settings/env.ts";

test.each([
	["defaults: 3600 s for tool calls, 10 s to connect/list", {}, 3_600_000, 10_000],
	[
		"milliseconds",
		{ PI_CURSOR_MCP_TOOL_TIMEOUT_MS: "120000", PI_CURSOR_MCP_CONNECT_TIMEOUT_MS: "2500" },
		120_000,
		2_500,
	],
	["seconds", { PI_CURSOR_MCP_TOOL_TIMEOUT_SECONDS: "90", PI_CURSOR_MCP_CONNECT_TIMEOUT_SECONDS: "3" }, 90_000, 3_000],
	[
		"_MS wins over _SECONDS",
		{ PI_CURSOR_MCP_TOOL_TIMEOUT_MS: "1000", PI_CURSOR_MCP_TOOL_TIMEOUT_SECONDS: "5" },
		1_000,
		10_000,
	],
	[
		"blank values are unset",
		{ PI_CURSOR_MCP_TOOL_TIMEOUT_MS: " ", PI_CURSOR_MCP_CONNECT_TIMEOUT_SECONDS: "" },
		3_600_000,
		10_000,
	],
	["capped at the longest timer", { PI_CURSOR_MCP_TOOL_TIMEOUT_SECONDS: "99999999" }, 2_147_483_647, 10_000],
])("%s", (_name, env, toolMs, connectMs) => {
	expect(readMcpTimeoutSettings(readEnv(env))).toEqual({ toolMs, connectMs, problems: [] });
});

test.each(["0", "-1", "1.5", "ten", "1e3"])("a malformed value (%s) keeps the default and says so", (value) => {
	const settings = readMcpTimeoutSettings(
		readEnv({
			PI_CURSOR_MCP_TOOL_TIMEOUT_MS: value,
			PI_CURSOR_MCP_CONNECT_TIMEOUT_SECONDS: value,
		}),
	);
	expect(settings.toolMs).toBe(3_600_000);
	expect(settings.connectMs).toBe(10_000);
	expect(settings.problems).toEqual([
		`PI_CURSOR_MCP_TOOL_TIMEOUT_MS="${value}" is not a positive whole number; using the default.`,
		`PI_CURSOR_MCP_CONNECT_TIMEOUT_SECONDS="${value}" is not a positive whole number; using the default.`,
	]);
});

// Call-site names as V8 (webpack build under Node) and JavaScriptCore (flat bundle under Bun) report them.
test.each([
	["V8 tools/call", ["setTimeout", "y._setupTimeout", null, "Promise", "y.request", "y.callTool", null], "tool"],
	["JSC tools/call", ["setTimeout", "_setupTimeout", null, "Promise", "request", "callTool"], "tool"],
	["tools/list", ["setTimeout", "_setupTimeout", null, "Promise", "request", "listTools", "fetchPage"], "connect"],
	["initialize", ["setTimeout", "_setupTimeout", null, "Promise", "request", "async connect"], "connect"],
	["another MCP request (ping)", ["setTimeout", "_setupTimeout", null, "Promise", "request", "ping"], undefined],
	["a progress timer reset", ["setTimeout", "_resetTimeout", "_onprogress"], undefined],
	["any other 60 s timer", ["setTimeout", "h", "x.handle", "callTool"], undefined],
	[
		"_setupTimeout far from the timer",
		["setTimeout", "a", "b", "c", "_setupTimeout", "request", "callTool"],
		undefined,
	],
	["no call sites", [], undefined],
] as const)("%s → %s", (_name, names, kind) => {
	expect(classifyMcpTimer(names)).toBe(kind);
});

/** A global-like object whose setTimeout records the delays it is asked for. */
function fakeGlobal() {
	const delays: number[] = [];
	const timers = Object.assign(
		(_handler: unknown, delay?: number) => {
			delays.push(delay ?? 0);
			return delays.length;
		},
		{ custom: "promisify-hook" },
	);
	return { target: { setTimeout: timers } as unknown as typeof globalThis, delays };
}

/**
 * Mimics the MCP client's call path: `await this.request(…)` in Client.callTool / listTools / connect, then
 * Protocol.request → new Promise → _setupTimeout. (`await`, like the real client: a plain `return this.request()`
 * would be a proper tail call under JavaScriptCore and drop the caller's frame.)
 */
class FakeMcpClient {
	constructor(private readonly target: typeof globalThis) {}
	_setupTimeout(ms: number) {
		this.target.setTimeout(() => {}, ms);
	}
	request(ms: number) {
		return new Promise<void>((resolve) => {
			this._setupTimeout(ms);
			resolve();
		});
	}
	async callTool() {
		await this.request(60_000);
	}
	async listTools() {
		await this.request(60_000);
	}
	async connect() {
		await Promise.resolve();
		await this.request(60_000);
	}
	async ping() {
		await this.request(60_000);
	}
}

const installed: (typeof globalThis)[] = [];
afterEach(() => {
	for (const target of installed.splice(0)) uninstallMcpTimeoutOverride(target);
});

test("the override changes exactly the MCP client's tool-call and connect/list timers", async () => {
	const { target, delays } = fakeGlobal();
	installed.push(target);
	const result = installMcpTimeoutOverride({ toolMs: 3_600_000, connectMs: 10_000, problems: [] }, "1.0.32", target);
	expect(result.ok).toBe(true);
	const client = new FakeMcpClient(target);
	await client.callTool();
	await client.listTools();
	await client.connect();
	await client.ping();
	target.setTimeout(() => {}, 60_000);
	target.setTimeout(() => {}, 5);
	expect(delays).toEqual([3_600_000, 10_000, 10_000, 60_000, 60_000, 5]);
	expect((target.setTimeout as unknown as { custom: string }).custom).toBe("promisify-hook");
});

test("installing twice wraps once and takes the latest settings", async () => {
	const { target, delays } = fakeGlobal();
	installed.push(target);
	installMcpTimeoutOverride({ toolMs: 1_000, connectMs: 1_000, problems: [] }, "1.0.32", target);
	const first = target.setTimeout;
	installMcpTimeoutOverride({ toolMs: 2_000, connectMs: 3_000, problems: [] }, "1.0.32", target);
	expect(target.setTimeout).toBe(first);
	await new FakeMcpClient(target).callTool();
	expect(delays).toEqual([2_000]);
});

test.each([
	["another SDK version", "1.0.40"],
	["an unknown SDK version", undefined],
])("with %s nothing is patched, the SDK's 60 s stays, and one warning says so", async (_name, version) => {
	const { target, delays } = fakeGlobal();
	const original = target.setTimeout;
	const result = installMcpTimeoutOverride({ toolMs: 3_600_000, connectMs: 10_000, problems: [] }, version, target);
	expect(result.ok).toBe(false);
	expect(result.settings.toolMs).toBe(60_000);
	if (!result.ok) expect(result.warning).toMatch(/keep the SDK's 60 s timeouts/);
	expect(target.setTimeout).toBe(original);
	await new FakeMcpClient(target).callTool();
	expect(delays).toEqual([60_000]);
});
