// The local runtime: runs a resolved turn on the session's pooled local SDK agent (src/session/pool.ts), with the
// run's Pi tool bridge and Cursor's tool calls replayed as Pi tool cards.
import type { Message, TranscriptContext } from "@earendil-works/pi-ai";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { ACTIVATE_SKILL_TOOL } from "../bridge/activate-skill.ts";
import { startInProcessBridge } from "../bridge/in-process.ts";
import type { BridgeRunOptions } from "../bridge/run.ts";
import { loadBridgeCode, startBridgeServer } from "../bridge/server.ts";
import { buildToolManifestText } from "../bridge/snapshot.ts";
import type { BridgeView } from "../bridge/view.ts";
import type { CursorReplay } from "../replay/replay.ts";
import type { CursorSdk } from "../sdk/cursor-sdk.ts";
import type { PoolRequest, SessionAgentPool } from "../session/pool.ts";
import type { TurnObserver } from "../turn/observer.ts";
import { declaredTools, type ToolDisplay } from "../turn/tools.ts";
import type { AgentLease, TurnSetup } from "../turn/types.ts";
import type { TurnWatch } from "../turn/watch.ts";
import { SessionLiveSlot } from "./live-slot.ts";
import type { TurnRuntime } from "./types.ts";

export interface LocalRuntimeDeps {
	readonly pool: SessionAgentPool;
	readonly replay: CursorReplay;
	readonly bridge: BridgeView;
	readonly sdk: Pick<CursorSdk, "setHttp1ForAgent">;
	readonly observer: TurnObserver | undefined;
	/** The session's workspace and Pi's mode (print mode keeps stdout for the answer). */
	readonly session: () => { cwd: string; mode: ExtensionContext["mode"] };
}

export class LocalRuntime extends SessionLiveSlot implements TurnRuntime {
	/** The HTTP/1.1 value we last gave `Cursor.configure` (undefined: never configured by us). */
	private appliedHttp1: boolean | undefined;
	readonly observer: TurnObserver | undefined;

	constructor(private readonly deps: LocalRuntimeDeps) {
		super(deps.pool);
		this.observer = deps.observer;
	}

	toolDisplay(context: TranscriptContext, setup: TurnSetup): ToolDisplay {
		const { cwd, mode } = this.deps.session();
		return {
			replay: this.deps.replay,
			print: mode === "print",
			declared: declaredTools(context.messages),
			context: { cwd, secrets: [setup.apiKey], taskWording: setup.taskWording },
			trace: (line) => process.stderr.write(`${line}\n`),
		};
	}

	acquire(setup: TurnSetup, messages: readonly Message[], watch: TurnWatch): Promise<AgentLease> {
		const { pool } = this.deps;
		const request = this.poolRequest(setup, messages);
		if (setup.summary) return pool.acquireForSummary(request, watch);
		const bridge = this.deps.bridge.plan(setup.bridgeEnv, setup.safety, true);
		if (!bridge) return pool.acquire(request, watch);
		const skillTool = bridge.surface.tools.find((tool) => tool.piName === ACTIVATE_SKILL_TOOL)?.mcpName;
		const tools = {
			fingerprint: bridge.surface.fingerprint,
			manifest: bridge.settings.manifest ? buildToolManifestText(bridge.surface) : "",
			...(skillTool ? { skillTool } : {}),
		};
		return pool.acquire({ ...request, tools }, watch).then((lease) => ({
			...lease,
			bridge: (handler) => {
				const options: BridgeRunOptions = {
					surface: bridge.surface,
					handler,
					callTimeoutMs: bridge.settings.callTimeoutMs,
					debug: bridge.settings.debug,
				};
				// Sandboxed or auto-review runs refuse MCP server calls: the same tools go in process (src/bridge/transport.ts).
				return bridge.transport === "in-process"
					? Promise.resolve(startInProcessBridge(options))
					: startBridgeServer(options);
			},
		}));
	}

	/**
	 * Prepares the first send of `setup` ahead of it (src/runtime/prewarm.ts): the bridge's code is evaluated when the
	 * turn would bridge tools, and the pool opens the session store and has the SDK build the agent's executor.
	 * Nothing when a turn has started already. Resolves to the release of the executor.
	 */
	async prewarm(setup: TurnSetup): Promise<(() => Promise<void>) | undefined> {
		const { pool } = this.deps;
		if (pool.started) return undefined;
		if (this.deps.bridge.plan(setup.bridgeEnv, setup.safety)?.transport === "mcp") loadBridgeCode();
		return pool.prewarm(this.poolRequest(setup, []));
	}

	/** The session agent a send of `setup` needs (the SDK's transport is configured first). */
	private poolRequest(setup: TurnSetup, messages: readonly Message[]): PoolRequest {
		this.applyTransport(setup.http1);
		return {
			setup,
			messages,
			cwd: this.deps.session().cwd,
			settingSources: setup.settingSources,
			transport: `http1=${this.appliedHttp1 ?? "default"}`,
			...setup.subagents,
			safety: setup.safety,
		};
	}

	/** Configures the SDK's local transport from the turn's HTTP/1.1 setting (`null` resets to the default). */
	private applyTransport(wanted: boolean | undefined): void {
		if (wanted === this.appliedHttp1) return;
		this.deps.sdk.setHttp1ForAgent(wanted ?? null);
		this.appliedHttp1 = wanted;
	}

	/** At session shutdown: the transport back to the SDK's default if we changed it. */
	shutdown(): void {
		if (this.appliedHttp1 !== undefined) this.deps.sdk.setHttp1ForAgent(null);
		this.appliedHttp1 = undefined;
	}
}
