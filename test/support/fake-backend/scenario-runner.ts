// Plays one scenario on an open RunSSE stream: writes AgentServerMessage envelopes, waits for exec results.

import { encodeMessage, type Json, type JsonObject } from "./codec.ts";
import { dataEnvelope, endStreamEnvelope } from "./connect.ts";
import {
	execArgs,
	interactionUpdate,
	mcpArgs,
	stepCompleted,
	stepStarted,
	summarizeRunRequest,
	textDelta,
	thinkingCompleted,
	thinkingDelta,
	toolCallUpdate,
	turnEnded,
} from "./messages.ts";
import type { DeliveredMessage, RunSession } from "./run-session.ts";
import type { ExecSpec, Scenario, SteerSpec, Step, ToolMacroSpec } from "./scenario.ts";
import type { RunInfo } from "./state.ts";
import { fromHex } from "./wire.ts";

/** Where frames go: the RunSSE response. */
export interface StreamSink {
	write(bytes: Uint8Array): void;
	end(bytes: Uint8Array): void;
}

type StepOutcome = "continue" | "stop";

interface ExecOutcome {
	id: number;
	results: DeliveredMessage[];
	/** False when the wait timed out or the stream closed first. */
	completed: boolean;
}

function obj(value: Json | undefined): JsonObject {
	return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
}

/** Workspace path advertised in a request context (`env.workspace_paths[0]`). */
export function workspaceFromRequestContext(requestContext: JsonObject): string | undefined {
	const env = obj(requestContext.env);
	const paths = env.workspace_paths;
	if (Array.isArray(paths) && typeof paths[0] === "string" && paths[0]) return paths[0];
	return typeof env.process_working_directory === "string" && env.process_working_directory
		? env.process_working_directory
		: undefined;
}

export class ScenarioRunner {
	private readonly scenario: Scenario;
	private readonly session: RunSession;
	private readonly sink: StreamSink;
	private readonly run: RunInfo;
	private finished = false;
	private toolCount = 0;
	private advertisedCache: { name: string; provider: string; toolName: string }[] | undefined;

	constructor(scenario: Scenario, session: RunSession, sink: StreamSink, run: RunInfo) {
		this.scenario = scenario;
		this.session = session;
		this.sink = sink;
		this.run = run;
	}

	private get userText(): string {
		return this.session.runRequest ? summarizeRunRequest(this.session.runRequest).text : "";
	}

	private send(message: JsonObject): void {
		this.sendBytes(encodeMessage("AgentServerMessage", message));
	}

	private sendBytes(payload: Uint8Array): void {
		if (this.session.closed || this.finished) return;
		this.sink.write(dataEnvelope(payload));
		this.run.framesSent++;
	}

	private finish(error?: { code: string; message: string }): void {
		if (this.finished || this.session.closed) return;
		this.finished = true;
		this.sink.end(endStreamEnvelope(error));
		this.run.status = error ? "error-sent" : "ended";
		if (error) this.run.error = error;
	}

	private problem(message: string): void {
		this.run.problems.push(message);
	}

	/** Plays every step, then ends the stream cleanly unless a step already ended it (or it hangs). */
	async play(): Promise<void> {
		const steps = this.scenario.steps ?? [];
		const frameDelay = this.scenario.frameDelayMs ?? 0;
		try {
			for (const [index, step] of steps.entries()) {
				if (this.session.closed || this.finished) return;
				if (frameDelay > 0 && index > 0 && !(await this.session.sleep(frameDelay))) return;
				if ((await this.playStep(step)) === "stop") return;
			}
			this.finish();
		} catch (error) {
			const message = error instanceof Error ? error.message : String(error);
			this.problem(`scenario failed: ${message}`);
			this.finish({ code: "internal", message: `fake backend scenario error: ${message}` });
		}
	}

