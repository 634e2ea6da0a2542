// The in-process transport of the Pi tool bridge, for runs with Cursor's sandbox or auto-review on (see
// src/bridge/transport.ts for why): the run's tools become the SDK's `local.customTools` of its send, which the SDK
// serves as the MCP server `custom-user-tools` and calls back in this process, without the interactive approval it
// demands (and cannot get) for a real MCP server on such runs. A call goes through the same queue as an MCP call
// (numbered ids, one at a time, the per-call deadline, settled when the run ends) to Pi's normal tool path.
//
// No port, no token: nothing leaves the process. The SDK gives a callback no cancellation signal, so a call ends by
// its result, its deadline, or the run ending (`close`), which answers Cursor with an error result.
import type { SDKCustomTool, SDKCustomToolResult } from "../sdk/cursor-sdk.ts";
import type { BridgeToolResult } from "./calls.ts";
import { type BridgeDebugSink, createBridgeDebugSink } from "./debug.ts";
import { newBridgeRunId } from "./ids.ts";
import { type BridgeRun, type BridgeRunOptions, bridgeCallQueue, bridgeRunOver } from "./run.ts";

export function startInProcessBridge(options: BridgeRunOptions): BridgeRun {
	const runId = options.runId ?? newBridgeRunId();
	const debug: BridgeDebugSink =
		options.debug === undefined || options.debug === false
			? () => {}
			: createBridgeDebugSink(true, options.debug === true ? undefined : options.debug);
	const queue = bridgeCallQueue(options, runId, debug);
	const customTools: Record<string, SDKCustomTool> = {};
	for (const tool of options.surface.tools) {
		customTools[tool.mcpName] = {
			description: tool.description,
			inputSchema: tool.inputSchema as SDKCustomTool["inputSchema"],
			execute: async (args, context) => {
				const plain = isRecord(args) ? (args as Record<string, unknown>) : {};
				return toCustomToolResult(await queue.submit(tool, plain, undefined, context?.toolCallId));
			},
		};
	}
	debug({ event: "server_started", runId, toolCount: options.surface.tools.length, reason: "in_process" });
	return bridgeRunOver(
		queue,
		{
			runId,
			sendOptions: { local: { customTools } },
			release: () => debug({ event: "server_closed", runId, reason: "in_process" }),
		},
		{},
	);
}

/** The bridge's result as the SDK takes it from a custom tool (the same text and image blocks as MCP). */
function toCustomToolResult(result: BridgeToolResult): SDKCustomToolResult {
	return { content: result.content.map((block) => ({ ...block })), isError: result.isError === true };
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === "object" && !Array.isArray(value);
}
