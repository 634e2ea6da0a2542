// Test-side helper: starts the fake backend in its own process (Bun) and talks to its /__fake/ control API.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startServerProcess } from "../processes.ts";
import type { LoginAttempt, LoginBehaviour, LoginOutcome, MintedKey } from "./login.ts";
import type { RunRequestSummary } from "./messages.ts";
import type { ScenarioInput } from "./scenario.ts";
import type { ClientLogEntry, RequestLogEntry, RestBehaviour, RunInfo } from "./state.ts";
import { bunPath, FAKE_BACKEND_DIR, node24Path, REPO_ROOT } from "./toolchain.ts";

export type { LoginAttempt, LoginBehaviour, LoginOutcome, MintedKey } from "./login.ts";
export type { RunRequestSummary } from "./messages.ts";
export type { ExecSpec, Scenario, ScenarioInput, Step, ToolCallSpec, UsageSpec } from "./scenario.ts";
export type { ClientLogEntry, RequestLogEntry, RestBehaviour, RouteOverride, RunInfo } from "./state.ts";
export { bunPath, node24Path, REPO_ROOT };

export interface StartFakeBackendOptions {
	/** Scenarios queued for the 1st, 2nd, … RunSSE. */
	scenarios?: ScenarioInput[];
	/** Scenarios selected when the user's prompt contains the marker (checked before the queue). */
	scenarioMap?: Record<string, ScenarioInput>;
	/** Scenario used when no marker matches and the queue is empty. */
	defaultScenario?: ScenarioInput;
	rest?: Partial<RestBehaviour>;
	/** How long to wait for the ready line (default 15000 ms). */
	startTimeoutMs?: number;
	/** Extra environment for the backend process. */
	env?: Record<string, string>;
}

export interface FakeBackend {
	/** `http://127.0.0.1:<port>`: pass it as CURSOR_BACKEND_URL. */
	readonly url: string;
	readonly pid: number;
	/** Queue scenarios for the next RunSSE requests (one each, FIFO). */
	enqueue(...scenarios: ScenarioInput[]): Promise<void>;
	/** Add (or with replace: true, replace) marker → scenario entries. */
	setScenarioMap(map: Record<string, ScenarioInput>, options?: { replace?: boolean }): Promise<void>;
	setDefaultScenario(scenario: ScenarioInput): Promise<void>;
	/** Merge REST behaviour (key exchange status, models, apiKeys, route overrides …). */
	setRest(patch: Partial<RestBehaviour>): Promise<RestBehaviour>;
	/** Decoded client messages (run requests, exec results, stream closes, heartbeats), in arrival order. */
	log(): Promise<ClientLogEntry[]>;
	/** Every HTTP request except the control API. */
	requests(): Promise<RequestLogEntry[]>;
	/** One entry per RunSSE. */
	runs(): Promise<RunInfo[]>;
	/** Convenience: summaries of every run request (with the RunSSE request id). */
	runRequests(): Promise<(RunRequestSummary & { requestId: string })[]>;
	/**
	 * Convenience: the decoded `RequestContext` of every request-context exec result (a `{ exec: { requestContext:
	 * true } }` step), with the RunSSE request id: the agent's environment (sandbox, auto-review), custom subagents,
	 * rules…
	 */
	requestContexts(): Promise<{ requestId: string; context: Record<string, unknown> }[]>;
	/** Polls runs() until `predicate` holds (default timeout 10000 ms). */
	waitForRuns(predicate: (runs: RunInfo[]) => boolean, timeoutMs?: number): Promise<RunInfo[]>;
	/** Back to defaults; clears logs, queue and map; aborts open streams and hanging requests. */
	reset(): Promise<void>;
	/** Browser sign-ins seen so far and the keys they minted. */
	logins(): Promise<{ attempts: LoginAttempt[]; minted: MintedKey[] }>;
	/** Plays the browser step of a sign-in (default: the latest one). */
	settleLogin(outcome: LoginOutcome, uuid?: string): Promise<LoginAttempt>;
	setLoginBehaviour(patch: Partial<LoginBehaviour>): Promise<LoginBehaviour>;
	/** Kills the backend process (idempotent). */
	stop(): Promise<void>;
	/** Last lines written to stderr by the backend process (diagnostics). */
	stderr(): string;
}

/** Model items of the captured Cursor catalog (default: the repository's `data/cursor-model-catalog.json`). */
export function loadCapturedCatalog(
	path = process.env.CURSOR_MODEL_CATALOG_JSON ?? join(REPO_ROOT, "data", "cursor-model-catalog.json"),
) {
	const data = JSON.parse(readFileSync(path, "utf8")) as { models?: unknown[]; items?: unknown[] } | unknown[];
	if (Array.isArray(data)) return data;
	return data.models ?? data.items ?? [];
}

export async function startFakeBackend(options: StartFakeBackendOptions = {}): Promise<FakeBackend> {
	const server = await startServerProcess("fake backend", join(FAKE_BACKEND_DIR, "main.ts"), options);
	const { control } = server;
	const backend: FakeBackend = {
		url: server.url,
		pid: server.pid,
		enqueue: async (...scenarios) => {
			if (scenarios.length) await control("POST", "scenarios", { scenarios });
		},
		setScenarioMap: async (map, opts) => {
			await control(opts?.replace ? "PUT" : "POST", "scenario-map", map);
		},
		setDefaultScenario: async (scenario) => {
			await control("PUT", "default-scenario", scenario);
		},
		setRest: (patch) => control<RestBehaviour>("POST", "rest", patch),
		log: () => control<ClientLogEntry[]>("GET", "log"),
		requests: () => control<RequestLogEntry[]>("GET", "requests"),
		runs: () => control<RunInfo[]>("GET", "runs"),
		runRequests: async () => {
			const entries = await control<ClientLogEntry[]>("GET", "log");
			return entries.flatMap((e) => (e.runRequest ? [{ ...e.runRequest, requestId: e.requestId }] : []));
		},
		requestContexts: async () => {
			const entries = await control<ClientLogEntry[]>("GET", "log");
			return entries.flatMap((e) => {
				if (e.kind !== "exec_result" || e.resultCase !== "request_context_result") return [];
				const success = e.result?.success as { request_context?: Record<string, unknown> } | undefined;
				return success?.request_context ? [{ requestId: e.requestId, context: success.request_context }] : [];
			});
		},
		waitForRuns: async (predicate, timeoutMs = 10000) => {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const runs = await control<RunInfo[]>("GET", "runs");
				if (predicate(runs)) return runs;
				if (Date.now() > deadline) throw new Error(`waitForRuns timed out; runs: ${JSON.stringify(runs)}`);
				await new Promise((r) => setTimeout(r, 50));
			}
		},
		reset: async () => {
			await control("POST", "reset");
		},
		logins: () => control("GET", "login"),
		settleLogin: (outcome, uuid) => control<LoginAttempt>("POST", "login/settle", { outcome, uuid }),
		setLoginBehaviour: (patch) => control<LoginBehaviour>("POST", "login/behaviour", patch),
		stop: server.stop,
		stderr: server.stderr,
	};

	try {
		if (options.rest) await backend.setRest(options.rest);
		if (options.scenarios?.length) await control("POST", "scenarios", { scenarios: options.scenarios });
		if (options.scenarioMap) await backend.setScenarioMap(options.scenarioMap);
		if (options.defaultScenario) await backend.setDefaultScenario(options.defaultScenario);
	} catch (error) {
		await backend.stop();
		throw error;
	}
	return backend;
}
