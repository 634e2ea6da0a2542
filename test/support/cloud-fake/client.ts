// Test-side helper: starts the cloud fake in its own process (Bun) and talks to its /__fake/ control API.

import { afterAll, beforeAll, beforeEach } from "bun:test";
import { join } from "node:path";
import { FAKE_BACKEND_DIR } from "../fake-backend/toolchain.ts";
import { TEST_KEY } from "../pi-turn.ts";
import { startServerProcess } from "../processes.ts";
import type { AgentSeed } from "./control.ts";
import type { ScenarioInput } from "./scenario.ts";
import type { CloudRoute, FakeAgent, FakeRun, Fault, RequestLogEntry } from "./state.ts";

export type { AgentSeed } from "./control.ts";
export type { GitBranch, ResultSpec, Scenario, ScenarioInput, Step, ToolCallJson } from "./scenario.ts";
export type { CloudRoute, Fault, RequestLogEntry } from "./state.ts";

export const CLOUD_FAKE_DIR = join(FAKE_BACKEND_DIR, "..", "cloud-fake");

/** An agent as the fake holds it, with its runs (without their event logs). */
export type AgentView = FakeAgent & {
	runs: (Omit<FakeRun, "events" | "scenario"> & { eventCount: number })[];
};

export interface CloudFake {
	/** `http://127.0.0.1:<port>`: pass it as CURSOR_BACKEND_URL. */
	readonly url: string;
	/** Scenarios for the next runs (FIFO), unless a marker in the prompt picks one. */
	enqueue(...scenarios: ScenarioInput[]): Promise<void>;
	/** Marker in the prompt → scenario (the longest matching marker wins). */
	setScenarioMap(map: Record<string, ScenarioInput>): Promise<void>;
	/** Replaces the faults (one per route; `times` limits how many requests get it). */
	setFaults(faults: Partial<Record<CloudRoute, Fault>>): Promise<void>;
	/** Only these raw API keys are accepted by the REST routes (null: any). */
	setApiKeys(apiKeys: string[] | null): Promise<void>;
	/**
	 * Sends what is not a cloud route (key exchange, models, Connect RPCs, RunSSE) on to `url` (the local fake; null:
	 * answered here): with CURSOR_BACKEND_URL at the cloud fake, one Pi session has local turns and cloud agents.
	 */
	forwardTo(url: string | null): Promise<void>;
	/** The environment of a Pi that talks to this fake with the tests' key (`extra` on top). */
	piEnv(extra?: Record<string, string | undefined>): Record<string, string | undefined>;
	/** Opens a scenario's `{ gate: name }` step: the runs waiting there go on. */
	openGate(name: string): Promise<void>;
	/** Agents that exist on the "server" without a run of ours. */
	seedAgents(seeds: AgentSeed[]): Promise<void>;
	/** Every request except the control API, in arrival order. */
	requests(): Promise<RequestLogEntry[]>;
	agents(): Promise<AgentView[]>;
	/** Polls `requests()` until `predicate` holds (default 10 s). */
	waitForRequests(predicate: (log: RequestLogEntry[]) => boolean, timeoutMs?: number): Promise<RequestLogEntry[]>;
	/** Empty state: no agents, logs, faults or scripts; open streams are dropped. */
	reset(): Promise<void>;
	stop(): Promise<void>;
	stderr(): string;
}

export async function startCloudFake(): Promise<CloudFake> {
	const server = await startServerProcess("cloud fake", join(CLOUD_FAKE_DIR, "main.ts"));
	const { control } = server;
	const requests = () => control<RequestLogEntry[]>("GET", "requests");
	return {
		url: server.url,
		enqueue: async (...scenarios) => {
			await control("POST", "scenarios", { scenarios });
		},
		setScenarioMap: async (map) => {
			await control("POST", "scenario-map", map);
		},
		setFaults: async (faults) => {
			await control("PUT", "faults", faults);
		},
		setApiKeys: async (apiKeys) => {
			await control("PUT", "api-keys", { apiKeys });
		},
		forwardTo: async (url) => {
			await control("PUT", "forward", { url });
		},
		piEnv: (extra = {}) => ({ CURSOR_BACKEND_URL: server.url, CURSOR_API_KEY: TEST_KEY, ...extra }),
		openGate: async (name) => {
			await control("POST", "gates", { name });
		},
		seedAgents: async (seeds) => {
			await control("POST", "agents", seeds);
		},
		requests,
		agents: () => control<AgentView[]>("GET", "agents"),
		waitForRequests: async (predicate, timeoutMs = 10_000) => {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const log = await requests();
				if (predicate(log)) return log;
				if (Date.now() > deadline) throw new Error(`waitForRequests timed out; log: ${JSON.stringify(log)}`);
				await new Promise((resolve) => setTimeout(resolve, 25));
			}
		},
		reset: async () => {
			await control("POST", "reset");
		},
		stop: server.stop,
		stderr: server.stderr,
	};
}

/**
 * One cloud fake for a test file: started before its tests, stopped after them, and before each test reset with
 * `scenarios` as its marker map. `fake` is the running instance.
 */
export function cloudFakeForFile(scenarios: Record<string, ScenarioInput>): { readonly fake: CloudFake } {
	let current: CloudFake | undefined;
	beforeAll(async () => {
		current = await startCloudFake();
	});
	afterAll(async () => {
		await current?.stop();
	});
	const holder = {
		get fake(): CloudFake {
			if (!current) throw new Error("the cloud fake runs only while the file's tests run");
			return current;
		},
	};
	beforeEach(async () => {
		await holder.fake.reset();
		await holder.fake.setScenarioMap(scenarios);
	});
	return holder;
}
