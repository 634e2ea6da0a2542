// The only module that imports `@cursor/sdk` (enforced by test/unit/import-graph.test.ts). Everything else talks to
// the narrow `CursorSdk` interface below, so tests can substitute it and the SDK's surprises stay in one place.

import type {
	AgentDefinition,
	AgentOptions,
	CloudAgentOptions,
	ConversationTurn,
	CursorAgentPlatform,
	ListResult,
	Run,
	SDKAgent,
	SDKAgentInfo,
	SDKArtifact,
	SDKModel,
	SdkLoginResult,
	SteerAckOutcome,
} from "@cursor/sdk";
import { Agent, Cursor, createAgentPlatform, FileCredentialStore, getDefaultSdkStateRoot } from "@cursor/sdk";
import { readEnvVar } from "../settings/env.ts";
import { memoryAgentStore } from "./memory-store.ts";
import { oldestFirst } from "./run-order.ts";

export type {
	AgentDefinition,
	AgentOptions,
	CloudAgentOptions,
	InteractionUpdate,
	McpServerConfig,
	ModelSelection,
	Run,
	RunResult,
	SDKAgent,
	SDKAgentInfo,
	SDKArtifact,
	SDKCustomTool,
	SDKCustomToolResult,
	SDKImage,
	SDKModel,
	SdkLoginResult,
	SendOptions,
	ToolCall,
} from "@cursor/sdk";

/**
 * What `Run.steer(text)` (SDK 1.0.31+) answers: the running turn took the message (`complete_delivered`), or the
 * caller must send it as an ordinary follow-up once the run ends (`revert_to_followup`). A local run writes
 * `conversation_action.inject_context_action` `{injection_id, expected_run_id, user_context.user_message}` on its
 * stream and settles on Cursor's `context_injection_state` (`delivered`, else revert; no answer in 15 s: revert); a
 * run between model turns or already over reverts at once. A cloud run always answers `revert_to_followup`.
 */
export type SteerOutcome = SteerAckOutcome;

/**
 * Where local agents live, with the SDK's agent platform over it: they are created, resumed and prewarmed through
 * their store. Either the SDK's SQLite store in `dir` (the SDK opens one per directory and keeps it open for the rest
 * of the process: it has no close), or an ephemeral one in memory (no `dir`).
 */
export interface AgentStore {
	readonly dir?: string;
}

export interface CursorSdk {
	/** `GET /v1/models` with an explicit key. The SDK sets no timeout: callers must bound it. */
	listModels(apiKey: string): Promise<SDKModel[]>;
	/** `true`/`false` force the local agent transport; `null` returns to the SDK default. */
	setHttp1ForAgent(value: boolean | null): void;
	/**
	 * The SDK's SQLite agent store in `dir` for the workspace `cwd` (its JSONL store rewrites the whole event log on
	 * every stream event, which makes long answers crawl). Reached through the SDK's main entry, which loads its
	 * SQLite code on this first use: `@cursor/sdk/sqlite` would be evaluated at every Pi start.
	 */
	openStore(dir: string, cwd: string): Promise<AgentStore>;
	/** A store in memory for the workspace `cwd`: nothing on disk, nothing to close, gone with its last reference. */
	openEphemeralStore(cwd: string): Promise<AgentStore>;
	/** `Agent.create` of a local agent kept in `store`. */
	createAgent(store: AgentStore, options: AgentOptions): Promise<SDKAgent>;
	/** `Agent.resume` of a local agent kept in `store`. */
	resumeAgent(store: AgentStore, agentId: string, options: Partial<AgentOptions>): Promise<SDKAgent>;
	/** The SDK's own state root for a workspace (`~/.cursor/projects/<workspace>/…`). */
	defaultStateRoot(cwd: string): string;
	/** `GET /v1/me` with an explicit key (no timeout: callers bound it). */
	me(apiKey: string): Promise<{ apiKeyName?: unknown }>;
	/** `GET /v1/agents/<id>/usage`: Cursor's billed usage of a whole agent, local ones too (no timeout). */
	getUsage(agentId: string, apiKey: string): Promise<unknown>;
	/** `tokenDetails.maxTokens` of the agent's latest conversation checkpoint in `store`, if there is one. */
	checkpointMaxTokens(store: AgentStore, agentId: string): Promise<number | undefined>;
	/**
	 * Builds the local executor an agent created with `options` will use (key exchange, server config, team settings,
	 * plugins, skills, rules: most of a first send), ahead of it. Resolves to the release of the executor, which the
	 * SDK keeps while anyone holds it. The network calls take no abort signal.
	 */
	prewarm(store: AgentStore, options: AgentOptions): Promise<() => Promise<void>>;
	/**
	 * What `store` records about the agent's latest run (its run store: the agent's `activeRunId`, that run's status
	 * and checkpoints); undefined when the store does not hold the agent.
	 */
	agentRunState(store: AgentStore, agentId: string): Promise<AgentRunState | undefined>;
}

