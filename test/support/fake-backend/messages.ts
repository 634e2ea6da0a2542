// Builders for AgentServerMessage JSON (encoded by codec.ts) and summaries of decoded client messages.

import type { Json, JsonObject } from "./codec.ts";
import type { ExecSpec, McpToolSpec, ToolCallSpec, UsageSpec } from "./scenario.ts";

export function interactionUpdate(update: JsonObject): JsonObject {
	return { interaction_update: update };
}

export const textDelta = (text: string): JsonObject => interactionUpdate({ text_delta: { text } });

export const thinkingDelta = (text: string, style?: number): JsonObject =>
	interactionUpdate({ thinking_delta: style === undefined ? { text } : { text, thinking_style: style } });

export const thinkingCompleted = (ms: number): JsonObject =>
	interactionUpdate({ thinking_completed: { thinking_duration_ms: ms } });

export const turnEnded = (usage: UsageSpec): JsonObject =>
	interactionUpdate({
		turn_ended: {
			input_tokens: usage.inputTokens,
			output_tokens: usage.outputTokens,
			cache_read_tokens: usage.cacheReadTokens,
			cache_write_tokens: usage.cacheWriteTokens,
			reasoning_tokens: usage.reasoningTokens,
		} as JsonObject,
	});

export const stepStarted = (stepId: number): JsonObject => interactionUpdate({ step_started: { step_id: stepId } });

export const stepCompleted = (stepId: number, durationMs = 0): JsonObject =>
	interactionUpdate({ step_completed: { step_id: stepId, step_duration_ms: durationMs } });

export function mcpName(spec: McpToolSpec): { name: string; provider: string } {
	const provider = spec.providerIdentifier ?? "custom-user-tools";
	return { provider, name: spec.name ?? `${provider}-${spec.toolName}` };
}

/** McpArgs JSON for an MCP tool spec. */
export function mcpArgs(spec: McpToolSpec, toolCallId: string): JsonObject {
	const { name, provider } = mcpName(spec);
	return {
		name,
		args: spec.args ?? {},
		tool_call_id: toolCallId,
		provider_identifier: provider,
		tool_name: spec.toolName,
		server_identifier: provider,
	};
}

/** agent.v1.ToolCall JSON for a tool-call update. `cwd` fills in a missing shell working directory. */
export function toolCallJson(spec: ToolCallSpec, cwd: string | undefined): JsonObject {
	if (spec.toolCall) return spec.toolCall;
	if (spec.shell) {
		const workingDirectory = spec.shell.workingDirectory ?? cwd ?? "";
		const args = { command: spec.shell.command, working_directory: workingDirectory };
		const r = spec.shell.result;
		const result = r
			? {
					success: {
						command: spec.shell.command,
						working_directory: workingDirectory,
						exit_code: r.exitCode ?? 0,
						signal: r.signal ?? "",
						stdout: r.stdout ?? "",
						stderr: r.stderr ?? "",
						execution_time: r.executionTime ?? 0,
					},
				}
			: undefined;
		return { shell_tool_call: result ? { args, result } : { args } };
	}
	if (spec.read) {
		const r = spec.read.result;
		let result: JsonObject | undefined;
		if (r && "error" in r) result = { error: { error_message: r.error } };
		else if (r) {
			result = {
				success: {
					content: r.content,
					total_lines: r.totalLines ?? r.content.split("\n").length,
					file_size: r.fileSize ?? Buffer.byteLength(r.content),
					path: spec.read.path,
				},
			};
		}
		return { read_tool_call: result ? { args: { path: spec.read.path }, result } : { args: { path: spec.read.path } } };
	}
	if (spec.edit) {
		const r = spec.edit.result;
		let result: JsonObject | undefined;
		if (r && "error" in r) result = { error: { path: spec.edit.path, error: r.error } };
		else if (r) {
			result = {
				success: {
					path: spec.edit.path,
					lines_added: r.linesAdded,
					lines_removed: r.linesRemoved,
					diff_string: r.diffString,
					after_full_file_content: r.afterContent ?? "",
				} as JsonObject,
			};
		}
		return { edit_tool_call: result ? { args: { path: spec.edit.path }, result } : { args: { path: spec.edit.path } } };
	}
	if (spec.delete) return { delete_tool_call: { args: { path: spec.delete.path } } };
	if (spec.ls) return { ls_tool_call: { args: { path: spec.ls.path } } };
	if (spec.grep)
		return { grep_tool_call: { args: { pattern: spec.grep.pattern, path: spec.grep.path } as JsonObject } };
	if (spec.glob) {
		return {
			glob_tool_call: {
				args: { glob_pattern: spec.glob.globPattern, target_directory: spec.glob.targetDirectory } as JsonObject,
			},
		};
	}
	if (spec.mcp) {
		const r = spec.mcp.result;
		let result: JsonObject | undefined;
		if (r && "error" in r) result = { error: { error: r.error } };
		else if (r) result = { success: { content: [{ text: { text: r.text } }], is_error: r.isError ?? false } };
		const args = mcpArgs(spec.mcp, spec.callId);
		return { mcp_tool_call: result ? { args, result } : { args } };
	}
	if (spec.createPlan) {
		const { plan, name, overview, result: r } = spec.createPlan;
		const args = { plan, ...(name !== undefined ? { name } : {}), ...(overview !== undefined ? { overview } : {}) };
		let result: JsonObject | undefined;
		if (r === "success") result = { success: {} };
		else if (r) result = { error: { error: r.error } };
		return { create_plan_tool_call: result ? { args, result } : { args } };
	}
	throw new Error(
		`tool call ${spec.callId} has no kind (shell, read, edit, delete, ls, grep, glob, mcp, createPlan, toolCall)`,
	);
}

