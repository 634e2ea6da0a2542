// Mutable state of one cloud fake: agents and their runs (each run plays its scenario into an event log that stream
// connections replay from `Last-Event-ID`), scenario selection, injected faults and the request log.

import { randomUUID } from "node:crypto";
import {
	DEFAULT_SCENARIO,
	normalizeScenario,
	type ResultSpec,
	type Scenario,
	type ScenarioInput,
	type Step,
	scenarioText,
} from "./scenario.ts";

/** A REST route of the cloud API, as faults and the request log name it. */
export type CloudRoute =
	| "exchange"
	| "rpc"
	| "models"
	| "create"
	| "followup"
	| "stream"
	| "getRun"
	| "listRuns"
	| "cancel"
	| "list"
	| "get"
	| "archive"
	| "unarchive"
	| "delete"
	| "usage"
	| "artifacts"
	| "artifactUrl"
	| "download"
	| "unknown";

export interface Fault {
	/** HTTP status of the error answer (with `{error: {code, message}}`). */
	status?: number;
	code?: string;
	message?: string;
	/** How many requests it applies to (default: all). */
	times?: number;
	/** Answer (or, with `status`, fail) only after this many ms. */
	delayMs?: number;
	/** Never answer. */
	hang?: boolean;
}

export interface RequestLogEntry {
	seq: number;
	/** `Date.now()` when the request arrived. */
	at: number;
	method: string;
	path: string;
	query: string;
	route: CloudRoute;
	agentId?: string;
	runId?: string;
	/** The raw key from `Authorization: Bearer …` (null when absent). */
	bearer: string | null;
	lastEventId?: string;
	idempotencyKey?: string;
	body?: unknown;
	status?: number;
	/** Sent on to the local fake (see `forwardUrl`). */
	forwarded?: true;
}

export interface SseEvent {
	id?: string;
	event: string;
	data: unknown;
}

export type RunStatus = "CREATING" | "RUNNING" | "FINISHED" | "ERROR" | "CANCELLED" | "EXPIRED";

export interface FakeRun {
	id: string;
	agentId: string;
	status: RunStatus;
	createdAt: string;
	updatedAt: string;
	prompt: string;
	scenarioName: string | null;
	selectedBy: "marker" | "queue" | "default";
	scenario: Scenario;
	events: SseEvent[];
	/** The scenario has played to its end (or the run was cancelled): streams end after the last event. */
	produced: boolean;
	connections: number;
	lastId: number;
	result?: string;
	error?: { code?: string; message: string };
	git?: { branches: { repoUrl: string; branch?: string; prUrl?: string }[] };
	durationMs?: number;
	cancelledAt?: number;
}

export interface FakeAgent {
	id: string;
	name?: string;
	status: "ACTIVE" | "ARCHIVED";
	env?: unknown;
	repos: { url: string; startingRef?: string }[];
	createdAt: string;
	updatedAt: string;
	latestRunId?: string;
	runIds: string[];
	/** The `POST /v1/agents` body (or the seed). */
	createBody: unknown;
	/** Files the agent produced (`GET …/artifacts`), added when a run whose result names them finishes. */
	artifacts: FakeArtifact[];
}

export interface FakeArtifact {
	path: string;
	content: string;
	updatedAt: string;
}

const TERMINAL: ReadonlySet<RunStatus> = new Set(["FINISHED", "ERROR", "CANCELLED", "EXPIRED"]);

export class CloudFakeState {
	readonly startedAt = Date.now();
	agents = new Map<string, FakeAgent>();
	runs = new Map<string, FakeRun>();
	requestLog: RequestLogEntry[] = [];
	faults: Partial<Record<CloudRoute, Fault>> = {};
	/** When set, only these raw API keys are accepted (others get 401). */
	apiKeys: string[] | null = null;
	/**
	 * Where what the cloud fake does not own goes (null: it answers itself). Set to the local fake's URL, one
	 * CURSOR_BACKEND_URL serves a session's local turns (key exchange, models, Connect RPCs) and its cloud agents.
	 */
	forwardUrl: string | null = null;
	queue: Scenario[] = [];
	scenarioMap: Record<string, Scenario> = {};
	defaultScenario: Scenario = DEFAULT_SCENARIO;
	/** Called to end open responses and timers on reset/stop. */
	readonly openResponses = new Set<() => void>();
	private readonly listeners = new Map<string, Set<() => void>>();
	private readonly timers = new Set<ReturnType<typeof setTimeout>>();
	private readonly openGates = new Set<string>();
	private readonly gateWaiters = new Map<string, (() => void)[]>();
	private seq = 0;

	nextSeq(): number {
		return ++this.seq;
	}

	enqueue(inputs: ScenarioInput[]): void {
		this.queue.push(...inputs.map(normalizeScenario));
	}

	/** The fault for `route`, counting one use. */
	takeFault(route: CloudRoute): Fault | undefined {
		const fault = this.faults[route];
		if (!fault) return undefined;
		if (fault.times !== undefined) {
			if (fault.times <= 0) return undefined;
			fault.times--;
		}
		return fault;
	}

