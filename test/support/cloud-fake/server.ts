// The cloud fake's HTTP server (node:http, loopback only): Cursor's cloud REST API and its SSE run stream as
// @cursor/sdk 1.0.32 uses them (docs: fake-cursor-backend-protocol.md §4.1), plus the /__fake/ control API.

import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { cut, header, readBody } from "../fake-backend/server.ts";
import { CONTROL_PREFIX, controlReply } from "./control.ts";
import { CloudFakeState, type CloudRoute, type FakeAgent, type FakeRun, type Fault } from "./state.ts";

export interface CloudFakeServer {
	url: string;
	state: CloudFakeState;
	close(): Promise<void>;
}

interface Reply {
	status: number;
	body?: unknown;
	contentType?: string;
}

const CUT_DELAY_MS = 100;

export function errorBody(code: string, message: string) {
	return { error: { code, message } };
}

const CODE_FOR_STATUS: Record<number, string> = {
	401: "unauthorized",
	403: "forbidden",
	404: "not_found",
	409: "conflict",
	429: "rate_limited",
};

function faultReply(fault: Fault): Reply {
	const status = fault.status ?? 500;
	const code = fault.code ?? CODE_FOR_STATUS[status] ?? "internal";
	return { status, body: errorBody(code, fault.message ?? `cloud fake: HTTP ${status}`) };
}

/** Which route a request is, with its ids. */
function routeOf(method: string, path: string): { route: CloudRoute; agentId?: string; runId?: string } {
	if (method === "POST" && path === "/auth/exchange_user_api_key") return { route: "exchange" };
	if (method === "POST" && /^\/(aiserver|agent)\.v1\.[A-Za-z]+\/[A-Za-z]+$/.test(path)) return { route: "rpc" };
	if (method === "GET" && path === "/v1/models") return { route: "models" };
	if (path === "/v1/agents") return { route: method === "POST" ? "create" : method === "GET" ? "list" : "unknown" };
	const files = /^\/(v1\/agents|__blob)\/([^/]+)\/artifacts(\/download)?$/.exec(path);
	if (files && method === "GET") {
		const agentId = decodeURIComponent(files[2] ?? "");
		if (files[1] === "__blob") return { route: "download", agentId };
		return { route: files[3] ? "artifactUrl" : "artifacts", agentId };
	}
	const match = /^\/v1\/agents\/([^/]+)(?:\/(archive|unarchive|usage|runs)(?:\/([^/]+)(?:\/(stream|cancel))?)?)?$/.exec(
		path,
	);
	if (!match) return { route: "unknown" };
	const [, rawAgent, part, rawRun, action] = match;
	const agentId = decodeURIComponent(rawAgent ?? "");
	const runId = rawRun ? decodeURIComponent(rawRun) : undefined;
	const ids = { agentId, ...(runId ? { runId } : {}) };
	if (!part) {
		if (method === "GET") return { route: "get", ...ids };
		if (method === "DELETE") return { route: "delete", ...ids };
		return { route: "unknown", ...ids };
	}
	if (part === "archive" || part === "unarchive") return { route: method === "POST" ? part : "unknown", ...ids };
	if (part === "usage") return { route: "usage", ...ids };
	if (!runId) return { route: method === "POST" ? "followup" : method === "GET" ? "listRuns" : "unknown", ...ids };
	if (action === "stream") return { route: "stream", ...ids };
	if (action === "cancel") return { route: method === "POST" ? "cancel" : "unknown", ...ids };
	return { route: method === "GET" ? "getRun" : "unknown", ...ids };
}

function v1Agent(agent: FakeAgent) {
	return {
		id: agent.id,
		...(agent.name !== undefined ? { name: agent.name } : {}),
		status: agent.status,
		...(agent.env !== undefined ? { env: agent.env } : {}),
		repos: agent.repos,
		url: `https://cursor.com/agents?id=${agent.id}`,
		createdAt: agent.createdAt,
		updatedAt: agent.updatedAt,
		...(agent.latestRunId ? { latestRunId: agent.latestRunId } : {}),
	};
}

