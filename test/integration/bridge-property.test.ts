// The bridge's HTTP surface under generated requests (the MCP server on a real loopback socket): a wrong token, Host,
// Origin, method, content type or session, a huge or malformed JSON-RPC body, an unknown or hidden tool, or a call
// after the run ended never reaches Pi's tools; no response and no debug line shows the token or the URL; and the
// legitimate client keeps working throughout.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Type } from "typebox";
import type { BridgeCall } from "../../src/bridge/calls.ts";
import { type BridgeServer, startBridgeServer } from "../../src/bridge/server.ts";
import { buildBridgeSurface } from "../../src/bridge/snapshot.ts";
import { rawRequest, TestMcpClient } from "../support/mcp-client.ts";
import { anyJson, fc, nastyString, PropertyTarget } from "../support/property.ts";

const target = new PropertyTarget("bridge-http");
const surface = buildBridgeSurface(
	["echo", "read"],
	[
		{ name: "echo", description: "Echo.", parameters: Type.Object({ msg: Type.String() }) },
		{ name: "read", description: "Pi's read (hidden: a built-in).", parameters: Type.Object({ path: Type.String() }) },
	],
);

const calls: BridgeCall[] = [];
const debug: string[] = [];
let server: BridgeServer;
let url: string;
let token: string;
let port: number;
let client: TestMcpClient;

beforeAll(async () => {
	server = await startBridgeServer({
		surface,
		handler: async (call) => {
			calls.push(call);
			return { content: [{ type: "text", text: "echoed" }] };
		},
		callTimeoutMs: 10_000,
		debug: (line) => debug.push(line),
		maxSessions: 4,
	});
	const entry = server.mcpServers.pi_tools;
	url = entry && "url" in entry ? entry.url : "";
	token = url.split("/")[3] ?? "";
	port = server.address().port;
	client = await TestMcpClient.connect(url);
});
afterAll(async () => {
	target.report();
	await server?.close();
});

const callBody = (name: string, id: unknown = 7) =>
	({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: { msg: "hi" } } }) as const;

/** Each part of a request, with whether it is what a legitimate client sends (`ok`). */
const part = <T>(ok: T[], bad: fc.Arbitrary<T>) =>
	fc.oneof(
		{ weight: 3, arbitrary: fc.constantFrom(...ok).map((value) => ({ value, ok: true })) },
		{ weight: 1, arbitrary: bad.map((value) => ({ value, ok: false })) },
	);

const requestArb = fc.record({
	path: part(
		["exact", "exact?x=1", "dot-segment"], // `/x/../<token>/mcp` is the same URL once normalised
		fc.constantFrom("none", "root", "wrong", "truncated", "suffix", "slash", "upper", "double-slash"),
	),
	host: part(
		["127.0.0.1:PORT", "localhost:PORT"],
		fc.constantFrom("evil.example", "127.0.0.1.evil.test:PORT", "attacker.test:PORT", "example.com:PORT"),
	),
	origin: part<string | undefined>(
		[undefined, "http://localhost:3000", "http://127.0.0.1"],
		fc.constantFrom("https://evil.example", "null", "http://localhost.evil.com", "file://"),
	),
	method: part(["POST"], fc.constantFrom("GET", "PUT", "DELETE", "PATCH", "OPTIONS")),
	contentType: part(["application/json"], fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "")),
	accept: part(["application/json, text/event-stream"], fc.constantFrom("application/json", "*/*", "")),
	session: part(["valid"], fc.constantFrom("none", "bogus")),
	body: part<string>(
		[JSON.stringify(callBody("pi__echo")), JSON.stringify([callBody("pi__echo", 8)])],
		fc.oneof(
			fc.constantFrom("pi__read", "read", "pi__missing", "echo", "").map((name) => JSON.stringify(callBody(name))),
			nastyString,
			anyJson.map((value) => JSON.stringify(value)),
			fc.constantFrom(
				'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pi__echo"',
				'{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"pi__echo","arguments":{}}}',
				JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { name: "pi__echo", arguments: {} } }),
				JSON.stringify(Array.from({ length: 200 }, (_, i) => callBody("pi__missing", i))),
			),
			fc.nat({ max: 2 }).map((n) =>
				JSON.stringify({
					...callBody("pi__echo"),
					params: { name: "pi__echo", arguments: { msg: "x".repeat((5 + n) * 1024 * 1024) } },
				}),
			),
		),
	),
});
type Generated = typeof requestArb extends fc.Arbitrary<infer T> ? T : never;