	select(prompt: string): { scenario: Scenario; selectedBy: FakeRun["selectedBy"] } {
		const markers = Object.keys(this.scenarioMap).sort((a, b) => b.length - a.length);
		const marker = markers.find((m) => prompt.includes(m));
		if (marker !== undefined) return { scenario: this.scenarioMap[marker] as Scenario, selectedBy: "marker" };
		const queued = this.queue.shift();
		if (queued) return { scenario: queued, selectedBy: "queue" };
		return { scenario: this.defaultScenario, selectedBy: "default" };
	}

	addAgent(agent: Omit<FakeAgent, "runIds" | "createdAt" | "updatedAt" | "artifacts"> & Partial<FakeAgent>): FakeAgent {
		const now = new Date().toISOString();
		const full: FakeAgent = { runIds: [], artifacts: [], createdAt: now, updatedAt: now, ...agent };
		this.agents.set(full.id, full);
		return full;
	}

	/** Starts a run of `agent` for `prompt`: it plays its scenario into its event log at once. */
	startRun(agent: FakeAgent, prompt: string): FakeRun {
		const { scenario, selectedBy } = this.select(prompt);
		const now = new Date().toISOString();
		const run: FakeRun = {
			id: `run-${randomUUID()}`,
			agentId: agent.id,
			status: "CREATING",
			createdAt: now,
			updatedAt: now,
			prompt,
			scenarioName: scenario.name ?? null,
			selectedBy,
			scenario,
			events: [],
			produced: false,
			connections: 0,
			lastId: 0,
		};
		this.runs.set(run.id, run);
		agent.runIds.push(run.id);
		agent.latestRunId = run.id;
		agent.updatedAt = now;
		void this.play(run);
		return run;
	}

	isTerminal(run: FakeRun): boolean {
		return TERMINAL.has(run.status);
	}

	/** The agent's run that is still going, if any (a follow-up then gets `409 agent_busy`). */
	activeRun(agent: FakeAgent): FakeRun | undefined {
		const latest = agent.latestRunId ? this.runs.get(agent.latestRunId) : undefined;
		return latest && !this.isTerminal(latest) ? latest : undefined;
	}

	cancel(run: FakeRun): void {
		run.cancelledAt ??= Date.now();
		if (this.isTerminal(run)) return;
		this.finish(run, { status: "CANCELLED" });
	}

	/** Calls `listener` whenever `run` gets an event or ends; returns the unsubscribe function. */
	subscribe(run: FakeRun, listener: () => void): () => void {
		let set = this.listeners.get(run.id);
		if (!set) {
			set = new Set();
			this.listeners.set(run.id, set);
		}
		set.add(listener);
		return () => set.delete(listener);
	}

	reset(): void {
		for (const abort of this.openResponses) abort();
		this.openResponses.clear();
		for (const timer of this.timers) clearTimeout(timer);
		this.timers.clear();
		this.listeners.clear();
		this.openGates.clear();
		for (const waiters of this.gateWaiters.values()) for (const wake of waiters) wake();
		this.gateWaiters.clear();
		this.agents.clear();
		this.runs.clear();
		this.requestLog = [];
		this.faults = {};
		this.apiKeys = null;
		this.forwardUrl = null;
		this.queue = [];
		this.scenarioMap = {};
		this.defaultScenario = DEFAULT_SCENARIO;
	}

	/** Files of `agentId` (a path again replaces its earlier content). */
	addArtifacts(agentId: string, files: readonly { path: string; content: string }[]): void {
		const agent = this.agents.get(agentId);
		if (!agent) return;
		const updatedAt = new Date().toISOString();
		for (const file of files) {
			agent.artifacts = agent.artifacts.filter((a) => a.path !== file.path);
			agent.artifacts.push({ path: file.path, content: file.content, updatedAt });
		}
	}

	private notify(run: FakeRun): void {
		for (const listener of this.listeners.get(run.id) ?? []) listener();
	}

	private push(run: FakeRun, event: SseEvent): void {
		run.events.push(event);
		run.updatedAt = new Date().toISOString();
		this.notify(run);
	}

	/** Event ids count up per run (a legacy frame reuses the id of the interaction update that follows it). */
	private nextId(run: FakeRun): string {
		run.lastId++;
		return String(run.lastId);
	}

	/** Opens `name`: runs waiting on it go on, and later ones pass it at once (until the next reset). */
	openGate(name: string): void {
		this.openGates.add(name);
		for (const wake of this.gateWaiters.get(name) ?? []) wake();
		this.gateWaiters.delete(name);
	}

	private waitForGate(name: string): Promise<void> {
		if (this.openGates.has(name)) return Promise.resolve();
		return new Promise((resolve) => {
			const waiters = this.gateWaiters.get(name) ?? [];
			waiters.push(resolve);
			this.gateWaiters.set(name, waiters);
		});
	}

	private sleep(ms: number): Promise<void> {
		return new Promise((resolve) => {
			const timer = setTimeout(() => {
				this.timers.delete(timer);
				resolve();
			}, ms);
			this.timers.add(timer);
		});
	}

