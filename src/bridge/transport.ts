// How Pi's tools reach Cursor on a run, and what that means for the safety the user asked for. Pure.
//
// By default a run gets the loopback MCP server `pi_tools` (src/bridge/server.ts) as an `mcpServers` entry of its
// send. With Cursor's sandbox or auto-review on, the SDK refuses every call to an MCP server: the call would need the
// user's interactive approval, which a local SDK run cannot ask for ("User rejected MCP: … Local SDK runs cannot
// request interactive approval for this MCP tool call"), so Cursor would see Pi's tools and never get a result.
// Those runs get the same tools as the SDK's in-process tools instead (`local.customTools` of the send, served as
// the MCP server `custom-user-tools`; src/bridge/in-process.ts), which the SDK runs without asking.
//
// Either way a call goes through the same queue to Pi's own tool path: it runs in Pi, under Pi's rules (its
// confirmations, other extensions' hooks), not inside Cursor's sandbox and not past Cursor's auto-review. So on those
// runs Pi's built-ins (bash, write, edit, …), which would do in Pi exactly what the sandbox keeps Cursor's own tools
// from doing, are not offered unless the user opts in with PI_CURSOR_EXPOSE_BUILTIN_TOOLS_UNDER_SAFETY=1; and the
// user is told once per session (and by /cursor-tools and /cursor-doctor).
import { BRIDGE_SERVER_NAME, type BridgeSurface, PI_BUILTIN_TOOLS } from "./snapshot.ts";

/** The SDK's server name for `local.customTools` (Cursor sees `custom-user-tools-<name>`). */
export const IN_PROCESS_SERVER_NAME = "custom-user-tools";
/** The opt-in that offers Pi's built-ins on sandboxed or auto-review runs too. */
export const UNDER_SAFETY_VARIABLE = "PI_CURSOR_EXPOSE_BUILTIN_TOOLS_UNDER_SAFETY";

export type BridgeTransport = "mcp" | "in-process";

/** The local safety controls of a run (as resolved settings, or as the agent options that enable them). */
export interface RunSafety {
	readonly autoReview?: boolean;
	readonly sandbox?: boolean;
	readonly sandboxOptions?: { readonly enabled?: boolean };
}

function modes(safety: RunSafety): { sandbox: boolean; autoReview: boolean } {
	return {
		sandbox: safety.sandbox === true || safety.sandboxOptions?.enabled === true,
		autoReview: !!safety.autoReview,
	};
}

/** Whether either safety control is on: such a run cannot call MCP servers and keeps Pi's built-ins hidden. */
export function isSafetyRun(safety: RunSafety): boolean {
	const { sandbox, autoReview } = modes(safety);
	return sandbox || autoReview;
}

export function bridgeTransport(safety: RunSafety): BridgeTransport {
	return isSafetyRun(safety) ? "in-process" : "mcp";
}

export function transportServerName(transport: BridgeTransport): string {
	return transport === "mcp" ? BRIDGE_SERVER_NAME : IN_PROCESS_SERVER_NAME;
}

/** "Cursor's sandbox", "Cursor's auto-review", "Cursor's sandbox and auto-review", or undefined (neither). */
export function safetyWords(safety: RunSafety): string | undefined {
	const { sandbox, autoReview } = modes(safety);
	const names = [...(sandbox ? ["sandbox"] : []), ...(autoReview ? ["auto-review"] : [])];
	return names.length > 0 ? `Cursor's ${names.join(" and ")}` : undefined;
}

const list = (names: readonly string[]) => names.join(", ");

/**
 * The once-per-session notice of a run with a safety control on, or undefined: no control on, or nothing to say
 * (no Pi tool offered and no built-in asked for).
 */
export function safetyNotice(safety: RunSafety, surface: BridgeSurface, builtinsAsked: boolean): string | undefined {
	const words = safetyWords(safety);
	if (!words) return undefined;
	const offered = surface.tools.map((tool) => tool.piName);
	const withheld = surface.decisions.filter((d) => d.reason === "safety").map((d) => d.piName);
	if (offered.length === 0 && !(builtinsAsked && withheld.length > 0)) return undefined;
	const parts = [`${words} ${words.includes(" and ") ? "are" : "is"} on.`];
	if (offered.length > 0) {
		parts.push(
			`Cursor calls Pi's tools (${list(offered)}) in process ("${IN_PROCESS_SERVER_NAME}"), because the SDK refuses MCP tool calls on such runs: each call runs in Pi, under Pi's rules, not inside Cursor's sandbox or past its auto-review.`,
		);
	}
	const builtins = offered.filter((name) => PI_BUILTIN_TOOLS.has(name));
	if (withheld.length > 0) {
		parts.push(
			`Pi's built-ins (${list(withheld)}) are not offered, since they would run in Pi, outside ${words} (${UNDER_SAFETY_VARIABLE}=1 offers them).`,
		);
	} else if (builtins.length > 0) {
		parts.push(
			`Pi's built-ins (${list(builtins)}) are offered too (${UNDER_SAFETY_VARIABLE}=1) and run in Pi, outside ${words}.`,
		);
	}
	parts.push("/cursor-tools lists what Cursor can call.");
	return parts.join(" ");
}
