// The fake Cursor backend HTTP server (node:http, loopback only). Routes REST, unary RPCs, RunSSE + BidiAppend
// and the /__fake/ control API. Runs in-process under Node or Bun; main.ts wraps it in its own process.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeMessage, type JsonObject } from "./codec.ts";
import { FLAG_DATA, parseEnvelopes } from "./connect.ts";
import { CONTROL_PREFIX, controlReply } from "./control.ts";
import { summarizeRunRequest } from "./messages.ts";
import { bearerOf, errorJson, type Reply, restReply } from "./rest.ts";
import { RunSession } from "./run-session.ts";
import { ScenarioRunner, workspaceFromRequestContext } from "./scenario-runner.ts";
import { FakeState, type RequestLogEntry, type RunInfo, type RunStatus } from "./state.ts";
import { fromHex } from "./wire.ts";

const RUN_SSE = "/agent.v1.AgentService/RunSSE";
const BIDI_APPEND = "/aiserver.v1.BidiService/BidiAppend";
const MAX_BODY = 64 * 1024 * 1024;
const RUN_REQUEST_WAIT_MS = 5000;

export interface FakeBackendServer {
	url: string;
	port: number;
	state: FakeState;
	close(): Promise<void>;
}

export function readBody(req: IncomingMessage): Promise<Uint8Array> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on("data", (chunk: Buffer) => {
			size += chunk.length;
			if (size > MAX_BODY) {
				reject(new Error("request body too large"));
				req.destroy();
				return;
			}
			chunks.push(chunk);
		});
		req.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))));
		req.on("error", reject);
	});
}

export function header(req: IncomingMessage, name: string): string | undefined {
	const value = req.headers[name];
	return Array.isArray(value) ? value[0] : value;
}

/** Drops the connection (Bun's node:http would answer an empty 200 to a bare res.destroy()). */
export function cut(res: ServerResponse): void {
	res.socket?.destroy();
	res.destroy();
}

function sendReply(state: FakeState, res: ServerResponse, reply: Reply, entry: RequestLogEntry): void {
	entry.status = reply.hang ? undefined : reply.status;
	if (reply.hang) {
		const abort = () => cut(res);
		state.openResponses.add(abort);
		res.on("close", () => state.openResponses.delete(abort));
		return;
	}
	const write = () => {
		if (res.destroyed) return;
		const body = reply.body ?? "";
		res.writeHead(reply.status, {
			"content-type": reply.contentType ?? "application/json",
			"content-length": typeof body === "string" ? Buffer.byteLength(body) : body.length,
		});
		res.end(body);
	};
	if (reply.delayMs && reply.delayMs > 0) {
		const timer = setTimeout(write, reply.delayMs);
		const abort = () => {
			clearTimeout(timer);
			cut(res);
		};
		state.openResponses.add(abort);
		res.on("close", () => {
			clearTimeout(timer);
			state.openResponses.delete(abort);
		});
	} else write();
}

function sessionFor(state: FakeState, requestId: string): RunSession {
	let session = state.sessions.get(requestId);
	if (!session) {
		session = new RunSession(requestId);
		state.sessions.set(requestId, session);
	}
	return session;
}

function handleBidiAppend(state: FakeState, body: Uint8Array): Reply {
	let append: JsonObject;
	try {
		append = decodeMessage("BidiAppendRequest", body);
	} catch (error) {
		return errorJson(400, "invalid_argument", `bad BidiAppendRequest: ${String(error)}`);
	}
	const requestId = String((append.request_id as JsonObject | undefined)?.request_id ?? "");
	const seqno = Number(append.append_seqno ?? 0);
	let payload: Uint8Array;
	if (typeof append.data === "string" && append.data) payload = fromHex(append.data);
	else if (typeof append.data_binary === "string") payload = new Uint8Array(Buffer.from(append.data_binary, "base64"));
	else payload = new Uint8Array();
	let message: JsonObject;
	try {
		message = decodeMessage("AgentClientMessage", payload);
	} catch (error) {
		message = { undecodable: String(error), hex: Buffer.from(payload).toString("hex") };
	}
	const session = sessionFor(state, requestId);
	for (const item of session.append(seqno, message, payload.length)) {
		state.clientLog.push({
			seq: state.nextClientSeq(),
			at: Date.now() - state.startedAt,
			requestId,
			appendSeqno: item.appendSeqno,
			...item.summary,
			message: item.message,
		});
		if (item.summary.kind === "run_request" && session.runRequest && !session.workspace) {
			const action = session.runRequest.action as JsonObject | undefined;
			const userAction = action?.user_message_action as JsonObject | undefined;
			const requestContext = userAction?.request_context as JsonObject | undefined;
			if (requestContext) session.workspace = workspaceFromRequestContext(requestContext);
		}
	}
	return { status: 200, contentType: "application/proto", body: new Uint8Array() };
}