	private async playStep(step: Step): Promise<StepOutcome> {
		if ("thinking" in step) this.send(thinkingDelta(step.thinking, step.thinkingStyle));
		else if ("thinkingCompleted" in step) this.send(thinkingCompleted(step.thinkingCompleted));
		else if ("text" in step) this.send(textDelta(step.text));
		else if ("echo" in step) this.send(textDelta(`${step.echo === true ? "" : step.echo}${this.userText}`));
		else if ("tokenDelta" in step) this.send(interactionUpdate({ token_delta: { tokens: step.tokenDelta } }));
		else if ("stepStarted" in step) this.send(stepStarted(step.stepStarted));
		else if ("stepCompleted" in step) {
			const s = step.stepCompleted;
			this.send(typeof s === "number" ? stepCompleted(s) : stepCompleted(s.stepId, s.durationMs));
		} else if ("toolCallStarted" in step) {
			this.send(toolCallUpdate("tool_call_started", step.toolCallStarted, this.session.workspace));
		} else if ("toolCallCompleted" in step) {
			this.send(toolCallUpdate("tool_call_completed", step.toolCallCompleted, this.session.workspace));
		} else if ("partialToolCall" in step) {
			this.send(toolCallUpdate("partial_tool_call", step.partialToolCall, this.session.workspace));
		} else if ("toolRequestsListed" in step) {
			this.send(interactionUpdate({ tool_requests_listed: { call_count: step.toolRequestsListed } }));
		} else if ("shellOutput" in step) {
			const s = step.shellOutput;
			if (s.stdout !== undefined) this.send(interactionUpdate({ shell_output_delta: { stdout: { data: s.stdout } } }));
			if (s.stderr !== undefined) this.send(interactionUpdate({ shell_output_delta: { stderr: { data: s.stderr } } }));
			if (s.exit !== undefined) {
				this.send(
					interactionUpdate({
						shell_output_delta: { exit: { code: s.exit.code ?? 0, cwd: s.exit.cwd ?? this.session.workspace ?? "" } },
					}),
				);
			}
		} else if ("userMessageAppended" in step) {
			this.send(interactionUpdate({ user_message_appended: { user_message: { text: step.userMessageAppended } } }));
		} else if ("summary" in step) this.send(interactionUpdate({ summary: { summary: step.summary } }));
		else if ("heartbeat" in step) this.send(interactionUpdate({ heartbeat: {} }));
		else if ("interactionUpdate" in step) this.send(interactionUpdate(step.interactionUpdate));
		else if ("raw" in step) this.send(step.raw);
		else if ("rawHex" in step) this.sendBytes(fromHex(step.rawHex));
		else if ("exec" in step) {
			const spec = step.exec.mcp?.advertised ? await this.asAdvertised(step.exec) : step.exec;
			if (!spec) return "continue";
			const outcome = await this.exec(spec);
			if (!outcome.completed && spec.waitForResult !== false) return this.execFailed(outcome.id);
		} else if ("tool" in step) return this.toolMacro(step.tool);
		else if ("abortExec" in step) this.send({ exec_server_control_message: { abort: { id: step.abortExec } } });
		else if ("turnEnded" in step) {
			this.run.usage = step.turnEnded === true ? {} : step.turnEnded;
			this.send(turnEnded(this.run.usage));
		} else if ("error" in step) {
			this.finish(step.error);
			return "stop";
		} else if ("end" in step) {
			this.finish();
			return "stop";
		} else if ("delay" in step) {
			if (!(await this.session.sleep(step.delay))) return "stop";
		} else if ("steer" in step) {
			await this.steer(step.steer);
		} else if ("hang" in step) {
			this.run.status = "hanging";
			return "stop";
		} else {
			throw new Error(`unknown step ${JSON.stringify(step)}`);
		}
		return "continue";
	}

	/** Waits for the client's steer and answers it (see {@link SteerSpec}). */
	private async steer(spec: SteerSpec): Promise<void> {
		const steer = await this.session.waitFor(
			(m) => m.summary.kind === "conversation_action" && obj(m.summary.result).inject_context_action !== undefined,
			spec.timeoutMs ?? 30000,
		);
		if (!steer) {
			if (!this.session.closed) this.problem("no steer arrived");
			return;
		}
		const inject = obj(obj(steer.summary.result).inject_context_action);
		const text = String(obj(obj(inject.user_context).user_message).text ?? "");
		const bytes = steer.bytes ?? encodeMessage("AgentClientMessage", stripUnknown(steer.message)).length;
		this.run.steers = [...(this.run.steers ?? []), { text, state: spec.state, bytes }];
		if (spec.state === "none") return;
		const injectionId = String(inject.injection_id ?? "");
		this.send(
			interactionUpdate({ context_injection_state: { injection_id: injectionId, state: { [spec.state]: {} } } }),
		);
		if (spec.state === "delivered" && spec.echo !== undefined) this.send(textDelta(`${spec.echo}${text}`));
	}

	private execFailed(id: number): StepOutcome {
		if (this.session.closed) return "stop";
		const message = `fake backend: no result for exec ${id}`;
		this.problem(message);
		this.finish({ code: "deadline_exceeded", message });
		return "stop";
	}