/**
 * An agent's latest run as its store records it: `active` while a run is marked unfinished (a process that ended
 * mid-run leaves it so; the next send needs `local.force`), with whether the agent's conversation checkpoint (what
 * the next run sends to Cursor as the conversation) moved since that run started; `idle` otherwise.
 */
export type AgentRunState = { kind: "idle" } | { kind: "active"; conversationAdvanced: boolean };

/**
 * What a cloud agent is created or resumed with. Nothing the SDK rejects for cloud (`tools`, `disallowedTools`,
 * `systemPrompt`) and no `model`: with a model `Agent.create` would first call `GET /v1/models`; the model goes with
 * each `send` instead (after `Agent.resume` the SDK does not know it anyway).
 */
export interface CloudAgentSetup {
	apiKey: string;
	cloud: CloudAgentOptions;
	/** Custom subagents (`AgentOptions.agents`): sent with `POST /v1/agents` as `customSubagents`. */
	agents?: Record<string, AgentDefinition>;
	mode?: "agent" | "plan";
}

/** A cloud run's state as `GET /v1/agents/:id/runs/:runId` reports it (and, after its stream, its usage). */
export interface CloudRunState {
	id: string;
	status: Run["status"];
	git?: Run["git"];
	/** The final answer of a finished run. */
	result?: string;
	error?: Run["error"];
	durationMs?: number;
	usage?: Run["usage"];
}

/** One entry of a cloud run's conversation (`run.conversation()`), text as Cursor sent it. */
export type CloudConversationEntry =
	| { kind: "user" | "assistant" | "thinking"; text: string }
	/** `detail`: the call's command, path or pattern, when it has one. */
	| { kind: "tool"; name: string; detail?: string }
	| { kind: "shell"; command: string; exitCode?: number };

/**
 * Cursor Cloud agents (`bc-<uuid>` ids, REST + SSE; docs/fake-cursor-backend-protocol.md §4.1). `send`, `stream`,
 * `cancel` and `wait` are the returned agent's and run's own methods: the first `send` posts `POST /v1/agents` with
 * the prompt, repository and model, later sends `POST /v1/agents/:id/runs` (409 `agent_busy` → `AgentBusyError`);
 * `run.cancel()` posts `…/runs/:runId/cancel`. Unlike a local send, a cloud `send` rejects when that request fails.
 * REST calls have no timeout: callers bound them.
 */
