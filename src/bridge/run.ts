// The contract of one run's Pi tool bridge, whichever way Cursor reaches it (src/bridge/transport.ts): the loopback
// MCP server (src/bridge/server.ts) or the SDK's in-process tools (src/bridge/in-process.ts). Types only.
import type { McpServerConfig, SDKCustomTool } from "../sdk/cursor-sdk.ts";
import type { BridgeCallHandler } from "./calls.ts";
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
