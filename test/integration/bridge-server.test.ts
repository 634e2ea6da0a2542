// The bridge's MCP server on a real socket, driven by a raw MCP client (test/support/mcp-client.ts).
import { afterEach, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { Type } from "typebox";
import type { BridgeCall, BridgeCallHandler } from "../../src/bridge/calls.ts";
import { type BridgeServer, startBridgeServer } from "../../src/bridge/server.ts";
import { buildBridgeSurface } from "../../src/bridge/snapshot.ts";
import { rawRequest, TestMcpClient } from "../support/mcp-client.ts";

const surface = buildBridgeSurface(
	["echo", "slow", "read"],
	[
		{
			name: "echo",
			description: "Echo the message.",
			parameters: Type.Object({ msg: Type.String() }),
			promptGuidelines: ["Keep it short."],
		},
		{ name: "slow", description: "Waits until stopped.", parameters: Type.Object({}) },
		{ name: "read", description: "Pi's read", parameters: Type.Object({ path: Type.String() }) },
	],
);

const echo: BridgeCallHandler = async (call) => ({
	content: [{ type: "text", text: `echo:${String(call.args.msg)}` }],
});

const servers: BridgeServer[] = [];
afterEach(async () => {
	await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(
	handler: BridgeCallHandler = echo,
	extra: { callTimeoutMs?: number; debug?: (line: string) => void } = {},
) {
	const server = await startBridgeServer({
		surface,
		handler,
		callTimeoutMs: extra.callTimeoutMs ?? 60_000,
		...(extra.debug ? { debug: extra.debug } : {}),
	});
	servers.push(server);
	const entry = server.mcpServers.pi_tools;
	const url = entry && "url" in entry ? entry.url : "";
	return { server, url };
}

const initializeBody = JSON.stringify({
	jsonrpc: "2.0",
	id: 0,
	method: "initialize",
	params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});
const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };

function portRefuses(host: string, port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = connect({ host, port });
		socket.once("connect", () => {
			socket.destroy();
			resolve(false);
		});
		socket.once("error", () => resolve(true));
	});
}