export interface CloudSdk {
	/** `Agent.create` with `cloud`: no request at all; the SDK mints the `bc-` id (`agent.agentId`) itself. */
	createAgent(setup: CloudAgentSetup): Promise<SDKAgent>;
	/** `Agent.resume` of a `bc-` id: no request. */
	resumeAgent(agentId: string, setup: CloudAgentSetup): Promise<SDKAgent>;
	/** `GET /v1/agents/:id` (an unknown id: `ConfigurationError` "[not_found] …"). */
	getAgent(agentId: string, apiKey: string): Promise<SDKAgentInfo>;
	getRun(agentId: string, runId: string, apiKey: string): Promise<CloudRunState>;
	/**
	 * Follows a run that may have started in another process (`Agent.getRun`, polled from `pollMs`, default 1 s, up
	 * to every 5 s) and resolves with its state when it is over, or at once when `signal` aborts (the run goes on).
	 * No timeout of its own: callers bound it.
	 */
	followRun(
		agentId: string,
		runId: string,
		apiKey: string,
		options?: { signal?: AbortSignal; pollMs?: number },
	): Promise<CloudRunState>;
	/**
	 * The text of a run that may have started in another process, as it streams (`Agent.getRun(…).stream()`: what was
	 * missed is replayed first, then the run is followed): `onText` per assistant text chunk, until the run is over or
	 * `signal` aborts (the connection is then closed; the run goes on). Resolves either way; errors are the caller's.
	 */
	streamRunText(
		agentId: string,
		runId: string,
		apiKey: string,
		onText: (text: string) => void,
		options: { signal: AbortSignal },
	): Promise<void>;
	/** `GET /v1/agents/:id/runs` (its first page), oldest first. */
	listRuns(agentId: string, apiKey: string): Promise<CloudRunState[]>;
	/**
	 * The conversation of a run that is over (`Agent.getRun(…).conversation()`: its stream replayed from the start).
	 * Only for a run that ended: a running run's stream stays open until the run ends, and keeps Pi from exiting.
	 */
	runConversation(agentId: string, runId: string, apiKey: string): Promise<CloudConversationEntry[]>;
	/** `POST /v1/agents/:id/runs/:runId/cancel`. */
	cancelRun(agentId: string, runId: string, apiKey: string): Promise<void>;
	/** `GET /v1/agents/:id/artifacts`. */
	listArtifacts(agentId: string, apiKey: string): Promise<SDKArtifact[]>;
	/** `GET …/artifacts/download?path=` then the pre-signed URL it names. */
	downloadArtifact(agentId: string, path: string, apiKey: string): Promise<Buffer>;
	/** `GET /v1/agents?limit&cursor&includeArchived`. */
	listAgents(
		apiKey: string,
		options?: { limit?: number; cursor?: string; includeArchived?: boolean },
	): Promise<ListResult<SDKAgentInfo>>;
	/** `POST /v1/agents/:id/archive`. */
	archiveAgent(agentId: string, apiKey: string): Promise<void>;
	/** `DELETE /v1/agents/:id` (irreversible). */
	deleteAgent(agentId: string, apiKey: string): Promise<void>;
}

/** What a browser sign-in needs from the caller; the SDK is always told to keep nothing (`store: null`). */
export interface BrowserLoginRequest {
	/** Shown in the dashboard's API-keys list. */
	apiKeyName: string;
	/** Called once with the login URL before the wait: the caller always shows it. */
	onLoginUrl(url: string): void;
	/** `true`: the SDK opens the system browser when that can work (not over SSH, not with `NO_OPEN_BROWSER`). */
	openBrowser: boolean;
	signal: AbortSignal;
}

/** A login the SDK itself stored (`~/.cursor/sdk/auth.json`), read and never written. */
export interface SdkStoredLogin {
	backendUrl: string;
	apiKey: string;
	apiKeyExpiresAtMs?: number;
	email?: string;
}

/**
 * `Cursor.auth.login` (browser handshake, `POST /auth/poll`, then one `CreateUserApiKey` + `GetMe`; §4.2 of the
 * fake backend protocol) with `store: null`, and a read of the SDK's own stored login. Base URLs are the SDK's
 * (`CURSOR_BACKEND_URL` / `CURSOR_WEBSITE_URL`, read at call time).
 */
export interface CursorAuthSdk {
	login(request: BrowserLoginRequest): Promise<SdkLoginResult>;
	/** The SDK's stored login, when there is a well-formed one (expired or not). */
	readStoredLogin(): Promise<SdkStoredLogin | undefined>;
	/** The API base a key minted now is paired with. */
	backendUrl(): string;
}

export const cursorAuthSdk: CursorAuthSdk = {
	login: ({ apiKeyName, onLoginUrl, openBrowser, signal }) =>
		Cursor.auth.login({ apiKeyName, onLoginUrl, openBrowser, signal, store: null }),
	readStoredLogin: async () => {
		const stored = await new FileCredentialStore().load();
		if (!stored) return undefined;
		const { backendUrl, apiKey, apiKeyExpiresAtMs, email } = stored;
		return {
			backendUrl,
			apiKey,
			...(apiKeyExpiresAtMs !== undefined ? { apiKeyExpiresAtMs } : {}),
			...(email ? { email } : {}),
		};
	},
	backendUrl: () => (readEnvVar(process.env, "backendUrl") || "https://api2.cursor.sh").replace(/\/+$/, ""),
};

