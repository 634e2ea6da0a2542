// The only module that imports `@cursor/sdk` (enforced by test/unit/import-graph.test.ts). Everything else talks to
// the narrow `CursorSdk` interface below, so tests can substitute it and the SDK's surprises stay in one place.

import type { AgentOptions, LocalAgentStore, SDKAgent, SDKModel } from "@cursor/sdk";
import { Agent, Cursor, createAgentPlatform, getDefaultSdkStateRoot } from "@cursor/sdk";
import { SqliteLocalAgentStore } from "@cursor/sdk/sqlite";

export type {
	AgentDefinition,
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

export type OpenStore = LocalAgentStore & { dispose(): Promise<void> };

export interface CursorSdk {
	/** `GET /v1/models` with an explicit key. The SDK sets no timeout: callers must bound it. */
	listModels(apiKey: string): Promise<SDKModel[]>;
	createAgent(options: AgentOptions): Promise<SDKAgent>;
	resumeAgent(agentId: string, options: Partial<AgentOptions>): Promise<SDKAgent>;
	/** `true`/`false` force the local agent transport; `null` returns to the SDK default. */
	setHttp1ForAgent(value: boolean | null): void;
	/**
	 * The SDK's SQLite agent store rooted at `dir` (node:sqlite or bun:sqlite). Its JSONL store rewrites the whole
	 * event log on every stream event, which makes long answers crawl.
	 */
	openStore(dir: string, cwd: string): Promise<OpenStore>;
	/** The SDK's own state root for a workspace (`~/.cursor/projects/<workspace>/…`). */
	defaultStateRoot(cwd: string): string;
	/** `GET /v1/me` with an explicit key (no timeout: callers bound it). */
	me(apiKey: string): Promise<{ apiKeyName?: unknown }>;
	/** `GET /v1/agents/<id>/usage`: Cursor's billed usage of a whole agent, local ones too (no timeout). */
	getUsage(agentId: string, apiKey: string): Promise<unknown>;
	/** `tokenDetails.maxTokens` of the agent's latest conversation checkpoint in `store`, if there is one. */
	checkpointMaxTokens(store: LocalAgentStore, cwd: string, agentId: string): Promise<number | undefined>;
}

async function checkpointMaxTokens(store: LocalAgentStore, cwd: string, agentId: string): Promise<number | undefined> {
	const platform = await createAgentPlatform({ localStore: store, workspaceRef: cwd });
	const checkpoint = (await platform.checkpointStore.loadLatest(agentId)) as {
		tokenDetails?: { maxTokens?: unknown };
	} | null;
	const max = checkpoint?.tokenDetails?.maxTokens;
	return typeof max === "number" && max > 0 ? max : undefined;
}

export const cursorSdk: CursorSdk = {
	listModels: (apiKey) => Cursor.models.list({ apiKey }),
	createAgent: (options) => Agent.create(options),
	resumeAgent: (agentId, options) => Agent.resume(agentId, options),
	setHttp1ForAgent: (value) => Cursor.configure({ local: { useHttp1ForAgent: value } }),
	openStore: (dir, cwd) => SqliteLocalAgentStore.open({ workspaceRef: cwd, stateRoot: dir }),
	defaultStateRoot: (cwd) => getDefaultSdkStateRoot(cwd),
	me: (apiKey) => Cursor.me({ apiKey }),
	getUsage: (agentId, apiKey) => Agent.getUsage(agentId, { apiKey }),
	checkpointMaxTokens,
};