export function toolCallUpdate(
	kind: "tool_call_started" | "tool_call_completed" | "partial_tool_call",
	spec: ToolCallSpec & { argsTextDelta?: string },
	cwd: string | undefined,
): JsonObject {
	const body: JsonObject = {
		call_id: spec.callId,
		tool_call: toolCallJson(spec, cwd),
		model_call_id: spec.modelCallId ?? `model-${spec.callId}`,
	};
	if (kind === "partial_tool_call" && spec.argsTextDelta !== undefined) body.args_text_delta = spec.argsTextDelta;
	return interactionUpdate({ [kind]: body });
}

/** The args case of an ExecServerMessage for an exec spec (without id). `cwd` fills in missing directories. */
export function execArgs(spec: ExecSpec, cwd: string | undefined): JsonObject {
	if (spec.raw) return spec.raw;
	if (spec.shell) {
		const args: JsonObject = {
			command: spec.shell.command,
			working_directory: spec.shell.workingDirectory ?? cwd ?? "",
			timeout: spec.shell.timeout ?? 10000,
			tool_call_id: spec.shell.toolCallId ?? "",
		};
		if (!spec.shell.omitParsingResult) args.parsing_result = {};
		return spec.shell.stream ? { shell_stream_args: args } : { shell_args: args };
	}
	if (spec.read) {
		return {
			read_args: {
				path: spec.read.path,
				tool_call_id: spec.read.toolCallId ?? "",
				offset: spec.read.offset,
				limit: spec.read.limit,
			} as JsonObject,
		};
	}
	if (spec.write) {
		return {
			write_args: { path: spec.write.path, file_text: spec.write.fileText, tool_call_id: spec.write.toolCallId ?? "" },
		};
	}
	if (spec.delete) return { delete_args: { path: spec.delete.path, tool_call_id: spec.delete.toolCallId ?? "" } };
	if (spec.ls) return { ls_args: { path: spec.ls.path, tool_call_id: spec.ls.toolCallId ?? "" } };
	if (spec.grep) {
		return {
			grep_args: {
				pattern: spec.grep.pattern,
				path: spec.grep.path,
				tool_call_id: spec.grep.toolCallId ?? "",
			} as JsonObject,
		};
	}
	if (spec.mcp) return { mcp_args: mcpArgs(spec.mcp, spec.mcp.toolCallId ?? "") };
	if (spec.requestContext) {
		return { request_context_args: spec.requestContext === true ? {} : spec.requestContext };
	}
	throw new Error("exec step has no kind (shell, read, write, delete, ls, grep, mcp, requestContext, raw)");
}

// ── Client message summaries ─────────────────────────────────────────────────────────────────────────────────

export type ClientMessageKind =
	| "run_request"
	| "exec_result"
	| "exec_stream_close"
	| "exec_throw"
	| "exec_heartbeat"
	| "client_heartbeat"
	| "kv"
	| "conversation_action"
	| "other";

const MODES: Record<number, string> = {
	0: "unspecified",
	1: "agent",
	2: "ask",
	3: "plan",
	4: "debug",
	5: "triage",
	6: "project",
	7: "multitask",
	8: "custom",
};

