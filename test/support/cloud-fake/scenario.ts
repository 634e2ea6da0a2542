// The scenario language of the cloud fake: what one cloud run streams (thinking, text, tool calls, usage, the final
// result with its branch and PR), and the faults of its stream (a cut after N events, a quiet stretch, a hang).

/** A Cursor tool call as the SDK's `InteractionUpdate` carries it (`{type, args, result?}`). */
export type ToolCallJson = Record<string, unknown> & { type: string };

export interface GitBranch {
	repoUrl: string;
	branch?: string;
	prUrl?: string;
}

export interface UsageSpec {
	inputTokens: number;
	outputTokens: number;
	cacheReadTokens?: number;
	cacheWriteTokens?: number;
	reasoningTokens?: number;
}

export type Step =
	/** A `thinking` frame and its `thinking-delta` interaction update. */
	| { thinking: string }
	| { thinkingCompleted: number }
	/** An `assistant` frame and its `text-delta` interaction update. */
	| { text: string }
	/** `tool_call` frames (running, then completed) and `tool-call-started` / `tool-call-completed` updates. */
	| { tool: { callId: string; toolCall: ToolCallJson } }
	/** Only the start of a tool call (it never completes). */
	| { toolStarted: { callId: string; toolCall: ToolCallJson } }
	| { turnEnded: UsageSpec }
	/** The `user-message-appended` update of the run's prompt (what gives `run.conversation()` its user message). */
	| { userMessage: true }
	/** Any interaction update, as it is (e.g. an invalid one the SDK drops). */
	| { interactionUpdate: Record<string, unknown> }
	| { status: string }
	| { heartbeat: true }
	/** An SSE `error` event (`unauthorized`/`forbidden`/`not_found` end the run; other codes make the SDK reconnect). */
	| { sseError: { code: string; message: string } }
	/** A quiet stretch: nothing is sent for this long. */
	| { delay: number }
	/** Nothing is sent until the test opens this gate (`CloudFake.openGate`): runs wait on the test, not on a clock. */
	| { gate: string }
	/** Stop producing: the run stays RUNNING until it is cancelled. */
	| { hang: true };

export interface ResultSpec {
	/** `FINISHED` (default), `ERROR`, … */
	status?: string;
	/** The run's final text (`result`); defaults to the concatenated text steps. */
	result?: string;
	error?: { code?: string; message: string };
	git?: { branches: GitBranch[] };
	durationMs?: number;
	/** Files the agent has once the run finished (`GET /v1/agents/:id/artifacts`). */
	artifacts?: { path: string; content: string }[];
}

export interface Scenario {
	name?: string;
	steps: Step[];
	/** The terminal `result` event (default: FINISHED with the streamed text). `null`: none (the stream just ends). */
	result?: ResultSpec | null;
	/** Pause between events (ms, default 0). */
	frameDelayMs?: number;
	/** The run's first stream connection is dropped after this many events (the SDK reconnects with Last-Event-ID). */
	cutAfter?: number;
	/** Answer the stream request with this HTTP status and an error body instead of streaming. */
	streamStatus?: number;
}

export type ScenarioInput = Scenario | Step[];

export const DEFAULT_SCENARIO: Scenario = {
	name: "default",
	steps: [
		{ thinking: "Looking at the repository." },
		{ text: "Hello from the cloud fake" },
		{ turnEnded: { inputTokens: 10, outputTokens: 5 } },
	],
};

export function normalizeScenario(input: ScenarioInput): Scenario {
	return Array.isArray(input) ? { steps: input } : input;
}

/** The final text of a scenario: its text steps, concatenated. */
export function scenarioText(scenario: Scenario): string {
	return scenario.steps.map((step) => ("text" in step ? step.text : "")).join("");
}