export const cloudSdk: CloudSdk = {
	createAgent: ({ apiKey, cloud, agents, mode }) =>
		Agent.create({ apiKey, cloud, ...(agents ? { agents } : {}), ...(mode ? { mode } : {}) }),
	resumeAgent: (agentId, { apiKey, cloud, agents, mode }) =>
		Agent.resume(agentId, { apiKey, cloud, ...(agents ? { agents } : {}), ...(mode ? { mode } : {}) }),
	getAgent: (agentId, apiKey) => Agent.get(agentId, { apiKey }),
	getRun: async (agentId, runId, apiKey) => runState(await Agent.getRun(runId, { runtime: "cloud", agentId, apiKey })),
	followRun: async (agentId, runId, apiKey, options = {}) => {
		// Polled rather than streamed: the run's end, in every mode, without a connection held open (print mode exits
		// when its work is done). The TUI and RPC add the run's text with `streamRunText`. An abort ends the wait at once
		// (its timer keeps the process alive until then).
		let interval = options.pollMs ?? 1000;
		for (;;) {
			const state = runState(await Agent.getRun(runId, { runtime: "cloud", agentId, apiKey }));
			if (state.status !== "running" || options.signal?.aborted) return state;
			await new Promise<void>((resolve) => {
				const timer = setTimeout(done, interval);
				options.signal?.addEventListener("abort", done, { once: true });
				function done() {
					clearTimeout(timer);
					options.signal?.removeEventListener("abort", done);
					resolve();
				}
			});
			if (options.signal?.aborted) return state;
			interval = Math.min(interval * 1.5, 5000);
		}
	},
	streamRunText: async (agentId, runId, apiKey, onText, { signal }) => {
		if (signal.aborted) return;
		const run = await Agent.getRun(runId, { runtime: "cloud", agentId, apiKey });
		// A cloud run handle streams into a buffer of its own; `abortClientStream` (SDK 1.0.32's cloud run, not part of
		// the typed interface) closes that connection without cancelling the run, and ends the stream below.
		const close = () => (run as { abortClientStream?: () => void }).abortClientStream?.();
		signal.addEventListener("abort", close, { once: true });
		try {
			for await (const message of run.stream()) {
				if (signal.aborted) break;
				if (message.type !== "assistant") continue;
				for (const block of message.message.content) if (block.type === "text" && block.text) onText(block.text);
			}
		} finally {
			signal.removeEventListener("abort", close);
			close();
		}
	},
	listRuns: async (agentId, apiKey) => {
		const page = await Agent.listRuns(agentId, { runtime: "cloud", apiKey });
		return oldestFirst(page.items).map(runState);
	},
	runConversation: async (agentId, runId, apiKey) => {
		const run = await Agent.getRun(runId, { runtime: "cloud", agentId, apiKey });
		return conversationEntries(await run.conversation());
	},
	cancelRun: (agentId, runId, apiKey) => Agent.cancelRun(runId, { runtime: "cloud", agentId, apiKey }),
	listArtifacts: async (agentId, apiKey) => {
		const agent = await Agent.resume(agentId, { apiKey, cloud: {} });
		try {
			return await agent.listArtifacts();
		} finally {
			agent.close();
		}
	},
	downloadArtifact: async (agentId, path, apiKey) => {
		const agent = await Agent.resume(agentId, { apiKey, cloud: {} });
		try {
			return await agent.downloadArtifact(path);
		} finally {
			agent.close();
		}
	},
	listAgents: (apiKey, options = {}) => Agent.list({ runtime: "cloud", apiKey, ...options }),
	archiveAgent: (agentId, apiKey) => Agent.archive(agentId, { apiKey }),
	deleteAgent: (agentId, apiKey) => Agent.delete(agentId, { apiKey }),
};

const TOOL_DETAIL_KEYS = ["command", "path", "pattern", "globPattern", "query", "url"];

function toolEntry(call: unknown): CloudConversationEntry {
	const { type, args } = (call ?? {}) as { type?: unknown; args?: Record<string, unknown> };
	const detail = TOOL_DETAIL_KEYS.map((key) => args?.[key]).find((value) => typeof value === "string");
	return {
		kind: "tool",
		name: typeof type === "string" ? type : "tool",
		...(detail ? { detail: detail as string } : {}),
	};
}

