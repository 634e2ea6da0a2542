// Runs the fake Cursor backend in its own process.
//   bun test/support/fake-backend/main.ts [config.json]
// Prints one JSON line {"url":"http://127.0.0.1:NNNN","pid":N} when ready. Exits when stdin (a pipe) closes, or
// on SIGTERM / SIGINT. The optional config file is {rest?, scenarios?, scenarioMap?, defaultScenario?}.

import { readFileSync } from "node:fs";
import { stopWithParent } from "../processes.ts";
import type { ScenarioInput } from "./scenario.ts";
import { normalizeScenario } from "./scenario.ts";
import { startFakeBackendServer } from "./server.ts";
import type { RestBehaviour } from "./state.ts";

interface MainConfig {
	rest?: Partial<RestBehaviour>;
	scenarios?: ScenarioInput[];
	scenarioMap?: Record<string, ScenarioInput>;
	defaultScenario?: ScenarioInput;
}

const configPath = process.argv[2];
const config: MainConfig = configPath ? (JSON.parse(readFileSync(configPath, "utf8")) as MainConfig) : {};

const server = await startFakeBackendServer();
if (config.rest) server.state.setRest(config.rest);
if (config.scenarios) server.state.enqueue(config.scenarios);
if (config.scenarioMap) {
	for (const [marker, input] of Object.entries(config.scenarioMap)) {
		server.state.scenarioMap[marker] = normalizeScenario(input);
	}
}
if (config.defaultScenario) server.state.defaultScenario = normalizeScenario(config.defaultScenario);

let stopping = false;
const stop = (code: number) => {
	if (stopping) return;
	stopping = true;
	const timer = setTimeout(() => process.exit(code), 1000);
	timer.unref?.();
	server.close().then(() => process.exit(code));
};

stopWithParent(() => stop(0));

process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid })}\n`);
