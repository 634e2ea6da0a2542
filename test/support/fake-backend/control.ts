// Control API of the fake backend, served under /__fake/ (JSON in, JSON out).

import type { LoginBehaviour, LoginOutcome } from "./login.ts";
import { errorJson, json, type Reply } from "./rest.ts";
import { normalizeScenario, type Scenario, type ScenarioInput } from "./scenario.ts";
import type { FakeState, RestBehaviour } from "./state.ts";

export const CONTROL_PREFIX = "/__fake/";

function parse(body: Uint8Array): unknown {
	const text = new TextDecoder().decode(body).trim();
	return text ? JSON.parse(text) : undefined;
}

function scenarioList(value: unknown): ScenarioInput[] {
	if (typeof value === "object" && value !== null && "scenarios" in value) {
		const list = (value as { scenarios: unknown }).scenarios;
		if (!Array.isArray(list)) throw new Error("scenarios must be an array");
		return list as ScenarioInput[];
	}
	if (Array.isArray(value) && value.length > 0 && !isStep(value[0])) return value as ScenarioInput[];
	return [value as ScenarioInput];
}

/** A bare step list is an array of step objects; a list of scenarios is an array of scenario objects or arrays. */
function isStep(value: unknown): boolean {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
	return !("steps" in value || "httpStatus" in value || "name" in value);
}

function scenarioMap(value: unknown): Record<string, Scenario> {
	const out: Record<string, Scenario> = {};
	for (const [marker, input] of Object.entries((value ?? {}) as Record<string, ScenarioInput>)) {
		out[marker] = normalizeScenario(input);
	}
	return out;
}

/**
 * Routes (all JSON):
 * - GET  /__fake/health                → { ok, startedAt }
 * - POST /__fake/scenarios             body: {scenarios: […]} | Scenario | Step[] | Array<Scenario | Step[]> → enqueue
 * - GET  /__fake/scenarios             → { queue, scenarioMap, defaultScenario }
 * - POST /__fake/scenario-map          body: { [marker]: Scenario | Step[] } → merge
 * - PUT  /__fake/scenario-map          body: same → replace
 * - PUT  /__fake/default-scenario      body: Scenario | Step[]
 * - POST /__fake/rest                  body: Partial<RestBehaviour> → merge; returns the behaviour
 * - GET  /__fake/rest                  → RestBehaviour
 * - GET  /__fake/log                   → ClientLogEntry[] (decoded client messages)
 * - GET  /__fake/requests              → RequestLogEntry[]
 * - GET  /__fake/runs                  → RunInfo[]
 * - POST /__fake/reset                 → reset everything (aborts open streams and hanging requests)
 * - GET  /__fake/login                 → { attempts, minted, behaviour } of browser sign-ins
 * - POST /__fake/login/settle          body: { outcome: "done" | "denied" | "expired" | "pending", uuid? } → the
 *                                        browser step of that (default: the latest) sign-in
 * - POST /__fake/login/behaviour       body: Partial<LoginBehaviour> (GetMe's email, a failing mint)
 */
export function controlReply(state: FakeState, method: string, pathname: string, body: Uint8Array): Reply {
	const route = `${method} ${pathname.slice(CONTROL_PREFIX.length - 1)}`;
	try {
		switch (route) {
			case "GET /health":
				return json(200, { ok: true, startedAt: state.startedAt });
			case "POST /scenarios": {
				state.enqueue(scenarioList(parse(body)));
				return json(200, { queued: state.queue.length });
			}
			case "GET /scenarios":
				return json(200, {
					queue: state.queue,
					scenarioMap: state.scenarioMap,
					defaultScenario: state.defaultScenario,
				});
			case "POST /scenario-map":
				state.scenarioMap = { ...state.scenarioMap, ...scenarioMap(parse(body)) };
				return json(200, { markers: Object.keys(state.scenarioMap) });
			case "PUT /scenario-map":
				state.scenarioMap = scenarioMap(parse(body));
				return json(200, { markers: Object.keys(state.scenarioMap) });
			case "PUT /default-scenario":
			case "POST /default-scenario":
				state.defaultScenario = normalizeScenario(parse(body) as ScenarioInput);
				return json(200, { ok: true });
			case "POST /rest":
				state.setRest((parse(body) ?? {}) as Partial<RestBehaviour>);
				return json(200, state.rest);
			case "GET /rest":
				return json(200, state.rest);
			case "GET /log":
				return json(200, state.clientLog);
			case "GET /requests":
				return json(200, state.requestLog);
			case "GET /runs":
				return json(200, state.runs);
			case "GET /login":
				return json(200, state.logins.view());
			case "POST /login/settle": {
				const { outcome, uuid } = (parse(body) ?? {}) as { outcome?: LoginOutcome; uuid?: string };
				const settled = state.logins.settle(outcome ?? "done", uuid);
				return settled ? json(200, settled) : errorJson(404, "not_found", "fake backend: no sign-in to settle");
			}
			case "POST /login/behaviour":
				state.logins.behaviour = { ...state.logins.behaviour, ...((parse(body) ?? {}) as Partial<LoginBehaviour>) };
				return json(200, state.logins.behaviour);
			case "POST /reset":
				state.reset();
				return json(200, { ok: true });
			default:
				return errorJson(404, "not_found", `fake backend control: no route ${route}`);
		}
	} catch (error) {
		return errorJson(400, "invalid_argument", error instanceof Error ? error.message : String(error));
	}
}
