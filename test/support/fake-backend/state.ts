// Mutable state of one fake backend: REST behaviour, scenario queue/map, logs and open runs.

import type { JsonObject } from "./codec.ts";
import { FakeLogins } from "./login.ts";
import type { ClientMessageSummary } from "./messages.ts";
import type { RunSession } from "./run-session.ts";
import { DEFAULT_SCENARIO, normalizeScenario, type Scenario, type ScenarioInput, type UsageSpec } from "./scenario.ts";

export interface RouteOverride {
	/** HTTP status (default 200). */
	status?: number;
	/** JSON body (default `{}`, or `{"error":…}` for status ≥ 400). */
	json?: unknown;
	/** Never answer (the request stays open until reset/stop). */
	hang?: boolean;
	/** Answer after this many ms. */
	delayMs?: number;
}

export interface RestBehaviour {
	/** Access token returned by the key exchange (the SDK then sends it on every Connect RPC). */
	accessToken: string;
	/** HTTP status of POST /auth/exchange_user_api_key (200, or 401 / 404 / 429 / 500 …). */
	keyExchangeStatus: number;
	/** Error message returned with a failing key exchange. */
	keyExchangeMessage: string;
	/** When set, only these API keys are accepted by the key exchange (others get 401). */
	apiKeys: string[] | null;
	/** Items of GET /v1/models. */
	models: unknown[];
	/** HTTP status of GET /v1/models (errors use `{"error":{code,message}}`). */
	modelsStatus: number;
	/** Body of GET /v1/me. */
	me: JsonObject;
	/** Body of GET /v1/agents/:id/usage. */
	usage: JsonObject;
	/**
	 * Instead of `usage`: the sum of the `turnEnded` usage the fake streamed on the agent's runs (its conversation id),
	 * at no cost, with one row per run (what the demo's scripted Cursor "billed").
	 */
	usageFromRuns: boolean;
	/** Per-route overrides keyed by "METHOD /path" or "/path" (exact pathname). */
	routes: Record<string, RouteOverride>;
}

export const DEFAULT_MODELS = [
	{
		id: "composer-2",
		displayName: "Composer 2",
		aliases: ["composer-latest"],
		parameters: [
			{
				id: "thinking",
				displayName: "Thinking",
				values: [{ value: "false" }, { value: "true" }],
			},
		],
		variants: [
			{ params: [{ id: "thinking", value: "false" }], displayName: "Composer 2", isDefault: true },
			{ params: [{ id: "thinking", value: "true" }], displayName: "Composer 2 Thinking" },
		],
	},
	{ id: "fake-model", displayName: "Fake Model", description: "A model served by the fake backend" },
];

export function defaultRest(): RestBehaviour {
	return {
		accessToken: "fake-access-token",
		keyExchangeStatus: 200,
		keyExchangeMessage: "Invalid API key (fake backend)",
		apiKeys: null,
		models: structuredClone(DEFAULT_MODELS),
		modelsStatus: 200,
		me: { apiKeyName: "fake-key", createdAt: "2025-01-01T00:00:00Z", userEmail: "fake@example.com" },
		usage: {
			totalUsage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, totalTokens: 15 },
			cost: { rawCostCents: 0.5, chargedCents: 0 },
			runs: [],
		},
		usageFromRuns: false,
		routes: {},
	};
}

export interface RequestLogEntry {
	seq: number;
	at: number;
	method: string;
	path: string;
	query: string;
	/** Bearer token of the Authorization header (the raw API key on REST, the access token on RPCs), or null. */
	bearer: string | null;
	hasAuthorization: boolean;
	contentType: string | null;
	bodyBytes: number;
	status?: number;
	/** x-request-id header (RunSSE / BidiAppend). */
	requestId?: string;
}

export interface ClientLogEntry extends ClientMessageSummary {
	seq: number;
	at: number;
	/** RunSSE request id (BidiRequestId) this append belongs to. */
	requestId: string;
	appendSeqno: number;
	/** The full decoded AgentClientMessage (proto field names). */
	message: JsonObject;
}

