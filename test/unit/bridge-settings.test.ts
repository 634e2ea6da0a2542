import { expect, test } from "bun:test";
import { bridgeToolCallId, isBridgeToolCallId, newBridgeRunId, newPathToken } from "../../src/bridge/ids.ts";
import { readBridgeSettings } from "../../src/bridge/settings.ts";
import { readEnv } from "../../src/settings/env.ts";

const HOUR = 3_600_000;

test.each([
	["defaults", {}, { enabled: true, exposeBuiltins: false, manifest: true, debug: false, callTimeoutMs: HOUR }],
	["bridge off also turns the manifest off", { PI_CURSOR_PI_TOOL_BRIDGE: "0" }, { enabled: false, manifest: false }],
	["manifest off alone", { PI_CURSOR_TOOL_MANIFEST: "off" }, { enabled: true, manifest: false }],
	[
		"built-ins and debug on",
		{ PI_CURSOR_EXPOSE_BUILTIN_TOOLS: "1", PI_CURSOR_PI_TOOL_BRIDGE_DEBUG: "yes" },
		{ exposeBuiltins: true, debug: true },
	],
	[
		"the call timeout can lower the deadline",
		{ PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS: "90000" },
		{ callTimeoutMs: 90_000 },
	],
	[
		"but never raise it above the MCP tool timeout",
		{ PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS: "99999999" },
		{ callTimeoutMs: HOUR },
	],
	["unrecognized booleans keep defaults", { PI_CURSOR_PI_TOOL_BRIDGE: "maybe" }, { enabled: true }],
])("%s", (_name, env, expected) => {
	const settings = readBridgeSettings(readEnv(env), HOUR);
	expect(settings).toMatchObject(expected);
	expect(settings.problems).toEqual([]);
});

test.each(["abc", "-5", "0", "1.5", "1e6"])("a malformed call timeout (%s) is reported and ignored", (value) => {
	const settings = readBridgeSettings(readEnv({ PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS: value }), 60_000);
	expect(settings.callTimeoutMs).toBe(60_000);
	expect(settings.problems).toEqual([
		`PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS="${value}" is not a positive whole number of milliseconds.`,
	]);
});

test("with the SDK's 60 s MCP timeout in force (override unavailable), the deadline follows it", () => {
	expect(readBridgeSettings(readEnv({}), 60_000).callTimeoutMs).toBe(60_000);
});

test("bridge tool-call ids: cursor-pi-bridge-<32 hex run id>-t<n>, at most 64 characters", () => {
	const runId = newBridgeRunId();
	expect(runId).toMatch(/^[0-9a-f]{32}$/);
	expect(newBridgeRunId()).not.toBe(runId);
	expect(bridgeToolCallId(runId, 1)).toBe(`cursor-pi-bridge-${runId}-t1`);
	const big = bridgeToolCallId(runId, 9_999_999_999_999);
	expect(big.length).toBeLessThanOrEqual(64);
	expect(isBridgeToolCallId(big)).toBe(true);
	expect(isBridgeToolCallId("call_123")).toBe(false);
	expect(isBridgeToolCallId(`cursor-pi-bridge-${runId}-t0`)).toBe(false);
	expect(() => bridgeToolCallId("not-hex", 1)).toThrow();
	expect(() => bridgeToolCallId(runId, 0)).toThrow();
	expect(() => bridgeToolCallId(runId, 10_000_000_000_000)).toThrow();
});

test("path tokens are long, URL-safe and never repeat", () => {
	const tokens = new Set(Array.from({ length: 100 }, newPathToken));
	expect(tokens.size).toBe(100);
	for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
});
