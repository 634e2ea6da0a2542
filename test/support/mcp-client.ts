// A minimal MCP client over streamable HTTP (2025 protocol, sessions), for driving the bridge server from tests
// without the Cursor SDK: raw requests so tests can also send what a real client never would (wrong token, foreign
// Host or Origin).
import { request as httpRequest } from "node:http";

export interface RawResponse {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: string;
}

/**
 * One HTTP request with full control of the headers (fetch forbids setting `Host`). Resolves when the body ends,
 * or with the body so far once `untilBody` matches it.
 */
export function rawRequest(
	url: string,
	options: {
		method?: string;
		headers?: Record<string, string>;
		body?: string;
		untilBody?: RegExp;
		signal?: AbortSignal;
	},
): Promise<RawResponse> {
	return new Promise((resolve, reject) => {
		const req = httpRequest(
			url,
			{ method: options.method ?? "POST", headers: options.headers, signal: options.signal },
			(res) => {
				let body = "";
				res.setEncoding("utf8");
				res.on("data", (chunk: string) => {
					body += chunk;
					if (options.untilBody?.test(body)) {
						resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
						res.destroy();
					}
				});
				res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
				res.on("error", reject);
			},
		);
		req.on("error", reject);
		req.end(options.body);
	});
}

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** The JSON-RPC messages in an SSE or JSON response body. */
export function messagesOf(body: string): Record<string, unknown>[] {
	const trimmed = body.trim();
	if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
		const parsed = JSON.parse(trimmed);
		return Array.isArray(parsed) ? parsed : [parsed];
	}
	return body
		.split("\n")
		.filter((line) => line.startsWith("data:"))
		.map((line) => line.slice(5).trim())
		.filter((data) => data.startsWith("{"))
		.map((data) => JSON.parse(data));
}

export class TestMcpClient {
	private nextId = 1;
	private constructor(
		readonly url: string,
		readonly sessionId: string,
	) {}

	/** `initialize` + `notifications/initialized`, as the SDK's client does. */
	static async connect(url: string, headers: Record<string, string> = {}): Promise<TestMcpClient> {
		const response = await rawRequest(url, {
			headers: { ...JSON_HEADERS, ...headers },
			body: JSON.stringify({
				jsonrpc: "2.0",
				id: 0,
				method: "initialize",
				params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
			}),
		});
		const sessionId = response.headers["mcp-session-id"];
		if (response.status !== 200 || typeof sessionId !== "string") {
			throw new Error(`initialize failed: HTTP ${response.status}`);
		}
		const client = new TestMcpClient(url, sessionId);
		await client.notify("notifications/initialized");
		return client;
	}

	private headers(): Record<string, string> {
		return { ...JSON_HEADERS, "mcp-session-id": this.sessionId, "mcp-protocol-version": "2025-06-18" };
	}

	async notify(method: string, params?: Record<string, unknown>): Promise<number> {
		const response = await rawRequest(this.url, {
			headers: this.headers(),
			body: JSON.stringify({ jsonrpc: "2.0", method, ...(params ? { params } : {}) }),
		});
		return response.status;
	}

	/** Sends a request and returns its id and the promise of its JSON-RPC response. */
	send(
		method: string,
		params: Record<string, unknown> = {},
	): { id: number; response: Promise<Record<string, unknown>> } {
		const id = this.nextId++;
		const response = rawRequest(this.url, {
			headers: this.headers(),
			body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
			untilBody: new RegExp(`"id":${id}[,}]`),
		}).then((raw) => {
			const message = messagesOf(raw.body).find((m) => m.id === id);
			if (!message) throw new Error(`no response to request ${id} (HTTP ${raw.status})`);
			return message;
		});
		return { id, response };
	}

	async listTools(): Promise<{ name: string; description?: string; inputSchema: unknown }[]> {
		const message = await this.send("tools/list").response;
		return (message.result as { tools: { name: string; description?: string; inputSchema: unknown }[] }).tools;
	}

	callTool(name: string, args: Record<string, unknown>) {
		const { id, response } = this.send("tools/call", { name, arguments: args });
		return {
			id,
			result: response.then(
				(message) => message.result as { content: { type: string; text?: string }[]; isError?: boolean },
			),
			cancel: () => this.notify("notifications/cancelled", { requestId: id, reason: "test" }),
		};
	}
}