	/** Plays the run's scenario into its event log (a cancelled or reset run stops producing). */
	private async play(run: FakeRun): Promise<void> {
		const { scenario } = run;
		const started = Date.now();
		await this.sleep(0); // the run is CREATING when its create/follow-up request is answered
		if (this.isTerminal(run) || !this.runs.has(run.id)) return;
		run.status = "RUNNING";
		this.push(run, { id: this.nextId(run), event: "status", data: { status: "RUNNING" } });
		for (const step of scenario.steps) {
			if (scenario.frameDelayMs) await this.sleep(scenario.frameDelayMs);
			if (this.isTerminal(run) || !this.runs.has(run.id)) return;
			if ("hang" in step) return;
			if ("delay" in step) {
				await this.sleep(step.delay);
				continue;
			}
			if ("gate" in step) {
				await this.waitForGate(step.gate);
				continue;
			}
			for (const event of this.eventsOf(run, step)) this.push(run, event);
		}
		if (this.isTerminal(run) || !this.runs.has(run.id)) return;
		const spec: ResultSpec = scenario.result ?? {};
		this.finish(run, {
			status: spec.status ?? "FINISHED",
			result: spec.result ?? scenarioText(scenario),
			durationMs: spec.durationMs ?? Date.now() - started,
			...(spec.error ? { error: spec.error } : {}),
			...(spec.git ? { git: spec.git } : {}),
			resultEvent: scenario.result !== null,
		});
	}

	private finish(
		run: FakeRun,
		outcome: Partial<Pick<FakeRun, "result" | "error" | "git" | "durationMs">> & {
			status: string;
			resultEvent?: boolean;
		},
	): void {
		run.status = outcome.status as RunStatus;
		if (outcome.result !== undefined) run.result = outcome.result;
		if (outcome.error) run.error = outcome.error;
		if (outcome.git) run.git = outcome.git;
		if (outcome.durationMs !== undefined) run.durationMs = outcome.durationMs;
		if (outcome.resultEvent !== false) {
			const data = {
				status: run.status,
				...(run.result !== undefined ? { result: run.result } : {}),
				...(run.error ? { error: run.error } : {}),
				...(run.git ? { git: run.git } : {}),
				...(run.durationMs !== undefined ? { durationMs: run.durationMs } : {}),
			};
			this.push(run, { id: this.nextId(run), event: "result", data });
			this.push(run, { event: "done", data: {} });
		}
		run.produced = true;
		if (run.status === "FINISHED") this.addArtifacts(run.agentId, run.scenario.result?.artifacts ?? []);
		this.notify(run);
	}

	/** The SSE events of one step: a legacy frame carries the id of the interaction update that follows it. */
	private eventsOf(run: FakeRun, step: Step): SseEvent[] {
		const id = this.nextId(run);
		const update = (data: unknown): SseEvent => ({ id, event: "interaction_update", data });
		const legacy = (event: string, data: unknown): SseEvent => ({ id, event, data });
		if ("thinking" in step) {
			return [legacy("thinking", { text: step.thinking }), update({ type: "thinking-delta", text: step.thinking })];
		}
		if ("thinkingCompleted" in step) {
			return [update({ type: "thinking-completed", thinkingDurationMs: step.thinkingCompleted })];
		}
		if ("text" in step)
			return [legacy("assistant", { text: step.text }), update({ type: "text-delta", text: step.text })];
		if ("tool" in step || "toolStarted" in step) {
			const { callId, toolCall } = "tool" in step ? step.tool : step.toolStarted;
			const { type, args, result } = toolCall as { type: string; args?: unknown; result?: unknown };
			const started = { callId, modelCallId: `model-${callId}`, toolCall: { ...toolCall, result: undefined } };
			const events: SseEvent[] = [
				legacy("tool_call", { callId, name: type, status: "running", args }),
				update({ type: "tool-call-started", ...started }),
			];
			if ("tool" in step) {
				const next = this.nextId(run);
				const status = (result as { status?: string } | undefined)?.status === "error" ? "error" : "completed";
				events.push(
					{ id: next, event: "tool_call", data: { callId, name: type, status, args, result } },
					{
						id: next,
						event: "interaction_update",
						data: { type: "tool-call-completed", callId, modelCallId: `model-${callId}`, toolCall },
					},
				);
			}
			return events;
		}
		if ("turnEnded" in step) {
			const { cacheReadTokens = 0, cacheWriteTokens = 0, ...rest } = step.turnEnded;
			return [update({ type: "turn-ended", usage: { ...rest, cacheReadTokens, cacheWriteTokens } })];
		}
		if ("userMessage" in step) {
			const userMessage = { type: "user_message", session_id: run.agentId, text: run.prompt };
			return [update({ type: "user-message-appended", userMessage })];
		}
		if ("interactionUpdate" in step) return [update(step.interactionUpdate)];
		if ("status" in step) return [{ id, event: "status", data: { status: step.status } }];
		if ("heartbeat" in step) return [{ event: "heartbeat", data: {} }];
		if ("sseError" in step) return [{ id, event: "error", data: step.sseError }];
		return [];
	}
}
