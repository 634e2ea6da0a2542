// One MCP (streamable HTTP) server per live Cursor run, serving the bridge surface to the SDK's MCP client.
//
// Security: bound to 127.0.0.1 on a random port; every request must carry the unguessable path token (compared in
// constant time) and pass Host and Origin validation (DNS rebinding); nothing else is served. The token lives only
// in the URL handed to the SDK (`mcpServers`) and is never logged, stored or shown.
//
// Sessions: the SDK's client speaks the 2025 protocol with sessions; each `initialize` gets its own MCP `Server` and
// transport so that MCP cancellation (`notifications/cancelled`) reaches the right request. Calls from all
// sessions share one queue (src/bridge/calls.ts).
import { randomUUID, timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { CallToolResult, Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import type { McpServerConfig } from "../sdk/cursor-sdk.ts";
import type { BridgeToolResult } from "./calls.ts";
import { type BridgeDebugRecord, type BridgeDebugSink, createBridgeDebugSink } from "./debug.ts";
import { newBridgeRunId, newPathToken } from "./ids.ts";
import { mcpVendor } from "./mcp-vendor.ts";
import { type BridgeRun, type BridgeRunOptions, bridgeCallQueue, bridgeRunOver } from "./run.ts";
import { BRIDGE_SERVER_NAME, type BridgeTool } from "./snapshot.ts";

export interface BridgeServerOptions extends BridgeRunOptions {
	/** Most MCP sessions kept at once; the oldest is closed beyond it (default 8). */
	readonly maxSessions?: number;
}

export interface BridgeServer extends BridgeRun {
	/** The `mcpServers` option for `Agent.create`/`send`. Holds the secret URL: never log or persist it. */
	readonly mcpServers: Record<string, McpServerConfig>;
	/** The listening socket (127.0.0.1, random port). */
	address(): AddressInfo;
	/** Open MCP sessions. */
	sessionCount(): number;
}

const SERVER_INFO = { name: "pi-cursor-sdk-bridge", version: "1.0.0" };
/** SSE comment frames keep long calls (a Pi tool waiting for a human) alive through idle-connection timeouts. */
const KEEP_ALIVE_MS = 15_000;

interface Session {
	readonly transport: WebStandardStreamableHTTPServerTransport;
	readonly server: Server;
}

/** Evaluates the server's third-party code (src/bridge/mcp-vendor.ts) ahead of the first bridged run (a prewarm). */
export function loadBridgeCode(): void {
	mcpVendor();
}

export async function startBridgeServer(options: BridgeServerOptions): Promise<BridgeServer> {
	const vendor = mcpVendor();
	const { createAdaptorServer, Hono, localhostHostValidation, localhostOriginValidation } = vendor;
	const { Server, WebStandardStreamableHTTPServerTransport } = vendor;
	const runId = options.runId ?? newBridgeRunId();
	const token = newPathToken();
	const path = `/${token}/mcp`;
	const debug: BridgeDebugSink =
		options.debug === undefined || options.debug === false
			? () => {}
			: createBridgeDebugSink(true, options.debug === true ? undefined : options.debug, () => [token]);
	const log = (record: Omit<BridgeDebugRecord, "runId">) => debug({ ...record, runId });
	const tools = new Map(options.surface.tools.map((tool) => [tool.mcpName, tool]));
	const queue = bridgeCallQueue(options, runId, debug);
	const sessions = new Map<string, Session>();
	const maxSessions = Math.max(1, options.maxSessions ?? 8);
	let run: BridgeServer | undefined;

	const createSession = async (): Promise<Session> => {
		const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
		server.setRequestHandler("tools/list", () => {
			log({ event: "mcp_tools_list", toolCount: tools.size });
			return { tools: [...tools.values()].map(describeTool) };
		});
		server.setRequestHandler("tools/call", async (request, ctx) => {
			const tool = tools.get(request.params.name);
			if (!tool) return toCallToolResult(unknownToolResult(request.params.name));
			const args = isRecord(request.params.arguments) ? request.params.arguments : {};
			// MCP cancellation, or the client's connection going away (the SDK process died, the run was torn down).
			const disconnect = ctx.http?.req?.signal;
			const signal = disconnect ? AbortSignal.any([ctx.mcpReq.signal, disconnect]) : ctx.mcpReq.signal;
			return toCallToolResult(await queue.submit(tool, args, signal, ctx.mcpReq.id));
		});
		server.oninitialized = () => log({ event: "mcp_initialized" });
		const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
			sessionIdGenerator: () => randomUUID(),
			keepAliveMs: KEEP_ALIVE_MS,
			onsessioninitialized: (id) => {
				sessions.set(id, session);
				while (sessions.size > maxSessions) {
					const oldest = sessions.keys().next().value;
					if (oldest === undefined) break;
					void closeSession(oldest);
				}
			},
			onsessionclosed: (id) => {
				sessions.delete(id);
			},
		});
		const session: Session = { transport, server };
		await server.connect(transport);
		return session;
	};

	const closeSession = async (id: string) => {
		const session = sessions.get(id);
		sessions.delete(id);
		await session?.server.close().catch(() => {});
	};

	const refuse = (reason: string, status: number) => {
		log({ event: "request_rejected", reason });
		return new Response(null, { status });
	};

	const app = new Hono();
	// DNS-rebinding protection first (Hono middleware from the MCP SDK), then the token, then MCP.
	app.use("*", localhostHostValidation(), localhostOriginValidation());
	app.all("*", async (c) => {
		if (!sameText(c.req.path, path)) return refuse("token", 404);
		if (run?.closed) return refuse("closed", 503);
		const request = c.req.raw;
		const sessionId = request.headers.get("mcp-session-id");
		if (sessionId) {
			const session = sessions.get(sessionId);
			if (!session) return refuse("session", 404);
			return session.transport.handleRequest(request);
		}
		if (request.method !== "POST") return refuse("method", 405);
		const session = await createSession();
		const response = await session.transport.handleRequest(request);
		// Not an initialize (or a failed one): the instance served that one answer and goes.
		if (session.transport.sessionId === undefined) await session.server.close().catch(() => {});
		return response;
	});

	const http = createAdaptorServer({ fetch: app.fetch, overrideGlobalObjects: false, hostname: "127.0.0.1" });
	await new Promise<void>((resolve, reject) => {
		http.once("error", reject);
		http.listen(0, "127.0.0.1", () => {
			http.off("error", reject);
			resolve();
		});
	});
	const address = http.address() as AddressInfo;
	const url = `http://127.0.0.1:${address.port}${path}`;
	log({ event: "server_started", toolCount: tools.size });

	const mcpServers: Record<string, McpServerConfig> = { [BRIDGE_SERVER_NAME]: { type: "http", url } };
	const started: BridgeServer = bridgeRunOver(
		queue,
		{
			runId,
			sendOptions: { mcpServers },
			release: async () => {
				await Promise.all([...sessions.keys()].map(closeSession));
				await new Promise<void>((resolve) => {
					http.close(() => resolve());
					if ("closeAllConnections" in http) http.closeAllConnections();
				});
				log({ event: "server_closed" });
			},
		},
		{ mcpServers, address: () => ({ ...address }), sessionCount: () => sessions.size },
	);
	run = started;
	return started;
}

function describeTool(tool: BridgeTool) {
	return { name: tool.mcpName, description: tool.description, inputSchema: tool.inputSchema as never };
}

function toCallToolResult(result: BridgeToolResult): CallToolResult {
	return { content: result.content, isError: result.isError === true };
}

function unknownToolResult(name: string): BridgeToolResult {
	const shown = /^[A-Za-z0-9_-]{1,64}$/.test(name) ? name : "(invalid name)";
	return {
		content: [{ type: "text", text: `Unknown Pi tool "${shown}" (it is not exposed in this run).` }],
		isError: true,
	};
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Constant-time string comparison (the path carries the secret token). */
function sameText(a: string, b: string): boolean {
	const left = Buffer.from(a);
	const right = Buffer.from(b);
	return left.length === right.length && timingSafeEqual(left, right);
}