	/**
	 * Learns the workspace with a hidden request-context exec (no UI events). Needed for shells without a working
	 * directory: with an empty working_directory the SDK runs the command in its process cwd, not the agent's cwd.
	 */
	private async learnWorkspace(): Promise<void> {
		if (this.session.workspace) return;
		await this.exec({ requestContext: true, timeoutMs: 10000 });
		if (!this.session.workspace) this.problem("could not learn the workspace directory");
	}

	/**
	 * The tools the SDK advertised to this run: the run request's `mcp_tools` (the SDK's in-process custom tools) and
	 * the request context's `tools` (every MCP tool, servers' included), asked once with a hidden exec.
	 */
	private async advertisedTools(): Promise<{ name: string; provider: string; toolName: string }[]> {
		if (this.advertisedCache) return this.advertisedCache;
		const outcome = await this.exec({ requestContext: true, timeoutMs: 10000 });
		const context = obj(
			obj(outcome.results.find((r) => r.summary.resultCase === "request_context_result")?.summary.result?.success)
				.request_context,
		);
		const listed = [
			...(Array.isArray(obj(this.session.runRequest?.mcp_tools).mcp_tools)
				? (obj(this.session.runRequest?.mcp_tools).mcp_tools as Json[])
				: []),
			...(Array.isArray(context.tools) ? context.tools : []),
		];
		this.advertisedCache = listed.map((raw) => {
			const tool = obj(raw);
			return {
				name: String(tool.name ?? ""),
				provider: String(tool.provider_identifier ?? ""),
				toolName: String(tool.tool_name ?? ""),
			};
		});
		return this.advertisedCache;
	}

	/** An `advertised` MCP exec bound to the provider the SDK advertised its tool under, or undefined (not offered). */
	private async asAdvertised(spec: ExecSpec): Promise<ExecSpec | undefined> {
		const mcp = spec.mcp;
		if (!mcp) return spec;
		const tool = (await this.advertisedTools()).find((candidate) => candidate.toolName === mcp.toolName);
		if (!tool) {
			this.run.unadvertisedCalls = [...(this.run.unadvertisedCalls ?? []), mcp.toolName];
			return undefined;
		}
		return { ...spec, mcp: { ...mcp, providerIdentifier: tool.provider, name: tool.name } };
	}

	private async exec(spec: ExecSpec): Promise<ExecOutcome> {
		if (spec.shell && spec.shell.workingDirectory === undefined) await this.learnWorkspace();
		let id: number;
		if (spec.id !== undefined) {
			id = spec.id;
			this.session.reserveExecId(id);
		} else id = this.session.allocateExecId();
		const args = execArgs(spec, this.session.workspace);
		const message: JsonObject = { id, ...args };
		if (spec.raw && spec.raw.id !== undefined) message.id = spec.raw.id;
		if (spec.execId) message.exec_id = spec.execId;
		this.send({ exec_server_message: message });
		let abortTimer: ReturnType<typeof setTimeout> | undefined;
		if (spec.abortAfterMs !== undefined) {
			abortTimer = setTimeout(() => this.send({ exec_server_control_message: { abort: { id } } }), spec.abortAfterMs);
		}
		try {
			if (spec.waitForResult === false) return { id, results: [], completed: true };
			const timeout = spec.timeoutMs ?? 30000;
			const done = await this.session.waitFor(
				(m) => (m.summary.kind === "exec_stream_close" || m.summary.kind === "exec_throw") && m.summary.execId === id,
				timeout,
			);
			if (done?.summary.kind === "exec_throw") {
				// A stream_close may follow a throw; give it a moment so ending the stream does not race it.
				await this.session.waitFor((m) => m.summary.kind === "exec_stream_close" && m.summary.execId === id, 1000);
			}
			const results = this.session.delivered.filter((m) => m.summary.kind === "exec_result" && m.summary.execId === id);
			for (const result of results) {
				if (result.summary.resultCase !== "request_context_result") continue;
				const requestContext = obj(obj(result.summary.result?.success).request_context);
				this.session.workspace = workspaceFromRequestContext(requestContext) ?? this.session.workspace;
			}
			return { id, results, completed: done !== undefined };
		} finally {
			if (abortTimer) clearTimeout(abortTimer);
		}
	}

