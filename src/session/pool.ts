// One pooled Cursor SDK agent per Pi session: the full context is sent once, then only what is new.
import type { Message } from "@earendil-works/pi-ai";
import { keyFingerprint } from "../catalog/cache.ts";
import { buildBootstrapPrompt, buildIncrementalPrompt, type CursorPrompt } from "../prompt/transcript.ts";
import type { AgentOptions, CursorSdk, SDKAgent } from "../sdk/cursor-sdk.ts";
import { classifyCursorError } from "../sdk/errors.ts";
import type { SettingSources } from "../settings/env.ts";
import type { AgentLease, TurnSetup } from "../turn/stream.ts";
import { type ConversationCoverage, coverageOf, planSessionSend } from "./send-plan.ts";
import { persistentStore, removeStore, type StoreLocation, temporaryStore } from "./stores.ts";

export const RESUME_ENTRY_TYPE = "pi-cursor-sdk:resume";
/** How long a new turn waits for the previous run (e.g. one still cancelling) before replacing the agent. */
const BUSY_WAIT_MS = 30_000;

/** Persisted in the Pi session after each completed turn, so a restarted Pi continues the same SDK conversation. */
export interface ResumeHandle {
	agentId: string;
	storeDir: string;
	coverage: ConversationCoverage;
}

export interface PoolRequest {
	setup: TurnSetup;
	messages: readonly Message[];
	cwd: string;
	settingSources: SettingSources;
	/** Transport choice (HTTP/1.1 on/off/default): agents are not shared across transports. */
	transport: string;
}

export interface PoolHooks {
	appendEntry(customType: string, data: unknown): void;
	notify(message: string): void;
}

export interface SessionScope {
	/** Persisted sessions keep their SDK store in this directory; fileless sessions use a temporary store. */
	storeDir: string | undefined;
	resume: ResumeHandle | undefined;
}

interface Pooled {
	agent: SDKAgent;
	store: StoreLocation;
	poolKey: string;
	coverage: ConversationCoverage | undefined;
}

function isResumeHandle(value: unknown): value is ResumeHandle {
	const v = value as Partial<ResumeHandle> | undefined;
	return (
		typeof v?.agentId === "string" && typeof v.storeDir === "string" && typeof v.coverage?.fingerprint === "string"
	);
}

/**
 * The resume handle of a branch: the last one, unless a user message follows it. Such a message was already on
 * disk when this process started, so the previous process may have sent it to Cursor: resuming could duplicate it.
 */
export function resumeHandleOf(branch: readonly unknown[]): ResumeHandle | undefined {
	for (let i = branch.length - 1; i >= 0; i--) {
		const entry = branch[i] as { type?: string; customType?: string; data?: unknown; message?: { role?: string } };
		if (entry?.type === "message" && entry.message?.role === "user") return undefined;
		if (entry?.type === "custom" && entry.customType === RESUME_ENTRY_TYPE) {
			return isResumeHandle(entry.data) ? entry.data : undefined;
		}
	}
	return undefined;
}

export class SessionAgentPool {
	private pooled: Pooled | undefined;
	private scope: SessionScope = { storeDir: undefined, resume: undefined };
	private inFlight: Promise<void> | undefined;

	constructor(
		private readonly sdk: CursorSdk,
		private readonly hooks: PoolHooks,
	) {}

	/** On `session_start`: a new scope (persisted store dir and resume handle); the previous agent is dropped. */
	bind(scope: SessionScope): void {
		this.invalidate();
		this.scope = scope;
	}

	/** Drops the pooled agent (compaction, tree navigation, shutdown): the next turn bootstraps a new one. */
	invalidate(): void {
		const pooled = this.pooled;
		this.pooled = undefined;
		this.scope.resume = undefined;
		if (pooled) this.dispose(pooled);
	}

	private dispose(pooled: Pooled): void {
		try {
			pooled.agent.close();
		} catch {
			// closing a broken agent must not break the next turn
		}
		removeStore(pooled.store);
	}

	poolKey(request: PoolRequest): string {
		const { setup } = request;
		return [
			setup.baseModelId,
			keyFingerprint(setup.apiKey),
			request.cwd,
			request.settingSources.join(","),
			request.transport,
		].join("|");
	}

