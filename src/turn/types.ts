// The contracts of a Cursor turn: the setup resolved once at the provider entry and the agent lease a runtime hands
// the turn. Types only: the turn code, the session pool and the runtimes import them.
import type { Message } from "@earendil-works/pi-ai";
import type { BridgeCallHandler } from "../bridge/calls.ts";
import type { BridgeRun } from "../bridge/run.ts";
import type { BridgeEnv } from "../bridge/settings.ts";
import type { CursorPrompt } from "../prompt/transcript.ts";
import type { AgentDefinition, ModelSelection, RunResult, SDKAgent } from "../sdk/cursor-sdk.ts";
import type { SettingSources } from "../settings/env-parse.ts";
import type { CursorRuntime } from "../settings/runtime.ts";
import type { CursorMode } from "../settings/session-state.ts";
import type { SendOutcome, SendStarted } from "./observer.ts";
import type { TurnTimeouts } from "./watch.ts";

export type { CursorMode };

/**
 * Everything a turn needs, resolved once per request from the model row, Pi's options, the effective settings and
 * the environment (src/turn/setup.ts). Immutable: nothing downstream resolves a setting again.
 */
export interface TurnSetup {
	readonly apiKey: string;
	/** Where the turn runs: the local agent, or a Cursor Cloud agent (summaries always run locally). */
	readonly runtime: CursorRuntime;
	/** Cursor catalog base model: agents are pooled per base model (context and params change per send). */
	readonly baseModelId: string;
	readonly selection: ModelSelection;
	readonly mode: CursorMode;
	readonly timeouts: TurnTimeouts;
	/** Bound of the `send` request itself (cloud: the SDK does not bound its REST calls); undefined: none. */
	readonly sendMs?: number;
	/** How long a run waiting for Pi's tool results is kept (`PI_CURSOR_LIVE_RUN_IDLE_DISPOSE_MS`). */
	readonly liveRunIdleMs: number;
	/** The Cursor setting sources the agent loads (`PI_CURSOR_SETTING_SOURCES`). */
	readonly settingSources: SettingSources;
	/** HTTP/1.1 for the local transport; `undefined` leaves the SDK's default. */
	readonly http1: boolean | undefined;
	/** The enabled local safety controls (only enabled ones are present). */
	readonly safety: { readonly autoReview?: true; readonly sandboxOptions?: { readonly enabled: true } };
	/** Custom subagent definitions and their digest; absent when there are none. */
	readonly subagents: { readonly agents?: Record<string, AgentDefinition>; readonly agentsDigest?: string };
	/** A compaction or tree summary: a fresh tool-less agent on a temporary store, never a live run. */
	readonly summary: boolean;
	/** The Pi tool bridge's variables as this turn read them (the runtime plans the run's bridge from them). */
	readonly bridgeEnv: BridgeEnv;
	/** How Cursor's subagent calls are named on their cards (`PI_CURSOR_TASK_PRESENTATION`). */
	readonly taskWording: "subagent" | "task";
}

/** Where a turn's SDK agent and prompt come from (a fresh agent per turn, or the session pool). */
export interface AgentLease {
	agent: SDKAgent;
	prompt: CursorPrompt;
	kind: SendStarted["kind"];
	/**
	 * Called exactly once when the run is over, before the terminal event (awaited). `covered`: the messages of the
	 * run's last provider turn (the first prompt plus the tool calls and results Cursor's conversation already holds).
	 */
	release(outcome: SendOutcome, covered?: readonly Message[]): void | Promise<void>;
	/** Cloud: records the run as soon as `send` returned it; throws `TurnEnded` when it cannot (the run is cancelled). */
	runStarted?(runId: string): void;
	/** Cloud: the run finished; returns what follows the answer (the branch and pull request it reports). */
	finished?(result: RunResult): string | undefined;
	/**
	 * Local: after `send` failed with "already has active run", whether that run is a crashed Pi process's (no other
	 * live Pi process holds the session's store), so the send may expire it (`local.force`) and go on with the same
	 * agent. Never true while another Pi process that may own the run is alive.
	 */
	staleRunRecoverable?(): boolean;
	/** Starts the run's Pi tool bridge (absent: nothing to bridge, the bridge is off, or a summary). */
	bridge?: (handler: BridgeCallHandler) => Promise<BridgeRun>;
}

/** The payload shown to Pi's `before_provider_request` hook; a replacement may change model, mode or prompt text. */
export interface CursorPayload {
	model: ModelSelection;
	mode: CursorMode;
	prompt: string;
	images: number;
}
