// Environment settings of the Pi tool bridge. Pure: the caller passes the environment (normally `process.env`).
import { redactSecrets } from "../sdk/errors.ts";
import { type EnvRecord, readBooleanEnv } from "../settings/env.ts";

export const ENV_BRIDGE = "PI_CURSOR_PI_TOOL_BRIDGE";
export const ENV_EXPOSE_BUILTIN_TOOLS = "PI_CURSOR_EXPOSE_BUILTIN_TOOLS";
export const ENV_TOOL_MANIFEST = "PI_CURSOR_TOOL_MANIFEST";
export const ENV_BRIDGE_DEBUG = "PI_CURSOR_PI_TOOL_BRIDGE_DEBUG";
export const ENV_BRIDGE_CALL_TIMEOUT_MS = "PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS";

export interface BridgeSettings {
	/** `PI_CURSOR_PI_TOOL_BRIDGE` (default on): `0` means no server, no `pi__` tools, no manifest. */
	readonly enabled: boolean;
	/** `PI_CURSOR_EXPOSE_BUILTIN_TOOLS` (default off): also bridge Pi's read/bash/write/edit/grep/find/ls. */
	readonly exposeBuiltins: boolean;
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

/** `mcpToolTimeoutMs` is the SDK's effective MCP tool-call timeout (see src/sdk/mcp-timeouts.ts). */
export function readBridgeSettings(env: EnvRecord, mcpToolTimeoutMs: number): BridgeSettings {
	const problems: string[] = [];
	const enabled = readBooleanEnv(env, ENV_BRIDGE, true);
	let callTimeoutMs = mcpToolTimeoutMs;
	const raw = env[ENV_BRIDGE_CALL_TIMEOUT_MS];
	if (raw !== undefined && raw.trim() !== "") {
		const parsed = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
		if (Number.isSafeInteger(parsed) && parsed > 0) callTimeoutMs = Math.min(parsed, mcpToolTimeoutMs);
		else
			problems.push(
				`${ENV_BRIDGE_CALL_TIMEOUT_MS}="${redactSecrets(raw)}" is not a positive whole number of milliseconds.`,
			);
	}
	return {
		enabled,
		exposeBuiltins: readBooleanEnv(env, ENV_EXPOSE_BUILTIN_TOOLS, false),
		manifest: enabled && readBooleanEnv(env, ENV_TOOL_MANIFEST, true),
		debug: readBooleanEnv(env, ENV_BRIDGE_DEBUG, false),
		callTimeoutMs,
		problems,
	};
}
