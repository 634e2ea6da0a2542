// The only module that imports `@cursor/sdk` (enforced by test/unit/import-graph.test.ts). Everything else talks to
// the narrow `CursorSdk` interface below, so tests can substitute it and the SDK's surprises stay in one place.

import type {
	AgentOptions,
	InteractionUpdate,
	LocalAgentStore,
	ModelSelection,
	Run,
	RunResult,
	SDKAgent,
	SDKImage,
	SDKModel,
	SendOptions,
	ToolCall,
} from "@cursor/sdk";
import { Agent, Cursor, getDefaultSdkStateRoot, JsonlLocalAgentStore } from "@cursor/sdk";

export type {
	AgentOptions,
	InteractionUpdate,
	LocalAgentStore,
	ModelSelection,
	Run,
	RunResult,
	SDKAgent,
	SDKImage,
	SDKModel,
	SendOptions,
	ToolCall,
};

export interface CursorSdk {
	/** `GET /v1/models` with an explicit key. The SDK sets no timeout: callers must bound it. */
	listModels(apiKey: string): Promise<SDKModel[]>;
	createAgent(options: AgentOptions): Promise<SDKAgent>;
	resumeAgent(agentId: string, options: Partial<AgentOptions>): Promise<SDKAgent>;
	/** `true`/`false` force the local agent transport; `null` returns to the SDK default. */
	setHttp1ForAgent(value: boolean | null): void;
	/** A local agent store in `dir` (JSONL files: agents, runs, events, checkpoints); works on every runtime. */
	openStore(dir: string): LocalAgentStore;
	/** The SDK's own state root for a workspace (`~/.cursor/projects/<workspace>/…`). */
	defaultStateRoot(cwd: string): string;
}

export const cursorSdk: CursorSdk = {
	listModels: (apiKey) => Cursor.models.list({ apiKey }),
	createAgent: (options) => Agent.create(options),
	resumeAgent: (agentId, options) => Agent.resume(agentId, options),
	setHttp1ForAgent: (value) => Cursor.configure({ local: { useHttp1ForAgent: value } }),
	openStore: (dir) => new JsonlLocalAgentStore(dir),
	defaultStateRoot: (cwd) => getDefaultSdkStateRoot(cwd),
};
