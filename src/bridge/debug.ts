// Opt-in bridge diagnostics (`PI_CURSOR_PI_TOOL_BRIDGE_DEBUG=1`): one JSON object per line on stderr, prefixed
// `[pi-cursor-sdk:bridge]`. Records are typed and every field is allowlisted and checked, so endpoint URLs, path
// tokens, file paths, arguments and results cannot reach the output even by mistake.
import { createHash } from "node:crypto";

export const BRIDGE_DEBUG_PREFIX = "[pi-cursor-sdk:bridge]";

export type BridgeDebugEvent =
	| "server_started"
	| "server_closed"
	| "mcp_initialized"
	| "mcp_tools_list"
	| "call_queued"
	| "call_started"
	| "call_resolved"
	| "call_failed"
	| "call_expired"
	| "call_cancelled"
	| "call_rejected"
	| "request_rejected";

export interface BridgeDebugRecord {
	event: BridgeDebugEvent;
	/** The bridge run id (32 hex; unrelated to the endpoint token). */
	runId?: string;
	/** Real Pi tool name. */
	tool?: string;
	/** MCP name (`pi__…`). */
	mcpName?: string;
	/** Bridge tool-call id (`cursor-pi-bridge-…`). */
	callId?: string;
	/** The MCP JSON-RPC request id, hashed by the sink. */
	mcpRequestId?: string | number;
	toolCount?: number;
	pending?: number;
	queued?: number;
	durationMs?: number;
	timeoutMs?: number;
	/** A short code such as `deadline`, `mcp_cancel`, `closed`, `handler_error`, `host`, `origin`, `token`. */
	reason?: string;
	isError?: boolean;
}

export type BridgeDebugSink = (record: BridgeDebugRecord) => void;

/** Strings that may be printed: identifiers only (no `/`, `:`, `.`, spaces or quotes, so no URL or path). */
const SAFE_TEXT = /^[A-Za-z0-9_-]{1,128}$/;
const TEXT_FIELDS = ["runId", "tool", "mcpName", "callId", "reason"] as const;
const NUMBER_FIELDS = ["toolCount", "pending", "queued", "durationMs", "timeoutMs"] as const;

/** The printable line for a record, or undefined when it carries a secret. Pure. */
export function formatBridgeDebugRecord(
	record: BridgeDebugRecord,
	secrets: readonly string[] = [],
): string | undefined {
	const out: Record<string, string | number | boolean> = { event: record.event };
	for (const field of TEXT_FIELDS) {
		const value = record[field];
		if (value === undefined) continue;
		out[field] = SAFE_TEXT.test(value) ? value : "[redacted]";
	}
	for (const field of NUMBER_FIELDS) {
		const value = record[field];
		if (value !== undefined && Number.isFinite(value)) out[field] = Math.round(value);
	}
	if (record.mcpRequestId !== undefined) out.mcpRequestId = hashId(String(record.mcpRequestId));
	if (record.isError !== undefined) out.isError = record.isError === true;
	const line = `${BRIDGE_DEBUG_PREFIX} ${JSON.stringify(out)}`;
	return secrets.some((secret) => secret.length > 0 && line.includes(secret)) ? undefined : line;
}

function hashId(value: string): string {
	return createHash("sha256").update(value).digest("hex").slice(0, 12);
}

/**
 * A sink writing to `write` (stderr by default) when enabled, and a no-op otherwise. `secrets` (e.g. the endpoint
 * token) are checked on every line as a last guard.
 */
export function createBridgeDebugSink(
	enabled: boolean,
	write: (line: string) => void = (line) => process.stderr.write(line),
	secrets: () => readonly string[] = () => [],
): BridgeDebugSink {
	if (!enabled) return () => {};
	return (record) => {
		const line = formatBridgeDebugRecord(record, secrets());
		if (line !== undefined) write(`${line}\n`);
	};
}