function pathOf(kind: string): string {
	const exact = `/${token}/mcp`;
	switch (kind) {
		case "exact":
			return exact;
		case "exact?x=1":
			return `${exact}?x=1`;
		case "none":
			return "/mcp";
		case "root":
			return "/";
		case "wrong":
			return `/${"A".repeat(token.length)}/mcp`;
		case "truncated":
			return `/${token.slice(0, -1)}/mcp`;
		case "suffix":
			return `${exact}x`;
		case "slash":
			return `${exact}/`;
		case "upper":
			return `/${token.toUpperCase()}/mcp`;
		case "dot-segment":
			return `/x/../${token}/mcp`;
		default:
			return `//${token}/mcp`;
	}
}

/** Whether a response shows the secret address (the token, or the URL in any form). */
const leaks = (text: string) => text.includes(token) || text.includes(url) || text.includes(`:${port}/`);

async function send(request: Generated) {
	const headers: Record<string, string> = {
		host: request.host.value.replace("PORT", String(port)),
		"mcp-protocol-version": "2025-06-18",
	};
	if (request.origin.value !== undefined) headers.origin = request.origin.value;
	if (request.contentType.value) headers["content-type"] = request.contentType.value;
	if (request.accept.value) headers.accept = request.accept.value;
	if (request.session.value === "valid") headers["mcp-session-id"] = client.sessionId;
	if (request.session.value === "bogus") headers["mcp-session-id"] = "bogus-session";
	const withBody = request.method.value !== "GET" && request.method.value !== "OPTIONS";
	return rawRequest(`http://127.0.0.1:${port}${pathOf(request.path.value)}`, {
		method: request.method.value,
		headers,
		...(withBody ? { body: request.body.value } : {}),
		untilBody: /"id":\s*[78][,}]/,
		signal: AbortSignal.timeout(500), // a GET on a valid session opens an event stream that stays open
	}).catch((error: Error) => ({ status: -1, headers: {}, body: error.message }));
}

test("generated requests: only a fully legitimate call reaches Pi's tool; nothing shows the token or the URL", async () => {
	await target.check(
		fc.asyncProperty(requestArb, async (request) => {
			const before = calls.length;
			const response = await send(request);
			const legitimate = Object.values(request).every((p) => p.ok);
			if (!legitimate) expect({ reached: calls.length - before, response }).toMatchObject({ reached: 0 });
			expect(leaks(`${response.status} ${JSON.stringify(response.headers)} ${response.body}`)).toBe(false);
			// A DELETE with the right token and session is the client ending its session: start a new one.
			if (server.sessionCount() === 0) client = await TestMcpClient.connect(url);
		}),
		400,
	);
	// The legitimate client still works, and the calls that reached Pi were exactly the legitimate ones' tool.
	expect((await client.callTool("pi__echo", { msg: "still here" }).result).content).toEqual([
		{ type: "text", text: "echoed" },
	]);
	expect(new Set(calls.map((c) => c.piName))).toEqual(new Set(["echo"]));
	expect(debug.some(leaks)).toBe(false);
});

test("after the run ended (bridge closed), no request reaches Pi's tools", async () => {
	const ended = await startBridgeServer({
		surface,
		handler: async (call) => {
			calls.push(call);
			return { content: [{ type: "text", text: "late" }] };
		},
		callTimeoutMs: 10_000,
	});
	const entry = ended.mcpServers.pi_tools;
	const endedUrl = entry && "url" in entry ? entry.url : "";
	const endedClient = await TestMcpClient.connect(endedUrl);
	const pending = endedClient.callTool("pi__echo", { msg: "queued" }).result.catch(() => undefined);
	await ended.close();
	const before = calls.length;
	await target.check(
		fc.asyncProperty(fc.constantFrom("pi__echo", "pi__read", "pi__missing"), async (name) => {
			const result = await endedClient
				.callTool(name, { msg: "after" })
				.result.then(() => "answered")
				.catch(() => "refused");
			expect(result).toBe("refused");
		}),
		30,
	);
	expect(calls.length).toBe(before);
	await pending;
});