async function handleRunSse(state: FakeState, req: IncomingMessage, res: ServerResponse, body: Uint8Array) {
	let requestId = header(req, "x-request-id") ?? "";
	try {
		const data = parseEnvelopes(body).find((e) => e.flags === FLAG_DATA);
		if (data) requestId = String(decodeMessage("BidiRequestId", data.payload).request_id ?? requestId);
	} catch {
		// fall back to the header
	}
	const session = sessionFor(state, requestId);
	const run: RunInfo = {
		index: state.runs.length,
		requestId,
		scenarioName: null,
		selectedBy: "none",
		status: "waiting",
		startedAt: Date.now() - state.startedAt,
		framesSent: 0,
		clientClosed: false,
		problems: [],
	};
	state.runs.push(run);
	const abort = () => cut(res);
	state.openResponses.add(abort);
	res.on("close", () => {
		state.openResponses.delete(abort);
		if (!res.writableFinished) {
			run.clientClosed = true;
			if (run.status === "waiting" || run.status === "streaming" || run.status === "hanging")
				run.status = "client-closed";
			run.endedAt = Date.now() - state.startedAt;
		}
		session.close();
		// Forget the session later (late appends such as heartbeats may still arrive meanwhile).
		setTimeout(() => {
			if (state.sessions.get(requestId) === session) state.sessions.delete(requestId);
		}, 30000).unref?.();
	});

	// Wait for the run_request append (sent concurrently with RunSSE) to pick the scenario from the prompt.
	await session.waitForRunRequest(RUN_REQUEST_WAIT_MS);
	if (session.closed) return;
	if (session.runRequest) {
		const summary = summarizeRunRequest(session.runRequest);
		run.userText = summary.text;
		run.conversationId = summary.conversationId;
		run.runRequestBytes = session.delivered.find((m) => m.summary.kind === "run_request")?.bytes;
		run.conversationTurns = summary.conversationTurns;
	} else run.problems.push("run_request did not arrive in time");
	const { scenario, selectedBy, marker } = state.select(run.userText);
	run.scenarioName = scenario.name ?? null;
	run.selectedBy = selectedBy;
	if (marker !== undefined) run.marker = marker;

	if (scenario.httpStatus !== undefined && scenario.httpStatus !== 200) {
		run.status = "http-error";
		const status = scenario.httpStatus;
		const reply = errorJson(status, status === 401 ? "unauthenticated" : "internal", `fake backend: HTTP ${status}`);
		res.writeHead(status, { "content-type": "application/json" });
		res.end(reply.body);
		run.endedAt = Date.now() - state.startedAt;
		return;
	}

	res.writeHead(200, { "content-type": "application/connect+proto", "cache-control": "no-store" });
	res.flushHeaders();
	run.status = "streaming";
	const runner = new ScenarioRunner(scenario, session, { write: (b) => res.write(b), end: (b) => res.end(b) }, run);
	await runner.play();
	// The runner updates run.status; read it afresh (TypeScript narrowed it to "streaming" above).
	const status = run.status as RunStatus;
	if (run.endedAt === undefined && status !== "hanging") run.endedAt = Date.now() - state.startedAt;
}

async function handle(state: FakeState, req: IncomingMessage, res: ServerResponse): Promise<void> {
	const method = req.method ?? "GET";
	const url = new URL(req.url ?? "/", "http://127.0.0.1");
	const pathname = url.pathname;
	const body = await readBody(req);
	const contentType = header(req, "content-type") ?? "";
	const authorization = header(req, "authorization");

	if (pathname.startsWith(CONTROL_PREFIX)) {
		const reply = controlReply(state, method, pathname, body);
		res.writeHead(reply.status, { "content-type": "application/json" });
		res.end(reply.body ?? "");
		return;
	}

	const entry: RequestLogEntry = {
		seq: state.nextRequestSeq(),
		at: Date.now() - state.startedAt,
		method,
		path: pathname,
		query: url.search,
		bearer: bearerOf(authorization),
		hasAuthorization: authorization !== undefined,
		contentType: contentType || null,
		bodyBytes: body.length,
	};
	const requestId = header(req, "x-request-id");
	if (requestId) entry.requestId = requestId;
	state.requestLog.push(entry);

	if (method === "POST" && pathname === RUN_SSE) {
		const override = state.rest.routes[`POST ${RUN_SSE}`] ?? state.rest.routes[RUN_SSE];
		if (!override) {
			entry.status = 200;
			await handleRunSse(state, req, res, body);
			return;
		}
	}
	if (method === "POST" && pathname === BIDI_APPEND) {
		sendReply(state, res, handleBidiAppend(state, body), entry);
		return;
	}
	const login = state.logins.reply(method, pathname, url.searchParams, body, entry.bearer);
	if (login) {
		// A key minted by a sign-in is one the backend accepts, also when the test lists the accepted keys.
		const minted = state.logins.minted.at(-1)?.key;
		if (minted && state.rest.apiKeys && !state.rest.apiKeys.includes(minted)) state.rest.apiKeys.push(minted);
		sendReply(state, res, login, entry);
		return;
	}
	sendReply(state, res, restReply(state, method, pathname, contentType, authorization), entry);
}

/** Starts the fake backend on 127.0.0.1 (port 0 = any free port). */
export function startFakeBackendServer(options: { port?: number; state?: FakeState } = {}): Promise<FakeBackendServer> {
	const state = options.state ?? new FakeState();
	const server = createServer((req, res) => {
		handle(state, req, res).catch((error: unknown) => {
			if (!res.headersSent) {
				res.writeHead(500, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { code: "internal", message: String(error) } }));
			} else res.destroy();
		});
	});
	server.keepAliveTimeout = 1000;
	return new Promise((resolve, reject) => {
		server.once("error", reject);
		server.listen(options.port ?? 0, "127.0.0.1", () => {
			const port = (server.address() as AddressInfo).port;
			resolve({
				url: `http://127.0.0.1:${port}`,
				port,
				state,
				close: () =>
					new Promise<void>((done) => {
						state.abortOpenResponses();
						server.close(() => done());
						server.closeAllConnections?.();
					}),
			});
		});
	});
}