function obj(value: Json | undefined): JsonObject {
	return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
}

function arr(value: Json | undefined): Json[] {
	return Array.isArray(value) ? value : [];
}

export interface RunRequestSummary {
	conversationId: string | null;
	/** Turns (blob ids) of the conversation state the client sent: its latest checkpoint. */
	conversationTurns: number;
	runId: string | null;
	text: string;
	mode: string;
	modeNumber: number;
	modelId: string | null;
	params: { id: string; value: string }[];
	maxMode: boolean;
	images: { mimeType: string; data: string | null; blobId: string | null; width?: number; height?: number }[];
	mcpTools: string[];
	messageId: string;
}

export function summarizeRunRequest(runRequest: JsonObject): RunRequestSummary {
	const userMessage = obj(obj(obj(runRequest.action).user_message_action).user_message);
	const requestedModel = obj(runRequest.requested_model);
	const modeNumber = typeof userMessage.mode === "number" ? userMessage.mode : 0;
	const images = arr(obj(userMessage.selected_context).selected_images).map((raw) => {
		const image = obj(raw);
		const withData = obj(image.blob_id_with_data);
		const dimension = obj(image.dimension);
		const data = (image.data ?? withData.data ?? null) as string | null;
		const blobId = (image.blob_id ?? withData.blob_id ?? null) as string | null;
		return {
			mimeType: String(image.mime_type ?? ""),
			data,
			blobId,
			...(typeof dimension.width === "number" ? { width: dimension.width } : {}),
			...(typeof dimension.height === "number" ? { height: dimension.height } : {}),
		};
	});
	return {
		conversationId: typeof runRequest.conversation_id === "string" ? runRequest.conversation_id : null,
		conversationTurns: arr(obj(runRequest.conversation_state).turns).length,
		runId: typeof runRequest.run_id === "string" ? runRequest.run_id : null,
		text: String(userMessage.text ?? ""),
		mode: MODES[modeNumber] ?? String(modeNumber),
		modeNumber,
		modelId: typeof requestedModel.model_id === "string" ? requestedModel.model_id : null,
		params: arr(requestedModel.parameters).map((p) => ({
			id: String(obj(p).id ?? ""),
			value: String(obj(p).value ?? ""),
		})),
		maxMode: requestedModel.max_mode === true,
		images,
		mcpTools: arr(obj(runRequest.mcp_tools).mcp_tools).map((t) => String(obj(t).name ?? "")),
		messageId: String(userMessage.message_id ?? ""),
	};
}

export interface ClientMessageSummary {
	kind: ClientMessageKind;
	/** Exec id for exec results, stream_close, throw and exec heartbeats. */
	execId?: number;
	/** Result case name for exec results (`shell_result`, `read_result`, `shell_stream`, …). */
	resultCase?: string;
	/** The decoded result (the value of the result case). */
	result?: JsonObject;
	runRequest?: RunRequestSummary;
}

const EXEC_META = new Set(["id", "exec_id", "local_execution_time_ms", "hook_additional_contexts"]);

export function summarizeClientMessage(message: JsonObject): ClientMessageSummary {
	if (message.run_request) {
		return { kind: "run_request", runRequest: summarizeRunRequest(obj(message.run_request)) };
	}
	if (message.exec_client_message) {
		const exec = obj(message.exec_client_message);
		const resultCase = Object.keys(exec).find((k) => !EXEC_META.has(k));
		return {
			kind: "exec_result",
			execId: typeof exec.id === "number" ? exec.id : 0,
			...(resultCase ? { resultCase, result: obj(exec[resultCase]) } : {}),
		};
	}
	if (message.exec_client_control_message) {
		const control = obj(message.exec_client_control_message);
		if (control.stream_close) return { kind: "exec_stream_close", execId: Number(obj(control.stream_close).id ?? 0) };
		if (control.throw)
			return { kind: "exec_throw", execId: Number(obj(control.throw).id ?? 0), result: obj(control.throw) };
		if (control.heartbeat) return { kind: "exec_heartbeat", execId: Number(obj(control.heartbeat).id ?? 0) };
	}
	if (message.client_heartbeat) return { kind: "client_heartbeat" };
	if (message.kv_client_message) return { kind: "kv", result: obj(message.kv_client_message) };
	if (message.conversation_action) return { kind: "conversation_action", result: obj(message.conversation_action) };
	return { kind: "other" };
}
