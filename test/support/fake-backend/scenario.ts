// The scenario language: plain JSON data describing what the fake backend streams on one RunSSE.
// See README.md in this directory for the full reference.

import type { JsonObject } from "./codec.ts";

export interface UsageSpec {
	inputTokens?: number;
	outputTokens?: number;
	cacheReadTokens?: number;
	cacheWriteTokens?: number;
	reasoningTokens?: number;
}

export interface ShellToolSpec {
	command: string;
	/** Absolute path; defaults to the workspace when known (after an exec in this run), else "". */
	workingDirectory?: string;
	/** Result shown in a tool-call update (ignored by exec). */
	result?: { exitCode?: number; stdout?: string; stderr?: string; signal?: string; executionTime?: number };
}

export interface ReadToolSpec {
	path: string;
	result?: { content: string; totalLines?: number; fileSize?: number } | { error: string };
}

export interface EditToolSpec {
	path: string;
	result?:
		| { linesAdded?: number; linesRemoved?: number; diffString?: string; afterContent?: string }
		| { error: string };
}

export interface McpToolSpec {
	/** The bare tool name (`echo_tool`). */
	toolName: string;
	/** Defaults to `custom-user-tools` (the SDK's `local.customTools` server). */
	providerIdentifier?: string;
	/** Advertised name; defaults to `<providerIdentifier>-<toolName>`. */
	name?: string;
	/**
	 * Exec steps only: call the tool the way Cursor's model would, as the SDK advertised it: the provider (and name)
	 * of the advertised tool whose `tool_name` is `toolName`. In-process tools (`local.customTools`) are listed in the
	 * run request's `mcp_tools`; an MCP server's tools only in the request context (asked with a hidden exec). A tool
	 * the SDK did not advertise is not called (a model cannot): the run's `unadvertisedCalls` records it.
	 */
	advertised?: boolean;
	args?: JsonObject;
	result?: { text: string; isError?: boolean } | { error: string };
}

/** Cursor's plan (plan mode): the SDK reports only `plan` (markdown); `name` and `overview` travel on the wire. */
export interface CreatePlanToolSpec {
	plan: string;
	name?: string;
	overview?: string;
	/** Cursor's answer to the plan: `"success"` (what a local SDK run gets) or an error. */
	result?: "success" | { error: string };
}

/** A tool call as shown to the client in tool-call updates (one kind, or a raw agent.v1.ToolCall). */
export interface ToolCallSpec {
	callId: string;
	/** Defaults to `model-<callId>`. */
	modelCallId?: string;
	shell?: ShellToolSpec;
	read?: ReadToolSpec;
	edit?: EditToolSpec;
	delete?: { path: string };
	ls?: { path: string };
	grep?: { pattern: string; path?: string };
	glob?: { globPattern: string; targetDirectory?: string };
	mcp?: McpToolSpec;
	createPlan?: CreatePlanToolSpec;
	/** Raw agent.v1.ToolCall JSON (snake_case proto field names). */
	toolCall?: JsonObject;
}

/** An exec request: makes the SDK execute something locally and send the result back. */
export interface ExecSpec {
	/** Exec id; defaults to 1, 2, 3… per stream. */
	id?: number;
	execId?: string;
	shell?: {
		command: string;
		/**
		 * Defaults to the agent's workspace, learned with a hidden request-context exec (an empty working directory
		 * would make the SDK run the command in its process cwd, not the agent's cwd).
		 */
		workingDirectory?: string;
		timeout?: number;
		toolCallId?: string;
		/** Use `shell_stream_args` (streamed stdout/exit events) instead of one-shot `shell_args`. */
		stream?: boolean;
		/** Omit the (required) parsing_result, to provoke the client's spawn_error. */
		omitParsingResult?: boolean;
	};
	read?: { path: string; toolCallId?: string; offset?: number; limit?: number };
	write?: { path: string; fileText: string; toolCallId?: string };
	delete?: { path: string; toolCallId?: string };
	ls?: { path: string; toolCallId?: string };
	grep?: { pattern: string; path?: string; toolCallId?: string };
	mcp?: McpToolSpec & { toolCallId?: string };
	/** request_context_args: the client answers with its workspace, tools and environment. */
	requestContext?: JsonObject | true;
	/** Raw ExecServerMessage JSON (the id is added unless present). */
	raw?: JsonObject;
	/** Wait for the client's result and stream_close (default true). */
	waitForResult?: boolean;
	/** Give up waiting after this long and end the stream with deadline_exceeded (default 30000). */
	timeoutMs?: number;
	/** Send exec_server_control_message.abort for this exec after this many ms. */
	abortAfterMs?: number;
}