export function v1Run(run: FakeRun) {
	return {
		id: run.id,
		agentId: run.agentId,
		status: run.status,
		createdAt: run.createdAt,
		updatedAt: run.updatedAt,
		...(run.result !== undefined ? { result: run.result } : {}),
		...(run.error ? { error: run.error } : {}),
		...(run.git ? { git: run.git } : {}),
		...(run.durationMs !== undefined ? { durationMs: run.durationMs } : {}),
	};
}

function promptText(body: unknown): string {
	const prompt = (body as { prompt?: { text?: unknown } } | undefined)?.prompt;
	return typeof prompt?.text === "string" ? prompt.text : "";
}

function parseJson(text: string): unknown {
	if (!text.trim()) return undefined;
	try {
		return JSON.parse(text);
	} catch {
		return { unparsable: text };
	}
}

/** Answers one REST request (everything but the stream). */
function restReply(
	state: CloudFakeState,
	route: CloudRoute,
	ids: { agentId?: string; runId?: string },
	body: unknown,
	query: URLSearchParams,
	baseUrl: string,
): Reply {
	const notFound = (what: string) => ({ status: 404, body: errorBody("not_found", `${what} not found`) });
	const agent = ids.agentId ? state.agents.get(ids.agentId) : undefined;
	const run = ids.runId ? state.runs.get(ids.runId) : undefined;
	switch (route) {
		case "exchange":
			return { status: 200, body: { accessToken: "cloud-fake-access-token" } };
		case "rpc":
			return { status: 200, contentType: "application/proto", body: "" };
		case "models":
			return { status: 200, body: { items: [{ id: "composer-2", displayName: "Composer 2" }, { id: "fake-model" }] } };
		case "create": {
			const request = (body ?? {}) as {
				agentId?: string;
				name?: string;
				env?: unknown;
				repos?: { url: string; startingRef?: string }[];
			};
			const id = request.agentId ?? `bc-${randomUUID()}`;
			if (state.agents.has(id)) return { status: 409, body: errorBody("agent_id_conflict", "agent id already exists") };
			const created = state.addAgent({
				id,
				...(request.name !== undefined ? { name: request.name } : {}),
				status: "ACTIVE",
				env: request.env,
				repos: request.repos ?? [],
				createBody: body,
			});
			const started = state.startRun(created, promptText(body));
			return { status: 200, body: { agent: v1Agent(created), run: v1Run(started) } };
		}
		case "followup": {
			if (!agent) return notFound("agent");
			if (state.activeRun(agent))
				return { status: 409, body: errorBody("agent_busy", "Agent is busy with another run") };
			return { status: 200, body: { run: v1Run(state.startRun(agent, promptText(body))) } };
		}
		case "getRun":
			return run && run.agentId === ids.agentId ? { status: 200, body: v1Run(run) } : notFound("run");
		case "listRuns":
			if (!agent) return notFound("agent");
			return {
				status: 200,
				body: {
					items: agent.runIds.flatMap((id) => {
						const r = state.runs.get(id);
						return r ? [v1Run(r)] : [];
					}),
				},
			};
		case "cancel":
			if (!run || run.agentId !== ids.agentId) return notFound("run");
			state.cancel(run);
			return { status: 200, body: {} };
		case "list": {
			const includeArchived = query.get("includeArchived") === "true";
			const all = [...state.agents.values()].filter((a) => includeArchived || a.status !== "ARCHIVED");
			const start = Number(query.get("cursor") ?? 0) || 0;
			const limit = Number(query.get("limit") ?? 0) || all.length;
			const page = all.slice(start, start + limit);
			const next = start + limit < all.length ? { nextCursor: String(start + limit) } : {};
			return { status: 200, body: { items: page.map(v1Agent), ...next } };
		}
		case "get":
			return agent ? { status: 200, body: v1Agent(agent) } : notFound("agent");
		case "archive":
		case "unarchive":
			if (!agent) return notFound("agent");
			agent.status = route === "archive" ? "ARCHIVED" : "ACTIVE";
			agent.updatedAt = new Date().toISOString();
			return { status: 200, body: {} };
		case "delete":
			if (!agent) return notFound("agent");
			state.agents.delete(agent.id);
			return { status: 200, body: {} };
		case "artifacts":
			if (!agent) return notFound("agent");
			return {
				status: 200,
				body: {
					items: agent.artifacts.map((a) => ({
						path: a.path,
						sizeBytes: Buffer.byteLength(a.content),
						updatedAt: a.updatedAt,
					})),
				},
			};
		case "artifactUrl":
		case "download": {
			const path = query.get("path") ?? "";
			const file = agent?.artifacts.find((a) => a.path === path);
			if (!agent || !file) return notFound("artifact");
			if (route === "download") return { status: 200, contentType: "application/octet-stream", body: file.content };
			const url = `${baseUrl}/__blob/${encodeURIComponent(agent.id)}/artifacts?path=${encodeURIComponent(path)}`;
			return { status: 200, body: { url, expiresAt: new Date(Date.now() + 3_600_000).toISOString() } };
		}
		case "usage":
			return {
				status: 200,
				body: {
					totalUsage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, totalTokens: 0 },
					runs: [],
				},
			};
		default:
			return notFound("route");
	}
}

