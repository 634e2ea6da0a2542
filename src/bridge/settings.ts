// Settings of the Pi tool bridge, from the parsed environment (src/settings/env.ts). Pure.
import { type CursorEnv, envProblems } from "../settings/env.ts";

export interface BridgeSettings {
	/** `PI_CURSOR_PI_TOOL_BRIDGE` (default on): `0` means no server, no `pi__` tools, no manifest. */
	readonly enabled: boolean;
	/** `PI_CURSOR_EXPOSE_BUILTIN_TOOLS` (default off): also bridge Pi's read/bash/write/edit/grep/find/ls. */
	readonly exposeBuiltins: boolean;
	/**
	 * `PI_CURSOR_EXPOSE_BUILTIN_TOOLS_UNDER_SAFETY` (default off): on runs with Cursor's sandbox or auto-review on,
	 * built-ins are bridged only with it (a bridged call runs in Pi, outside Cursor's sandbox; src/bridge/transport.ts).
	 */
	readonly exposeBuiltinsUnderSafety: boolean;
	/** `PI_CURSOR_TOOL_MANIFEST` (default on, and never without the bridge): the manifest in bootstrap prompts. */
	readonly manifest: boolean;
	/** `PI_CURSOR_PI_TOOL_BRIDGE_DEBUG` (default off): scrubbed JSON lines on stderr. */
	readonly debug: boolean;
	/**
	 * How long one bridged call may take before it fails: the SDK's effective MCP tool timeout, lowered (never
	 * raised) by `PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS`, so the bridge always answers before the SDK gives up.
	 */
	readonly callTimeoutMs: number;
	/** One line per malformed value (its default is used). */
	readonly problems: readonly string[];
}

export type BridgeEnv = Pick<
	CursorEnv,
	| "piToolBridge"
	| "exposeBuiltinTools"
	| "exposeBuiltinToolsUnderSafety"
	| "toolManifest"
	| "bridgeDebug"
	| "bridgeCallTimeoutMs"
	| "problems"
>;

/** `mcpToolTimeoutMs` is the SDK's effective MCP tool-call timeout (see src/process/mcp-timeouts.ts). */
export function readBridgeSettings(env: BridgeEnv, mcpToolTimeoutMs: number): BridgeSettings {
	const enabled = env.piToolBridge;
	return {
		enabled,
		exposeBuiltins: env.exposeBuiltinTools,
		exposeBuiltinsUnderSafety: env.exposeBuiltinToolsUnderSafety,
		manifest: enabled && env.toolManifest,
		debug: env.bridgeDebug,
		callTimeoutMs: Math.min(env.bridgeCallTimeoutMs ?? mcpToolTimeoutMs, mcpToolTimeoutMs),
		problems: envProblems(env, "bridgeCallTimeoutMs"),
	};
}
