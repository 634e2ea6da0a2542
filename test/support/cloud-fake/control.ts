// The cloud fake's control API under /__fake/ (JSON in, JSON out): scripting, faults, logs, seeding, reset.

import { randomUUID } from "node:crypto";
import { normalizeScenario, type Scenario, type ScenarioInput } from "./scenario.ts";
import type { CloudFakeState, CloudRoute, Fault } from "./state.ts";

export const CONTROL_PREFIX = "/__fake/";

interface Reply {
	status: number;
	body?: unknown;
}

function parse(text: string): unknown {
	return text.trim() ? JSON.parse(text) : undefined;
}

export interface AgentSeed {
	id: string;
	name?: string;
	archived?: boolean;
	repos?: { url: string; startingRef?: string }[];
	/** Files the agent has (`GET …/artifacts`). */
	artifacts?: { path: string; content: string }[];
	/** Runs already over, with their final status (`FINISHED`, `ERROR`, …). */
	runs?: { status: string; git?: { branches: { repoUrl: string; branch?: string; prUrl?: string }[] } }[];
}

/**
 * Routes:
 * - GET  /__fake/health                 → { ok }
 * - POST /__fake/scenarios              { scenarios: ScenarioInput[] } → queued for the next runs (FIFO)
 * - POST /__fake/scenario-map           { "<marker in the prompt>": ScenarioInput } → merged
 * - PUT  /__fake/default-scenario       ScenarioInput
 * - PUT  /__fake/faults                 { [route]: Fault } → replaces the faults
 * - PUT  /__fake/api-keys               { apiKeys: string[] | null } → only these raw keys are accepted
 * - PUT  /__fake/forward              { url: string | null } → what is not a cloud route goes there (the local fake)
 * - POST /__fake/agents                 AgentSeed[] → agents that exist without a run of ours
 * - POST /__fake/gates                  { name } → opens a scenario's `gate` step
 * - GET  /__fake/requests               → RequestLogEntry[]
 * - GET  /__fake/agents                 → agents with their runs (status, prompt, scenario, connections, cancelledAt)
 * - POST /__fake/reset                  → empty state; open streams and hanging requests are dropped
 */
export function controlReply(state: CloudFakeState, method: string, pathname: string, text: string): Reply {
	const route = `${method} ${pathname.slice(CONTROL_PREFIX.length - 1)}`;
	try {
		switch (route) {
			case "GET /health":
				return { status: 200, body: { ok: true } };
			case "POST /scenarios":
				state.enqueue((parse(text) as { scenarios: ScenarioInput[] }).scenarios);
				return { status: 200, body: { queued: state.queue.length } };
			case "POST /scenario-map": {
				for (const [marker, input] of Object.entries(parse(text) as Record<string, ScenarioInput>)) {
					state.scenarioMap[marker] = normalizeScenario(input);
				}
				return { status: 200, body: { markers: Object.keys(state.scenarioMap) } };
			}
			case "PUT /default-scenario":
				state.defaultScenario = normalizeScenario(parse(text) as ScenarioInput) as Scenario;
				return { status: 200, body: {} };
			case "PUT /faults":
				state.faults = (parse(text) ?? {}) as Partial<Record<CloudRoute, Fault>>;
				return { status: 200, body: state.faults };
			case "PUT /api-keys":
				state.apiKeys = (parse(text) as { apiKeys: string[] | null }).apiKeys;
				return { status: 200, body: {} };
			case "PUT /forward": {
				const url = (parse(text) as { url: string | null }).url;
				if (url !== null && !/^http:\/\/127\.0\.0\.1:\d+$/.test(url)) throw new Error(`not a loopback URL: ${url}`);
				state.forwardUrl = url;
				return { status: 200, body: {} };
			}
			case "POST /agents":
				for (const seed of parse(text) as AgentSeed[]) seedAgent(state, seed);
				return { status: 200, body: { agents: state.agents.size } };
			case "POST /gates":
				state.openGate((parse(text) as { name: string }).name);
				return { status: 200, body: {} };
			case "GET /requests":
				return { status: 200, body: state.requestLog };
			case "GET /agents":
				return { status: 200, body: agentsView(state) };
			case "POST /reset":
				state.reset();
				return { status: 200, body: {} };
			default:
				return {
					status: 404,
					body: { error: { code: "not_found", message: `cloud fake control: no route ${route}` } },
				};
		}
	} catch (error) {
		return { status: 400, body: { error: { code: "invalid_argument", message: String(error) } } };
	}
}

function seedAgent(state: CloudFakeState, seed: AgentSeed): void {
	const agent = state.addAgent({
		id: seed.id,
		...(seed.name !== undefined ? { name: seed.name } : {}),
		status: seed.archived ? "ARCHIVED" : "ACTIVE",
		repos: seed.repos ?? [],
		createBody: seed,
	});
	for (const spec of seed.runs ?? []) {
		const at = new Date().toISOString();
		const id = `run-${randomUUID()}`;
		state.runs.set(id, {
			id,
			agentId: agent.id,
			status: spec.status as "FINISHED",
			createdAt: at,
			updatedAt: at,
			prompt: "",
			scenarioName: "seed",
			selectedBy: "default",
			scenario: { steps: [] },
			events: [],
			produced: true,
			connections: 0,
			lastId: 0,
			...(spec.git ? { git: spec.git } : {}),
		});
		agent.runIds.push(id);
		agent.latestRunId = id;
	}
	state.addArtifacts(agent.id, seed.artifacts ?? []);
}

/** Agents and runs without their event logs. */
function agentsView(state: CloudFakeState) {
	return [...state.agents.values()].map((agent) => ({
		...agent,
		runs: agent.runIds.flatMap((id) => {
			const run = state.runs.get(id);
			if (!run) return [];
			const { events, scenario: _scenario, ...rest } = run;
			return [{ ...rest, eventCount: events.length }];
		}),
	}));
}
