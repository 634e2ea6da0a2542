// REST/JSON endpoints and tolerant unary RPCs (docs/fake-cursor-backend-protocol.md §3–§4).

import type { JsonObject } from "./codec.ts";
import type { UsageSpec } from "./scenario.ts";
import type { FakeState, RouteOverride } from "./state.ts";

export interface Reply {
	status: number;
	contentType?: string;
	body?: Uint8Array | string;
	/** Never answer. */
	hang?: boolean;
	/** Answer after this many ms. */
	delayMs?: number;
}

const EMPTY = new Uint8Array(0);

export function json(status: number, value: unknown): Reply {
	return { status, contentType: "application/json", body: JSON.stringify(value) };
}

export function errorJson(status: number, code: string, message: string): Reply {
	return json(status, { error: { code, message } });
}

function codeForStatus(status: number): string {
	if (status === 401) return "unauthenticated";
	if (status === 403) return "permission_denied";
	if (status === 404) return "not_found";
	if (status === 409) return "already_exists";
	if (status === 429) return "resource_exhausted";
	if (status >= 500) return "internal";
	return "invalid_argument";
}

function overrideReply(override: RouteOverride): Reply {
	const status = override.status ?? 200;
	const body =
		override.json !== undefined
			? override.json
			: status >= 400
				? { error: { code: codeForStatus(status), message: `fake backend: HTTP ${status}` } }
				: {};
	return { ...json(status, body), hang: override.hang ?? false, delayMs: override.delayMs ?? 0 };
}

export function bearerOf(authorization: string | undefined): string | null {
	if (!authorization) return null;
	const match = /^Bearer\s+(.*)$/i.exec(authorization);
	return match ? (match[1] ?? "") : authorization;
}

const USAGE_FIELDS = ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"] as const;

/** Token totals of `usages`, shaped like Cursor's `getUsage` answer. */
function tokens(usages: readonly UsageSpec[]): JsonObject {
	const counts = Object.fromEntries(
		USAGE_FIELDS.map((field) => [field, usages.reduce((sum, usage) => sum + (usage[field] ?? 0), 0)]),
	);
	return { ...counts, totalTokens: Object.values(counts).reduce((sum, n) => sum + n, 0) };
}

/** `GET /v1/agents/:id/usage` from what the fake streamed: every turn of the agent's runs, at no cost. */
function usageOfRuns(state: FakeState, agentId: string): JsonObject {
	const runs = state.runs.filter((run) => run.conversationId === agentId && run.usage);
	const free = { rawCostCents: 0, chargedCents: 0 };
	return {
		totalUsage: tokens(runs.map((run) => run.usage ?? {})),
		cost: free,
		runs: runs.map((run) => ({ runId: run.requestId, usage: tokens([run.usage ?? {}]), cost: free })),
	};
}

/** Answers a REST or unary RPC request. `contentType` is the request content type. */
export function restReply(
	state: FakeState,
	method: string,
	pathname: string,
	contentType: string,
	authorization: string | undefined,
): Reply {
	const rest = state.rest;
	const override = rest.routes[`${method} ${pathname}`] ?? rest.routes[pathname];
	if (override) return overrideReply(override);

	if (method === "POST" && pathname === "/auth/exchange_user_api_key") {
		const key = bearerOf(authorization);
		if (rest.apiKeys && (!key || !rest.apiKeys.includes(key))) {
			return errorJson(401, "unauthenticated", rest.keyExchangeMessage);
		}
		if (rest.keyExchangeStatus !== 200) {
			return errorJson(rest.keyExchangeStatus, codeForStatus(rest.keyExchangeStatus), rest.keyExchangeMessage);
		}
		return json(200, { accessToken: rest.accessToken });
	}
	if (method === "GET" && pathname === "/v1/models") {
		if (rest.modelsStatus !== 200) {
			return errorJson(
				rest.modelsStatus,
				codeForStatus(rest.modelsStatus),
				`fake backend: models ${rest.modelsStatus}`,
			);
		}
		return json(200, { items: rest.models });
	}
	if (method === "GET" && pathname === "/v1/me") return json(200, rest.me);
	const agentUsage = /^\/v1\/agents\/([^/]+)\/usage$/.exec(pathname);
	if (method === "GET" && agentUsage) {
		return json(200, rest.usageFromRuns ? usageOfRuns(state, decodeURIComponent(agentUsage[1] ?? "")) : rest.usage);
	}

	if (method === "POST" && /^\/(aiserver|agent)\.v1\.[A-Za-z]+\/[A-Za-z]+$/.test(pathname)) {
		// Tolerant unary RPCs: privacy mode, server config (http2_config = 0 keeps HTTP/1.1), statsig, team
		// settings/repos, analytics … An empty proto body is a valid empty message.
		if (contentType.includes("json")) return json(200, {});
		return { status: 200, contentType: "application/proto", body: EMPTY };
	}
	return errorJson(404, "not_found", `fake backend: no route for ${method} ${pathname}`);
}
