// The contract of one run's Pi tool bridge, whichever way Cursor reaches it (src/bridge/transport.ts): the loopback
// MCP server (src/bridge/server.ts) or the SDK's in-process tools (src/bridge/in-process.ts), and the part both share:
// the run's call queue and its closing.
import type { McpServerConfig, SDKCustomTool } from "../sdk/cursor-sdk.ts";
import { type BridgeCallHandler, BridgeCallQueue } from "./calls.ts";
import type { BridgeDebugSink } from "./debug.ts";
import type { BridgeSurface } from "./snapshot.ts";

export interface BridgeRunOptions {
	readonly surface: BridgeSurface;
	/** Runs one call (in the wired extension: through Pi's normal tool path). */
	readonly handler: BridgeCallHandler;
	/** Deadline of one call (see `readBridgeSettings().callTimeoutMs`). */
	readonly callTimeoutMs: number;
	/** Calls handed to the handler at once (default 1). */
	readonly concurrency?: number;
	/** 32 hex; random by default. */
	readonly runId?: string;
	/** `true`: scrubbed JSON lines on stderr; a function: where to write them (tests). */
	readonly debug?: boolean | ((line: string) => void);
}

/** What the run's `send` gets: the MCP server (`mcpServers`) or the in-process tools (`local.customTools`). */
export interface BridgeSendOptions {
	readonly mcpServers?: Record<string, McpServerConfig>;
	readonly local?: { readonly customTools: Record<string, SDKCustomTool> };
}

export interface BridgeRun {
	readonly runId: string;
	/** Spread into the run's `send` options. May hold the MCP server's secret URL: never log or persist it. */
	readonly sendOptions: BridgeSendOptions;
	/** Calls queued or running. */
	pendingCalls(): number;
	readonly closed: boolean;
	/** Settles pending calls with an error result, aborts running handlers, releases what the transport holds. */
	close(): Promise<void>;
}

/** The run's call queue: the same ids, order, deadline and settling whichever transport carries the calls. */
export function bridgeCallQueue(options: BridgeRunOptions, runId: string, debug: BridgeDebugSink): BridgeCallQueue {
	return new BridgeCallQueue({
		runId,
		handler: options.handler,
		callTimeoutMs: options.callTimeoutMs,
		...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
		debug,
	});
}

/**
 * The run over `queue`, with what its transport adds (`extra`): the first `close` settles the queue, then `release`s
 * what the transport holds; later ones do nothing.
 */
export function bridgeRunOver<T extends object>(
	queue: BridgeCallQueue,
	run: { runId: string; sendOptions: BridgeSendOptions; release: () => void | Promise<void> },
	extra: T,
): BridgeRun & T {
	let closed = false;
	return {
		...extra,
		runId: run.runId,
		sendOptions: run.sendOptions,
		pendingCalls: () => queue.pending,
		get closed() {
			return closed;
		},
		async close() {
			if (closed) return;
			closed = true;
			queue.close();
			await run.release();
		},
	};
}
