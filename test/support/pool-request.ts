// A turn setup, a session pool request and a turn watch for pool and turn tests: deadlines far beyond any test.
import type { Message } from "@earendil-works/pi-ai";
import type { PoolRequest } from "../../src/session/pool.ts";
import { readEnv } from "../../src/settings/env.ts";
import type { TurnSetup } from "../../src/turn/types.ts";
import { TurnWatch } from "../../src/turn/watch.ts";

const FAR = 60_000;

/** A composer-2 agent-mode turn with every variable unset (an empty env), `overrides` on top. */
export function turnSetup(overrides: Partial<TurnSetup> = {}): TurnSetup {
	return {
		apiKey: "key_a",
		runtime: "local",
		baseModelId: "composer-2",
		selection: { id: "composer-2" },
		mode: "agent",
		timeouts: { firstResponseMs: FAR, idleMs: FAR },
		liveRunIdleMs: FAR,
		settingSources: ["all"],
		http1: undefined,
		safety: {},
		subagents: {},
		summary: false,
		bridgeEnv: readEnv({}),
		taskWording: "subagent",
		...overrides,
	};
}

export function poolRequest(
	messages: Message[],
	options: { setup?: Partial<TurnSetup> } & Partial<Omit<PoolRequest, "setup">> = {},
): PoolRequest {
	const { setup, ...extra } = options;
	return {
		setup: turnSetup(setup),
		messages,
		cwd: "/projects/app",
		settingSources: ["all"],
		transport: "http1=default",
		...extra,
	};
}

export const testWatch = (signal?: AbortSignal) => new TurnWatch(signal, { firstResponseMs: FAR, idleMs: FAR });