/** Macro: tool_call_started → exec → (shell output delta) → tool_call_completed built from the real result. */
export interface ToolMacroSpec {
	callId?: string;
	modelCallId?: string;
	shell?: { command: string; workingDirectory?: string; timeout?: number };
	read?: { path: string };
	mcp?: McpToolSpec;
	timeoutMs?: number;
}

export type Step =
	| { thinking: string; thinkingStyle?: number }
	| { thinkingCompleted: number }
	| { text: string }
	| { echo: true | string }
	| { tokenDelta: number }
	| { stepStarted: number }
	| { stepCompleted: number | { stepId: number; durationMs?: number } }
	| { toolCallStarted: ToolCallSpec }
	| { toolCallCompleted: ToolCallSpec }
	| { partialToolCall: ToolCallSpec & { argsTextDelta?: string } }
	| { toolRequestsListed: number }
	| { shellOutput: { stdout?: string; stderr?: string; exit?: { code?: number; cwd?: string } } }
	| { userMessageAppended: string }
	| { summary: string }
	| { heartbeat: true }
	| { interactionUpdate: JsonObject }
	| { raw: JsonObject }
	| { rawHex: string }
	| { exec: ExecSpec }
	| { tool: ToolMacroSpec }
	| { abortExec: number }
	| { turnEnded: UsageSpec | true }
	| { error: { code: string; message: string } }
	| { end: true }
	| { delay: number }
	| { hang: true }
	| { steer: SteerSpec };

/**
 * Waits for the client's steer (`Run.steer(text)`: a `conversation_action.inject_context_action` append) and answers
 * with `context_injection_state`: `delivered` settles the SDK's promise as `complete_delivered`;
 * `queued_for_next_turn`, `cancelled` and `rejected` as `revert_to_followup`; `none` answers nothing (the SDK gives up
 * after 15 s: `revert_to_followup`).
 */
export interface SteerSpec {
	state: "delivered" | "queued_for_next_turn" | "cancelled" | "rejected" | "none";
	/** On `delivered`: a text delta of this prefix plus the steered text (what Cursor made of it). */
	echo?: string;
	/** How long to wait for the steer (default 30000); without one the step records a problem and the run goes on. */
	timeoutMs?: number;
}

export interface Scenario {
	name?: string;
	/** Answer RunSSE with this HTTP status (for example 401 or 500) and no stream. */
	httpStatus?: number;
	steps?: Step[];
	/** Delay between frames, in ms (default 0). */
	frameDelayMs?: number;
}

/** A scenario or its bare list of steps. */
export type ScenarioInput = Scenario | Step[];

export function normalizeScenario(input: ScenarioInput): Scenario {
	return Array.isArray(input) ? { steps: input } : input;
}

export const DEFAULT_SCENARIO: Scenario = {
	name: "default",
	steps: [
		{ stepStarted: 1 },
		{ thinking: "Thinking about it..." },
		{ thinkingCompleted: 5 },
		{ text: "Hello from fake backend" },
		{ stepCompleted: { stepId: 1, durationMs: 10 } },
		{ turnEnded: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 } },
	],
};