describe("security", () => {
	test("listens on 127.0.0.1 only, on a random port, and hands the SDK an http entry", async () => {
		const { server, url } = await start();
		const address = server.address();
		expect(address.address).toBe("127.0.0.1");
		expect(address.family).toBe("IPv4");
		expect(address.port).toBeGreaterThan(0);
		expect(server.mcpServers).toEqual({ pi_tools: { type: "http", url } });
		expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${address.port}/[A-Za-z0-9_-]{43}/mcp$`));
		const other = await start();
		expect(other.server.address().port).not.toBe(address.port);
		expect(other.url.split("/")[3]).not.toBe(url.split("/")[3]);
		expect(await portRefuses("::1", address.port)).toBe(true);
		const external = Object.values(networkInterfaces())
			.flat()
			.find((net) => net && net.family === "IPv4" && !net.internal);
		if (external) expect(await portRefuses(external.address, address.port)).toBe(true);
	});

	test.each([
		["no token", (url: string) => url.replace(/\/[^/]+\/mcp$/, "/mcp")],
		["the root path", (url: string) => url.replace(/\/[^/]+\/mcp$/, "/")],
		["a wrong token", (url: string) => url.replace(/\/[^/]+\/mcp$/, `/${"A".repeat(43)}/mcp`)],
		["a truncated token", (url: string) => url.replace(/.\/mcp$/, "/mcp")],
		["a token with a suffix", (url: string) => `${url}x`],
	])("%s: 404 and no session", async (_name, mangle) => {
		const { server, url } = await start();
		const response = await rawRequest(mangle(url), { headers: mcpHeaders, body: initializeBody });
		expect(response.status).toBe(404);
		expect(response.headers["mcp-session-id"]).toBeUndefined();
		expect(server.sessionCount()).toBe(0);
	});

	test.each([
		["a foreign Host", { host: "evil.example" }],
		["a rebinding Host on our port", { host: "attacker.test:1234" }],
		["a foreign Origin", { origin: "https://evil.example" }],
		["an opaque Origin", { origin: "null" }],
	])("%s is rejected with 403 even with the right token", async (_name, headers) => {
		const { server, url } = await start();
		const response = await rawRequest(url, { headers: { ...mcpHeaders, ...headers }, body: initializeBody });
		expect(response.status).toBe(403);
		expect(server.sessionCount()).toBe(0);
	});

	test("the right token from a local client works (a localhost Origin is fine)", async () => {
		const { server, url } = await start();
		const client = await TestMcpClient.connect(url, { origin: "http://localhost:3000" });
		expect(client.sessionId).toBeTruthy();
		expect(server.sessionCount()).toBe(1);
	});

	test("an unknown session id is refused", async () => {
		const { url } = await start();
		const response = await rawRequest(url, {
			headers: { ...mcpHeaders, "mcp-session-id": "not-a-session" },
			body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
		});
		expect(response.status).toBe(404);
	});

	test("debug output traces the session without the token, the URL or the call's data", async () => {
		const lines: string[] = [];
		const { url } = await start(echo, { debug: (line) => lines.push(line) });
		const client = await TestMcpClient.connect(url);
		await client.listTools();
		await client.callTool("pi__echo", { msg: "PRIVATE-ARG" }).result;
		await rawRequest(url.replace(/\/[^/]+\/mcp$/, "/nope/mcp"), { headers: mcpHeaders, body: initializeBody });
		const output = lines.join("");
		const token = url.split("/")[3] ?? "";
		expect(token.length).toBe(43);
		for (const secret of [token, url, "127.0.0.1", "http", "PRIVATE-ARG", "echo:"])
			expect(output).not.toContain(secret);
		const events = lines.map((line) => JSON.parse(line.replace("[pi-cursor-sdk:bridge] ", "")).event);
		expect(events).toEqual(
			expect.arrayContaining([
				"server_started",
				"mcp_initialized",
				"mcp_tools_list",
				"call_queued",
				"call_resolved",
				"request_rejected",
			]),
		);
		expect(lines.every((line) => line.startsWith("[pi-cursor-sdk:bridge] {") && line.endsWith("}\n"))).toBe(true);
	});
});

describe("tools", () => {
	test("tools/list serves the surface: pi__ names, JSON schemas, descriptions with guidelines", async () => {
		const { url } = await start();
		const client = await TestMcpClient.connect(url);
		const tools = await client.listTools();
		expect(tools.map((t) => t.name)).toEqual(["pi__echo", "pi__slow"]);
		expect(tools[0]?.inputSchema).toEqual({
			type: "object",
			properties: { msg: { type: "string" } },
			required: ["msg"],
		});
		expect(tools[0]?.description).toContain("Echo the message.");
		expect(tools[0]?.description).toContain("- Keep it short.");
	});

	test("tools/call reaches the handler with the real Pi name, the MCP name, the arguments and a bridge id", async () => {
		const seen: BridgeCall[] = [];
		const { server, url } = await start(async (call) => {
			seen.push(call);
			return echo(call);
		});
		const client = await TestMcpClient.connect(url);
		const result = await client.callTool("pi__echo", { msg: "hi" }).result;
		expect(result).toEqual({ content: [{ type: "text", text: "echo:hi" }], isError: false });
		expect(seen.map((c) => [c.piName, c.mcpName, c.args, c.toolCallId])).toEqual([
			["echo", "pi__echo", { msg: "hi" }, `cursor-pi-bridge-${server.runId}-t1`],
		]);
		expect(server.pendingCalls()).toBe(0);
	});

	test("a name outside the surface gets an error result and never reaches the handler", async () => {
		let called = false;
		const { url } = await start(async (call) => {
			called = true;
			return echo(call);
		});
		const client = await TestMcpClient.connect(url);
		for (const name of ["pi__read", "read", "pi__nope"]) {
			const result = await client.callTool(name, {}).result;
			expect(result.isError).toBe(true);
		}
		expect(called).toBe(false);
	});

	test("50 concurrent calls from two sessions each resolve with their own result", async () => {
		const order: number[] = [];
		const { server, url } = await start(async (call) => {
			order.push(Number(call.args.msg));
			await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
			return echo(call);
		});
		const clients = [await TestMcpClient.connect(url), await TestMcpClient.connect(url)];
		const calls = Array.from({ length: 50 }, (_, n) => clients[n % 2]?.callTool("pi__echo", { msg: String(n) }).result);
		const results = await Promise.all(calls);
		expect(results.map((r) => r?.content[0]?.text)).toEqual(Array.from({ length: 50 }, (_, n) => `echo:${n}`));
		expect(new Set(order).size).toBe(50);
		expect(server.pendingCalls()).toBe(0);
	});
});

describe("deadline, cancellation and close", () => {
	/** A handler that never finishes on its own; records each call's signal. */
	function stuckHandler() {
		const signals: AbortSignal[] = [];
		const handler: BridgeCallHandler = (call) => {
			signals.push(call.signal);
			return new Promise(() => {});
		};
		return { signals, handler };
	}

	test("a call past the deadline fails cleanly and its handler is aborted", async () => {
		const { signals, handler } = stuckHandler();
		const { server, url } = await start(handler, { callTimeoutMs: 150 });
		const client = await TestMcpClient.connect(url);
		const started = Date.now();
		const result = await client.callTool("pi__slow", {}).result;
		expect(Date.now() - started).toBeLessThan(5_000);
		expect(result.isError).toBe(true);
		expect(result.content[0]?.text).toContain("did not finish within 150 ms");
		expect(signals).toHaveLength(1);
		expect(signals[0]?.aborted).toBe(true);
		expect(server.pendingCalls()).toBe(0);
	});

	test("MCP cancellation aborts the running handler and clears the call", async () => {
		const { signals, handler } = stuckHandler();
		const { server, url } = await start(handler);
		const client = await TestMcpClient.connect(url);
		const call = client.callTool("pi__slow", {});
		const queued = client.callTool("pi__slow", {});
		// A cancelled request gets no answer: its response stream just ends.
		for (const c of [call, queued]) c.result.catch(() => {});
		while (signals.length === 0 || server.pendingCalls() < 2) await new Promise((resolve) => setTimeout(resolve, 5));
		await queued.cancel();
		await call.cancel();
		while (server.pendingCalls() > 0) await new Promise((resolve) => setTimeout(resolve, 5));
		expect(signals[0]?.aborted).toBe(true);
		// The cancelled queued call never reached the handler.
		expect(signals).toHaveLength(1);
	});

	test("close aborts running calls, settles pending ones and closes the port", async () => {
		const { signals, handler } = stuckHandler();
		const { server, url } = await start(handler);
		const port = server.address().port;
		const client = await TestMcpClient.connect(url);
		const running = client.callTool("pi__slow", {}).result.catch((error: unknown) => error);
		client.callTool("pi__slow", {}).result.catch(() => {});
		while (signals.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
		await server.close();
		expect(server.closed).toBe(true);
		expect(signals[0]?.aborted).toBe(true);
		expect(server.pendingCalls()).toBe(0);
		expect(server.sessionCount()).toBe(0);
		expect(await portRefuses("127.0.0.1", port)).toBe(true);
		await running;
		await server.close();
	});
});