function conversationEntries(turns: readonly ConversationTurn[]): CloudConversationEntry[] {
	const entries: CloudConversationEntry[] = [];
	for (const turn of turns) {
		if (turn.type === "shellConversationTurn") {
			const { shellCommand, shellOutput } = turn.turn;
			if (shellCommand) {
				entries.push({
					kind: "shell",
					command: shellCommand.command,
					...(shellOutput ? { exitCode: shellOutput.exitCode } : {}),
				});
			}
			continue;
		}
		if (turn.turn.userMessage) entries.push({ kind: "user", text: turn.turn.userMessage.text });
		for (const step of turn.turn.steps) {
			if (step.type === "assistantMessage") entries.push({ kind: "assistant", text: step.message.text });
			else if (step.type === "thinkingMessage") entries.push({ kind: "thinking", text: step.message.text });
			else entries.push(toolEntry(step.message));
		}
	}
	return entries;
}

function runState(
	run: Pick<Run, "id" | "git" | "result" | "error" | "durationMs" | "usage"> & {
		status: Run["status"];
	},
): CloudRunState {
	return {
		id: run.id,
		status: run.status,
		...(run.git ? { git: run.git } : {}),
		...(run.result !== undefined ? { result: run.result } : {}),
		...(run.error ? { error: run.error } : {}),
		...(run.durationMs !== undefined ? { durationMs: run.durationMs } : {}),
		...(run.usage ? { usage: run.usage } : {}),
	};
}

class PlatformStore implements AgentStore {
	constructor(
		readonly platform: CursorAgentPlatform,
		readonly dir?: string,
	) {}
}

function platformOf(store: AgentStore): CursorAgentPlatform {
	if (!(store instanceof PlatformStore)) throw new TypeError("not a store opened by cursorSdk.openStore");
	return store.platform;
}

async function checkpointMaxTokens(store: AgentStore, agentId: string): Promise<number | undefined> {
	const checkpoint = (await platformOf(store).checkpointStore.loadLatest(agentId)) as {
		tokenDetails?: { maxTokens?: unknown };
	} | null;
	const max = checkpoint?.tokenDetails?.maxTokens;
	return typeof max === "number" && max > 0 ? max : undefined;
}

const TERMINAL_RUN = new Set(["finished", "error", "cancelled", "expired"]);

/** A checkpoint reference compared by its blob (the SDK's records carry `{ blobId, storeKind }`). */
function checkpointKey(ref: { blobId?: unknown } | null | undefined): string {
	return ref ? String(ref.blobId) : "";
}

async function agentRunState(store: AgentStore, agentId: string): Promise<AgentRunState | undefined> {
	const runs = platformOf(store).store;
	const agent = await runs.getAgent(agentId);
	if (!agent) return undefined;
	const run = agent.activeRunId ? await runs.getRun(agentId, agent.activeRunId) : null;
	if (!run || TERMINAL_RUN.has(String(run.status).toLowerCase())) return { kind: "idle" };
	const start = checkpointKey(run.startCheckpointRef);
	return {
		kind: "active",
		conversationAdvanced:
			checkpointKey(run.latestCheckpointRef) !== start || checkpointKey(agent.latestCheckpointRef) !== start,
	};
}

export const cursorSdk: CursorSdk = {
	listModels: (apiKey) => Cursor.models.list({ apiKey }),
	openStore: async (dir, cwd) =>
		new PlatformStore(await createAgentPlatform({ stateRoot: dir, workspaceRef: cwd }), dir),
	openEphemeralStore: async (cwd) =>
		new PlatformStore(await createAgentPlatform({ localStore: memoryAgentStore(), workspaceRef: cwd })),
	createAgent: (store, options) => platformOf(store).createAgent(options),
	resumeAgent: (store, agentId, options) => platformOf(store).resumeAgent(agentId, options),
	setHttp1ForAgent: (value) => Cursor.configure({ local: { useHttp1ForAgent: value } }),
	defaultStateRoot: (cwd) => getDefaultSdkStateRoot(cwd),
	me: (apiKey) => Cursor.me({ apiKey }),
	getUsage: (agentId, apiKey) => Agent.getUsage(agentId, { apiKey }),
	checkpointMaxTokens,
	prewarm: (store, options) => platformOf(store).prewarmLocalWorkspace(options),
	agentRunState,
};