export type RunStatus = "waiting" | "streaming" | "ended" | "error-sent" | "client-closed" | "http-error" | "hanging";

export interface RunInfo {
	/** 0-based index of this RunSSE request. */
	index: number;
	requestId: string;
	scenarioName: string | null;
	selectedBy: "marker" | "queue" | "default" | "none";
	marker?: string;
	status: RunStatus;
	startedAt: number;
	endedAt?: number;
	framesSent: number;
	/** Set when the client closed the connection (for example run.cancel()) before the stream ended. */
	clientClosed: boolean;
	userText?: string;
	conversationId?: string | null;
	/** The `turnEnded` usage this run streamed. */
	usage?: UsageSpec;
	error?: { code: string; message: string };
	/** Problems of the scenario runner (bad step, exec timeout). */
	problems: string[];
	/** `advertised` MCP steps skipped because the SDK did not advertise the tool (their `toolName`). */
	unadvertisedCalls?: string[];
	/** Steers (`Run.steer`) this run received, with the state it answered and the bytes of their append message. */
	steers?: { text: string; state: string; bytes: number }[];
	/** Size of the run's `run_request` append (prompt, conversation state, tools…). */
	runRequestBytes?: number;
	/**
	 * Turns in the conversation state the run was sent with (`run_request.conversation_state.turns`): the SDK sends its
	 * agent's latest checkpoint, which this fake only has when a scenario sent one (a `raw`
	 * `conversation_checkpoint_update`).
	 */
	conversationTurns?: number;
}

export class FakeState {
	readonly startedAt = Date.now();
	rest: RestBehaviour = defaultRest();
	queue: Scenario[] = [];
	scenarioMap: Record<string, Scenario> = {};
	defaultScenario: Scenario = DEFAULT_SCENARIO;
	requestLog: RequestLogEntry[] = [];
	clientLog: ClientLogEntry[] = [];
	runs: RunInfo[] = [];
	sessions = new Map<string, RunSession>();
	/** Browser sign-ins (`Cursor.auth.login`) and the keys they minted. */
	readonly logins = new FakeLogins();
	/** Callbacks that abort open responses (hanging REST calls, open streams) on reset/stop. */
	openResponses = new Set<() => void>();
	private requestSeq = 0;
	private clientSeq = 0;

	nextRequestSeq(): number {
		return this.requestSeq++;
	}

	nextClientSeq(): number {
		return this.clientSeq++;
	}

	enqueue(inputs: ScenarioInput[]): void {
		for (const input of inputs) this.queue.push(normalizeScenario(input));
	}

	setRest(patch: Partial<RestBehaviour>): void {
		this.rest = { ...this.rest, ...patch, routes: { ...this.rest.routes, ...(patch.routes ?? {}) } };
	}

	/** Chooses the scenario for a run: a marker found in the prompt, then the queue, then the default. */
	select(userText: string | undefined): { scenario: Scenario; selectedBy: RunInfo["selectedBy"]; marker?: string } {
		if (userText !== undefined) {
			const markers = Object.keys(this.scenarioMap).sort((a, b) => b.length - a.length);
			for (const marker of markers) {
				const scenario = this.scenarioMap[marker];
				if (scenario && userText.includes(marker)) return { scenario, selectedBy: "marker", marker };
			}
		}
		const queued = this.queue.shift();
		if (queued) return { scenario: queued, selectedBy: "queue" };
		return { scenario: this.defaultScenario, selectedBy: "default" };
	}

	abortOpenResponses(): void {
		for (const abort of [...this.openResponses]) abort();
		this.openResponses.clear();
	}

	reset(): void {
		this.abortOpenResponses();
		this.rest = defaultRest();
		this.queue = [];
		this.scenarioMap = {};
		this.defaultScenario = DEFAULT_SCENARIO;
		this.requestLog = [];
		this.clientLog = [];
		this.runs = [];
		this.sessions.clear();
		this.logins.reset();
	}
}