function writeReply(res: ServerResponse, reply: Reply): void {
	const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body ?? {});
	res.writeHead(reply.status, {
		"content-type": reply.contentType ?? "application/json",
		"content-length": Buffer.byteLength(text),
	});
	res.end(text);
}

function sseFrame(event: { id?: string; event: string; data: unknown }): string {
	return `${event.id !== undefined ? `id: ${event.id}\n` : ""}event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/**
 * The run stream: replays the run's events after `Last-Event-ID`, then follows the run until it is produced. The
 * scenario's `cutAfter` drops the run's first connection after that many events.
 */
function serveStream(state: CloudFakeState, req: IncomingMessage, res: ServerResponse, run: FakeRun): void {
	run.connections++;
	const connection = run.connections;
	const lastEventId = header(req, "last-event-id");
	let next = 0;
	if (lastEventId !== undefined) {
		const index = run.events.findLastIndex((e) => e.id === lastEventId);
		next = index + 1;
	}
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
	res.flushHeaders();
	let sent = 0;
	let closed = false;
	const abort = () => cut(res);
	state.openResponses.add(abort);
	const pump = () => {
		if (closed) return;
		while (next < run.events.length) {
			const event = run.events[next++];
			if (!event) continue;
			sent++;
			if (connection === 1 && run.scenario.cutAfter !== undefined && sent >= run.scenario.cutAfter) {
				// Let the client read what it got before the connection drops.
				closed = true;
				res.write(sseFrame(event), () => setTimeout(() => cut(res), CUT_DELAY_MS));
				return;
			}
			res.write(sseFrame(event));
		}
		if (run.produced) {
			closed = true;
			res.end();
		}
	};
	const unsubscribe = state.subscribe(run, pump);
	res.on("close", () => {
		closed = true;
		unsubscribe();
		state.openResponses.delete(abort);
	});
	pump();
}

/** What the local fake answers when the cloud fake forwards (everything but the cloud REST routes and the stream). */
const LOCAL_ROUTES: ReadonlySet<CloudRoute> = new Set(["exchange", "rpc", "models", "unknown"]);
const HOP_BY_HOP = ["connection", "keep-alive", "transfer-encoding", "content-length", "host"];

/** Sends the request on to `base` and streams its answer back as it comes (a local RunSSE streams for minutes). */
function forward(
	state: CloudFakeState,
	req: IncomingMessage,
	res: ServerResponse,
	body: Uint8Array,
	base: string,
	entry: { status?: number },
): void {
	const target = new URL(req.url ?? "/", base);
	const headers: OutgoingHttpHeaders = { ...req.headers, "content-length": body.length };
	for (const name of HOP_BY_HOP.slice(0, 3)) delete headers[name];
	delete headers.host;
	const upstream = request(target, { method: req.method ?? "GET", headers, agent: false }, (answer) => {
		entry.status = answer.statusCode;
		const back: OutgoingHttpHeaders = { ...answer.headers };
		for (const name of HOP_BY_HOP) delete back[name];
		res.writeHead(answer.statusCode ?? 502, back);
		res.flushHeaders();
		answer.on("data", (chunk: Buffer) => res.write(chunk));
		answer.on("end", () => res.end());
		answer.on("error", () => cut(res));
	});
	const abort = () => {
		upstream.destroy();
		cut(res);
	};
	state.openResponses.add(abort);
	upstream.on("error", () =>
		res.headersSent ? cut(res) : writeReply(res, { status: 502, body: errorBody("internal", "forward failed") }),
	);
	res.on("close", () => {
		state.openResponses.delete(abort);
		if (!res.writableFinished) upstream.destroy();
	});
	upstream.end(body);
}

async function handle(state: CloudFakeState, req: IncomingMessage, res: ServerResponse): Promise<void> {
	const method = req.method ?? "GET";
	const url = new URL(req.url ?? "/", "http://127.0.0.1");
	const bytes = await readBody(req);
	const text = new TextDecoder().decode(bytes);
	if (url.pathname.startsWith(CONTROL_PREFIX)) {
		writeReply(res, controlReply(state, method, url.pathname, text));
		return;
	}
	const { route, ...ids } = routeOf(method, url.pathname);
	if (state.forwardUrl && LOCAL_ROUTES.has(route)) {
		const entry = { seq: state.nextSeq(), at: Date.now(), method, path: url.pathname, query: url.search, route };
		state.requestLog.push({ ...entry, bearer: null, forwarded: true });
		forward(state, req, res, bytes, state.forwardUrl, state.requestLog.at(-1) as { status?: number });
		return;
	}
	const authorization = header(req, "authorization");
	const bearer = authorization ? (/^Bearer\s+(.*)$/i.exec(authorization)?.[1] ?? authorization) : null;
	const body = route === "rpc" ? undefined : parseJson(text);
	const lastEventId = header(req, "last-event-id");
	const idempotencyKey = header(req, "idempotency-key");
	const entry = {
		seq: state.nextSeq(),
		at: Date.now(),
		method,
		path: url.pathname,
		query: url.search,
		route,
		...ids,
		bearer,
		...(lastEventId !== undefined ? { lastEventId } : {}),
		...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
		...(body !== undefined ? { body } : {}),
	};
	state.requestLog.push(entry);
	const answer = (reply: Reply) => {
		Object.assign(entry, { status: reply.status });
		writeReply(res, reply);
	};

	const fault = state.takeFault(route);
	if (fault?.hang) {
		const abort = () => cut(res);
		state.openResponses.add(abort);
		res.on("close", () => state.openResponses.delete(abort));
		return;
	}
	if (fault?.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
	if (fault?.status) {
		answer(faultReply(fault));
		return;
	}
	// The download URL is pre-signed (fetched without the key), like Cursor's.
	const restRoute = route !== "exchange" && route !== "rpc" && route !== "models" && route !== "download";
	if (restRoute && state.apiKeys && (!bearer || !state.apiKeys.includes(bearer))) {
		answer({ status: 401, body: errorBody("unauthorized", "Invalid API key (cloud fake)") });
		return;
	}
	if (route === "stream") {
		const run = ids.runId ? state.runs.get(ids.runId) : undefined;
		if (!run || run.agentId !== ids.agentId) {
			answer({ status: 404, body: errorBody("not_found", "run not found") });
			return;
		}
		Object.assign(entry, { status: 200 });
		serveStream(state, req, res, run);
		return;
	}
	answer(restReply(state, route, ids, body, url.searchParams, `http://${header(req, "host") ?? "127.0.0.1"}`));
}

/** Starts the cloud fake on 127.0.0.1 (any free port). */
export function startCloudFakeServer(options: { state?: CloudFakeState } = {}): Promise<CloudFakeServer> {
	const state = options.state ?? new CloudFakeState();
	const server = createServer((req, res) => {
		handle(state, req, res).catch((error: unknown) => {
			if (!res.headersSent) writeReply(res, { status: 500, body: errorBody("internal", String(error)) });
			else res.destroy();
		});
	});
	server.keepAliveTimeout = 1000;
	return new Promise((resolve, reject) => {
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const port = (server.address() as AddressInfo).port;
			resolve({
				url: `http://127.0.0.1:${port}`,
				state,
				close: () =>
					new Promise<void>((done) => {
						state.reset();
						server.close(() => done());
						server.closeAllConnections?.();
					}),
			});
		});
	});
}
