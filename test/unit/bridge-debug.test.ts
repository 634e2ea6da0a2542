import { expect, test } from "bun:test";
import { createBridgeDebugSink, formatBridgeDebugRecord } from "../../src/bridge/debug.ts";

const RUN = "0123456789abcdef0123456789abcdef";

test("a record is one prefixed JSON line of allowlisted fields", () => {
	const lines: string[] = [];
	const sink = createBridgeDebugSink(true, (line) => lines.push(line));
	sink({
		event: "call_resolved",
		runId: RUN,
		tool: "web_search",
		mcpName: "pi__web_search",
		pending: 0,
		durationMs: 12.4,
		isError: false,
	});
	expect(lines).toHaveLength(1);
	expect(lines[0]).toEndWith("\n");
	expect(lines[0]?.split("\n")).toHaveLength(2);
	expect(lines[0]).toStartWith("[pi-cursor-sdk:bridge] ");
	expect(JSON.parse(lines[0]?.slice("[pi-cursor-sdk:bridge] ".length) ?? "")).toEqual({
		event: "call_resolved",
		runId: RUN,
		tool: "web_search",
		mcpName: "pi__web_search",
		pending: 0,
		durationMs: 12,
		isError: false,
	});
});

test("off by default: nothing is written", () => {
	const lines: string[] = [];
	createBridgeDebugSink(false, (line) => lines.push(line))({ event: "server_started", runId: RUN });
	expect(lines).toEqual([]);
});

test.each([
	["a URL", "http://127.0.0.1:4444/SECRETTOKEN/mcp"],
	["a file path", "/home/user/.pi/agent/sessions/x.jsonl"],
	["arguments", '{"password":"hunter2"}'],
	["a multi-line value", "a\nb"],
])("text fields holding %s are redacted", (_name, value) => {
	const line = formatBridgeDebugRecord({ event: "call_failed", tool: value, reason: value }) ?? "";
	expect(line).not.toContain(value);
	expect(line).toContain('"tool":"[redacted]"');
});

test("fields outside the allowlist never reach the output", () => {
	const record = {
		event: "call_queued",
		tool: "x",
		args: { secret: "s3cr3t" },
		result: "file contents",
		url: "http://x",
	};
	const line = formatBridgeDebugRecord(record as never) ?? "";
	expect(line).not.toMatch(/s3cr3t|file contents|http/);
});

test("MCP request ids are hashed", () => {
	const line = formatBridgeDebugRecord({ event: "call_queued", mcpRequestId: 7 }) ?? "";
	expect(line).toMatch(/"mcpRequestId":"[0-9a-f]{12}"/);
	expect(line).not.toContain('"mcpRequestId":7');
});

test("a line that would contain a registered secret is dropped", () => {
	const token = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde";
	expect(formatBridgeDebugRecord({ event: "call_queued", tool: token }, [token])).toBeUndefined();
	const lines: string[] = [];
	createBridgeDebugSink(
		true,
		(line) => lines.push(line),
		() => [token],
	)({ event: "call_queued", callId: token });
	expect(lines).toEqual([]);
});