	private agentOptions(request: PoolRequest, store: StoreLocation): AgentOptions {
		return {
			apiKey: request.setup.apiKey,
			model: request.setup.selection,
			mode: request.setup.mode,
			local: {
				cwd: request.cwd,
				settingSources: [...request.settingSources],
				store: this.sdk.openStore(store.dir),
				enableAgentRetries: false,
			},
		};
	}

	/** Restores the conversation a previous Pi process left (Agent.resume with the model passed explicitly). */
	private async tryResume(request: PoolRequest, poolKey: string): Promise<Pooled | undefined> {
		const handle = this.scope.resume;
		this.scope.resume = undefined;
		if (!handle || handle.coverage.poolKey !== poolKey) return undefined;
		const store: StoreLocation = { dir: handle.storeDir, temporary: false };
		try {
			const agent = await this.sdk.resumeAgent(handle.agentId, this.agentOptions(request, store));
			return { agent, store, poolKey, coverage: handle.coverage };
		} catch (error) {
			const reason = classifyCursorError(error, [request.setup.apiKey]).message;
			this.hooks.notify(
				`Could not resume the previous Cursor conversation (${reason}); sending the full context to a new Cursor agent.`,
			);
			return undefined;
		}
	}

	private async waitForPreviousRun(): Promise<void> {
		if (!this.inFlight) return;
		let timer: ReturnType<typeof setTimeout> | undefined;
		const timedOut = await Promise.race([
			this.inFlight.then(() => false),
			new Promise<boolean>((resolve) => {
				timer = setTimeout(() => resolve(true), BUSY_WAIT_MS);
			}),
		]);
		clearTimeout(timer);
		// A run that will not finish keeps its agent busy ("already has active run"): replace the agent instead.
		if (timedOut) this.invalidate();
	}

	async acquire(request: PoolRequest): Promise<AgentLease> {
		await this.waitForPreviousRun();
		const poolKey = this.poolKey(request);
		if (this.pooled && this.pooled.poolKey !== poolKey) this.invalidate();
		this.pooled ??= await this.tryResume(request, poolKey);

		const plan = planSessionSend(this.pooled?.coverage, poolKey, request.messages);
		let prompt: CursorPrompt;
		let incrementalSends: number;
		if (plan.kind === "incremental" && this.pooled) {
			prompt = buildIncrementalPrompt(plan.newMessages);
			incrementalSends = (this.pooled.coverage?.incrementalSends ?? 0) + 1;
		} else {
			if (this.pooled) this.invalidate();
			const store = this.scope.storeDir ? persistentStore(this.scope.storeDir) : temporaryStore();
			try {
				const agent = await this.sdk.createAgent(this.agentOptions(request, store));
				this.pooled = { agent, store, poolKey, coverage: undefined };
			} catch (error) {
				removeStore(store);
				throw error;
			}
			prompt = buildBootstrapPrompt(request.messages);
			incrementalSends = 0;
		}

		const pooled = this.pooled;
		let settle = () => {};
		this.inFlight = new Promise<void>((resolve) => {
			settle = resolve;
		});
		return {
			agent: pooled.agent,
			prompt,
			release: (outcome) => {
				if (this.pooled === pooled) {
					if (outcome === "finished") {
						pooled.coverage = coverageOf(poolKey, request.messages, incrementalSends);
						if (!pooled.store.temporary) {
							const handle: ResumeHandle = {
								agentId: pooled.agent.agentId,
								storeDir: pooled.store.dir,
								coverage: pooled.coverage,
							};
							this.hooks.appendEntry(RESUME_ENTRY_TYPE, handle);
						}
					} else {
						this.invalidate(); // after an error or abort the SDK conversation state is unknown
					}
				}
				this.inFlight = undefined;
				settle();
			},
		};
	}

	/** A compaction or tree summary: a fresh tool-less agent on a temporary store; the pool is untouched. */
	async acquireForSummary(request: PoolRequest): Promise<AgentLease> {
		const store = temporaryStore();
		let agent: SDKAgent;
		try {
			agent = await this.sdk.createAgent({
				...this.agentOptions({ ...request, settingSources: [] }, store),
				mode: "agent",
				tools: [],
			});
		} catch (error) {
			removeStore(store);
			throw error;
		}
		return {
			agent,
			prompt: buildBootstrapPrompt(request.messages, { toolGuards: false }),
			release: () => {
				agent.close();
				removeStore(store);
			},
		};
	}

	/** `session_shutdown`: close the agent and remove temporary stores. */
	shutdown(): void {
		this.invalidate();
	}
}