	private async toolMacro(spec: ToolMacroSpec): Promise<StepOutcome> {
		this.toolCount++;
		const callId = spec.callId ?? `call-${this.toolCount}`;
		const modelCallId = spec.modelCallId ?? `model-${callId}`;
		const base = { callId, modelCallId };
		if (spec.shell && spec.shell.workingDirectory === undefined) await this.learnWorkspace();
		if (spec.shell) {
			const shell = { command: spec.shell.command, workingDirectory: spec.shell.workingDirectory };
			this.send(toolCallUpdate("tool_call_started", { ...base, shell }, this.session.workspace));
			const outcome = await this.exec({
				shell: { ...shell, toolCallId: callId, timeout: spec.shell.timeout },
				timeoutMs: spec.timeoutMs,
			});
			if (!outcome.completed) return this.execFailed(outcome.id);
			const shellResult = obj(outcome.results.find((r) => r.summary.resultCase === "shell_result")?.summary.result);
			const stdout = obj(shellResult.success ?? shellResult.failure).stdout;
			if (typeof stdout === "string" && stdout) {
				this.send(interactionUpdate({ shell_output_delta: { stdout: { data: stdout } } }));
			}
			const reported = obj(shellResult.success ?? shellResult.failure).working_directory;
			const workingDirectory =
				spec.shell.workingDirectory ?? (typeof reported === "string" ? reported : (this.session.workspace ?? ""));
			const toolCall = {
				shell_tool_call: {
					args: { command: spec.shell.command, working_directory: workingDirectory },
					result: stripUnknown(shellResult),
				},
			};
			this.send(toolCallUpdate("tool_call_completed", { ...base, toolCall }, this.session.workspace));
			return "continue";
		}
		if (spec.read) {
			this.send(toolCallUpdate("tool_call_started", { ...base, read: { path: spec.read.path } }, undefined));
			const outcome = await this.exec({
				read: { path: spec.read.path, toolCallId: callId },
				timeoutMs: spec.timeoutMs,
			});
			if (!outcome.completed) return this.execFailed(outcome.id);
			const readResult = obj(outcome.results.find((r) => r.summary.resultCase === "read_result")?.summary.result);
			let result: JsonObject;
			if (readResult.success) {
				const success = obj(readResult.success);
				result = {
					success: {
						content: String(success.content ?? ""),
						total_lines: Number(success.total_lines ?? 0),
						file_size: Number(success.file_size ?? 0),
						path: String(success.path ?? spec.read.path),
					},
				};
			} else {
				const [errorCase, value] = Object.entries(readResult)[0] ?? ["error", {}];
				result = { error: { error_message: `${errorCase}: ${JSON.stringify(value)}` } };
			}
			const toolCall = { read_tool_call: { args: { path: spec.read.path }, result } };
			this.send(toolCallUpdate("tool_call_completed", { ...base, toolCall }, undefined));
			return "continue";
		}
		if (spec.mcp) {
			this.send(toolCallUpdate("tool_call_started", { ...base, mcp: spec.mcp }, undefined));
			const outcome = await this.exec({ mcp: { ...spec.mcp, toolCallId: callId }, timeoutMs: spec.timeoutMs });
			if (!outcome.completed) return this.execFailed(outcome.id);
			const mcpResult = obj(outcome.results.find((r) => r.summary.resultCase === "mcp_result")?.summary.result);
			let result: JsonObject;
			if (mcpResult.success) result = { success: stripUnknown(obj(mcpResult.success)) };
			else {
				const [errorCase, value] = Object.entries(mcpResult)[0] ?? ["error", {}];
				const text = typeof obj(value).error === "string" ? String(obj(value).error) : JSON.stringify(value);
				result = { error: { error: errorCase === "error" ? text : `${errorCase}: ${text}` } };
			}
			const toolCall = { mcp_tool_call: { args: mcpArgs(spec.mcp, callId), result } };
			this.send(toolCallUpdate("tool_call_completed", { ...base, toolCall }, undefined));
			return "continue";
		}
		throw new Error("tool step needs one of shell, read, mcp");
	}
}

/** Removes generically decoded (unknown) fields so that a decoded message can be re-encoded. */
export function stripUnknown(value: JsonObject): JsonObject {
	const out: JsonObject = {};
	for (const [key, v] of Object.entries(value)) {
		if (key.startsWith("#")) continue;
		if (Array.isArray(v))
			out[key] = v.map((item) =>
				typeof item === "object" && item !== null && !Array.isArray(item) ? stripUnknown(item) : item,
			);
		else if (typeof v === "object" && v !== null) out[key] = stripUnknown(v);
		else out[key] = v;
	}
	return out;
}
