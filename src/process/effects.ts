// Everything this extension changes for the whole process, in one place. Pi may host several sessions in one
// process; these effects are shared by all of them (each is installed once per process, whatever the number of
// extension instances), while everything else lives in one extension instance:
//
// - environment (native-paths.ts): CURSOR_TREE_SITTER_VENDOR_DIR and CURSOR_RIPGREP_PATH are set to the SDK's
//   natives when unset, because the SDK's own lookup walks up from Pi's executable and misses our node_modules.
//   Child shells inherit them. Installed when the extension loads.
// - timers (mcp-timeouts.ts): the global `setTimeout` is wrapped so that the SDK's MCP client gets the configured
//   tool and connect timeouts instead of its fixed 60 s (PI_CURSOR_MCP_*_TIMEOUT_*; the session loaded last sets
//   them for all). Installed when the extension loads, before any agent exists.
// - console (quiet-diagnostics.ts, capability-notices.ts): `console.log` drops the SDK's INFO inventory frames
//   once a Cursor turn has started, and the SDK's two capability warnings become notices while a send runs (the
//   listeners are per extension instance). Installed on first use.
// - stdout (blocking-stdout.ts): on a pipe or socket it blocks, so that what Pi prints right before it calls
//   process.exit (`--list-models`) reaches a busy reader whole. Installed when the extension loads.
// - diagnostics channels (src/sdk/sdk-sockets.ts): each extension instance subscribes to Node's socket channels to
//   close the sockets its own SDK work leaves behind; the subscription only observes.

import { blockOnPipes } from "./blocking-stdout.ts";
import { installMcpTimeouts, type McpTimeoutInstall, mcpTimeoutNotices } from "./mcp-timeouts.ts";
import { applyNativePaths, locateNativePaths } from "./native-paths.ts";

export interface ProcessEffects {
	/** The SDK's MCP timeouts as installed (a bridged call's deadline never exceeds the tool timeout). */
	readonly mcpTimeouts: McpTimeoutInstall;
	/** Warnings about the effects (each extension instance shows them once, at its first session start). */
	takeNotices(): string[];
}

/** Installs the load-time effects (idempotent per process) and returns this extension instance's view of them. */
export function installProcessEffects(env: NodeJS.ProcessEnv): ProcessEffects {
	applyNativePaths(env, locateNativePaths());
	blockOnPipes(process.stdout, 1);
	const mcpTimeouts = installMcpTimeouts(env);
	let notices: string[] | undefined = mcpTimeoutNotices(mcpTimeouts);
	return {
		mcpTimeouts,
		takeNotices: () => {
			const taken = notices ?? [];
			notices = undefined;
			return taken;
		},
	};
}
