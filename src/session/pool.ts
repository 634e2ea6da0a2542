// One pooled Cursor SDK agent per Pi session: the full context is sent once, then only what is new.
import type { Message } from "@earendil-works/pi-ai";
import { keyFingerprint } from "../catalog/cache.ts";
import { buildBootstrapPrompt, buildIncrementalPrompt, type CursorPrompt } from "../prompt/transcript.ts";
import type { AgentDefinition, AgentOptions, AgentStore, CursorSdk, SDKAgent } from "../sdk/cursor-sdk.ts";
import { classifyCursorError } from "../sdk/errors.ts";
import type { SettingSources } from "../settings/env-parse.ts";
import type { LiveRun } from "../turn/live-run.ts";
import type { AgentLease, TurnSetup } from "../turn/types.ts";
import { TurnEnded, type TurnWatch } from "../turn/watch.ts";
import { heldByAnotherLivePi } from "./cleanup.ts";
import { ConversationFingerprints } from "./fingerprint.ts";
import { RESUME_ENTRY_TYPE, type ResumeHandle } from "./resume.ts";
import { type ConversationCoverage, coverageOf, planSessionSend } from "./send-plan.ts";
import { INTERRUPTED_TURN_RECOVERED, interruptedTurnRecoverable, STALE_RUN_EXPIRED } from "./stale-run.ts";
import { persistentStore, removeStore, type StoreLocation, temporaryStore } from "./stores.ts";

/** How long a new turn waits for the previous run (e.g. one still cancelling) before replacing the agent. */
const BUSY_WAIT_MS = 30_000;

export interface PoolRequest {
	setup: TurnSetup;
	messages: readonly Message[];
	cwd: string;
	settingSources: SettingSources;
	/** Transport choice (HTTP/1.1 on/off/default): agents are not shared across transports. */
	transport: string;
	/** Custom agent definitions (`AgentOptions.agents`) captured for this turn; absent when there are none. */
	agents?: Record<string, AgentDefinition>;
	/** Order-independent digest of `agents`: an edit starts a new agent and refuses older resume handles. */
	agentsDigest?: string;
	/** Local safety controls to enable; only enabled ones are present (and only they join the pool key). */
	safety?: { autoReview?: true; sandboxOptions?: { enabled: true } };
	/** The Pi tools bridged to Cursor this turn; a changed set starts a new agent (its bootstrap names them). */
	tools?: { fingerprint: string; manifest: string; skillTool?: string };
}

export interface PoolHooks {
	appendEntry(customType: string, data: unknown): void;
	notify(message: string): void;
}

export interface SessionScope {
	/** Persisted sessions keep their SDK store in this directory; fileless sessions use a temporary store. */
	storeDir: string | undefined;
	resume: ResumeHandle | undefined;
	/** A user message follows the handle on the branch: a turn the previous Pi process did not finish. */
	interrupted?: boolean;
}

export interface PoolOptions {
	/** How long a new turn waits for the previous run before replacing the agent (default 30 s). */
	busyWaitMs?: number;
}

interface Pooled {
	agent: SDKAgent;
	poolKey: string;
	coverage: ConversationCoverage | undefined;
	/** The agent's conversation fingerprinted as it grows (each turn hashes only its new messages). */
	fingerprints: ConversationFingerprints;
	/** Resumed over a turn a Pi process left unfinished (its run still marked active): told once, when expired. */
	recoversInterruptedTurn?: boolean;
}

/** Closes an agent; closing a broken one must not break the next turn. */
function closeAgent(agent: SDKAgent): void {
	try {
		agent.close();
	} catch {
		// nothing to keep
	}
}

export class SessionAgentPool {
	private pooled: Pooled | undefined;
	private live: LiveRun | undefined;
	private scope: SessionScope = { storeDir: undefined, resume: undefined };
	/**
	 * The session's SDK store (opened on first use, shared by the session's agents; a temporary one is removed with
	 * the scope). The SDK keeps it open until Pi exits; every write is committed as it happens.
	 */
	private sessionStore: { location: StoreLocation; open: Promise<AgentStore> } | undefined;
	/** The turn that holds the pooled agent, from `acquire` until its lease is released. */
	private inFlight: Promise<void> | undefined;

	constructor(
		private readonly sdk: CursorSdk,
		private readonly hooks: PoolHooks,
		private readonly options: PoolOptions = {},
	) {}

	/** On `session_start`: a new scope (persisted store dir and resume handle); the previous agent is dropped. */
	bind(scope: SessionScope): void {
		this.invalidate();
		this.dropSessionStore();
		this.scope = scope;
	}

	private storeFor(cwd: string): { location: StoreLocation; open: Promise<AgentStore> } {
		if (!this.sessionStore) {
			const location = this.scope.storeDir ? persistentStore(this.scope.storeDir) : temporaryStore();
			const open = this.sdk.openStore(location.dir, cwd);
			const store = { location, open };
			this.sessionStore = store;
			open.catch(() => {
				if (this.sessionStore === store) this.sessionStore = undefined; // retry on the next turn
				removeStore(location);
			});
		}
		return this.sessionStore;
	}

	private dropSessionStore(): void {
		const store = this.sessionStore;
		this.sessionStore = undefined;
		if (store) removeStore(store.location);
	}

	/** `tokenDetails.maxTokens` of the agent's latest checkpoint in the session store, if it has one. */
	async checkpointMaxTokens(agentId: string): Promise<number | undefined> {
		const store = this.sessionStore;
		if (!store) return undefined;
		try {
			return await this.sdk.checkpointMaxTokens(await store.open, agentId);
		} catch {
			return undefined; // a store that failed to open, or an agent it does not hold
		}
	}

	/** The session's live run (one SDK run spanning several Pi provider turns), if any. */
	get liveRun(): LiveRun | undefined {
		return this.live;
	}

	/** Makes `run` the session's live run (undefined: none); a different previous one is given up. */
	keepLive(run: LiveRun | undefined): void {
		const previous = this.live;
		this.live = run;
		if (previous !== run) previous?.dispose();
	}

	/** `run` is over; it stops being the session's live run. */
	dropLive(run: LiveRun): void {
		if (this.live === run) this.live = undefined;
	}

	/** Drops the pooled agent (compaction, tree navigation, shutdown): the next turn bootstraps a new one. */
	invalidate(): void {
		const pooled = this.pooled;
		this.pooled = undefined;
		this.scope.resume = undefined;
		this.keepLive(undefined); // a live run of the dropped agent is cancelled
		if (pooled) this.dispose(pooled);
	}

	private dispose(pooled: Pooled): void {
		closeAgent(pooled.agent);
	}

	poolKey(request: PoolRequest): string {
		const { setup } = request;
		return [
			setup.baseModelId,
			keyFingerprint(setup.apiKey),
			request.cwd,
			request.settingSources.join(","),
			request.transport,
			// Only present features extend the key, so keys (and resume handles) without them stay as they were.
			...(request.agentsDigest ? [`agents=${request.agentsDigest}`] : []),
			...(request.safety?.autoReview ? ["review"] : []),
			...(request.safety?.sandboxOptions?.enabled ? ["sandbox"] : []),
			...(request.tools ? [`tools=${request.tools.fingerprint}`] : []),
		].join("|");
	}

	private agentOptions(request: PoolRequest): AgentOptions {
		return {
			apiKey: request.setup.apiKey,
			model: request.setup.selection,
			mode: request.setup.mode,
			...(request.agents ? { agents: request.agents } : {}),
			local: {
				cwd: request.cwd,
				settingSources: [...request.settingSources],
				enableAgentRetries: false,
				...request.safety,
			},
		};
	}

	/** Whether a turn holds or has created the session's agent (a prewarm has nothing left to prepare then). */
	get started(): boolean {
		return this.inFlight !== undefined || this.pooled !== undefined;
	}

	/**
	 * Prepares what the agent `request` would create needs before its first send: the session store is opened, and
	 * the SDK builds the agent's local executor (keyed, as the agent's own, on key, cwd, setting sources, safety and
	 * subagents). Resolves to the release of that executor.
	 */
	async prewarm(request: PoolRequest): Promise<() => Promise<void>> {
		const store = await this.storeFor(request.cwd).open;
		return this.sdk.prewarm(store, this.agentOptions(request));
	}

	/**
	 * `/cursor-refresh-config`: the pooled agent reloads Cursor rules, MCP servers, plugins and settings from disk
	 * (the conversation and its agent stay).
	 */
	async reloadConfig(): Promise<"reloaded" | "no-agent"> {
		const pooled = this.pooled;
		if (!pooled) return "no-agent";
		await pooled.agent.reload();
		return "reloaded";
	}

	/** Restores the conversation a previous Pi process left (Agent.resume with the model passed explicitly). */
	private async tryResume(request: PoolRequest, poolKey: string, watch: TurnWatch): Promise<Pooled | undefined> {
		const handle = this.scope.resume;
		const interrupted = this.scope.interrupted === true;
		this.scope.resume = undefined;
		this.scope.interrupted = false;
		if (!handle || handle.coverage.poolKey !== poolKey) return undefined;
		// A handle from another session's store (a fork or clone copies the donor's entries) belongs to the donor:
		// continuing it would share one SDK conversation between two sessions, with turns this branch does not have.
		if (handle.storeDir !== this.scope.storeDir) return undefined;
		try {
			const store = await watch.race(this.storeFor(request.cwd).open);
			if (interrupted && !(await interruptedTurnRecoverable(this.sdk, store, handle, watch))) return undefined;
			const agent = await watch.race(
				this.sdk.resumeAgent(store, handle.agentId, this.agentOptions(request)),
				closeAgent,
			);
			return {
				agent,
				poolKey,
				coverage: handle.coverage,
				fingerprints: new ConversationFingerprints(),
				...(interrupted ? { recoversInterruptedTurn: true } : {}),
			};
		} catch (error) {
			if (error instanceof TurnEnded) throw error;
			const reason = classifyCursorError(error, [request.setup.apiKey]).message;
			this.hooks.notify(
				`Could not resume the previous Cursor conversation (${reason}); sending the full context to a new Cursor agent.`,
			);
			return undefined;
		}
	}

	/**
	 * Waits until no other turn holds the pooled agent, then claims it; returns the function that gives it back.
	 * The check and the claim happen in one synchronous step, so concurrent acquisitions queue instead of both
	 * sending on one agent ("already has active run"). The wait ends early when the turn's watch ends the turn.
	 */
	private async claimTurn(watch: TurnWatch): Promise<() => void> {
		const deadline = Date.now() + (this.options.busyWaitMs ?? BUSY_WAIT_MS);
		while (this.inFlight) {
			const previous = this.inFlight;
			const remaining = deadline - Date.now();
			let timer: ReturnType<typeof setTimeout> | undefined;
			const timedOut =
				remaining <= 0 ||
				(await watch
					.race(
						Promise.race([
							previous.then(() => false),
							new Promise<boolean>((resolve) => {
								timer = setTimeout(() => resolve(true), remaining);
							}),
						]),
					)
					.finally(() => clearTimeout(timer)));
			if (timedOut && this.inFlight === previous) {
				// A run that will not finish keeps its agent busy ("already has active run"): replace the agent instead.
				this.inFlight = undefined;
				this.invalidate();
			}
		}
		watch.check();
		let settle = () => {};
		const mine = new Promise<void>((resolve) => {
			settle = resolve;
		});
		this.inFlight = mine;
		return () => {
			// A turn abandoned after the busy wait must not release the claim of the turn that replaced it.
			if (this.inFlight === mine) this.inFlight = undefined;
			settle();
		};
	}

	/**
	 * Leases the session's agent for one turn. Every wait (the previous run, the store, create/resume) races `watch`:
	 * when it ends the turn, the claim is given back at once and an agent that arrives late is closed, never pooled.
	 */
	async acquire(request: PoolRequest, watch: TurnWatch): Promise<AgentLease> {
		const done = await this.claimTurn(watch);
		watch.startSdkWork();
		try {
			return await this.lease(request, done, watch);
		} catch (error) {
			done();
			throw error;
		}
	}

	private async lease(request: PoolRequest, done: () => void, watch: TurnWatch): Promise<AgentLease> {
		const poolKey = this.poolKey(request);
		if (this.pooled && this.pooled.poolKey !== poolKey) this.invalidate();
		this.pooled ??= await this.tryResume(request, poolKey, watch);

		const fingerprints = this.pooled?.fingerprints;
		const plan = planSessionSend(
			this.pooled?.coverage,
			poolKey,
			request.messages,
			fingerprints && ((messages) => fingerprints.of(messages)),
		);
		let prompt: CursorPrompt;
		let incrementalSends: number;
		let kind: AgentLease["kind"];
		if (plan.kind === "incremental" && this.pooled) {
			prompt = buildIncrementalPrompt(plan.newMessages);
			incrementalSends = (this.pooled.coverage?.incrementalSends ?? 0) + 1;
			kind = "incremental";
		} else {
			if (this.pooled) this.invalidate();
			const store = await watch.race(this.storeFor(request.cwd).open);
			const agent = await watch.race(this.sdk.createAgent(store, this.agentOptions(request)), closeAgent);
			this.pooled = { agent, poolKey, coverage: undefined, fingerprints: new ConversationFingerprints() };
			prompt = buildBootstrapPrompt(request.messages, {
				manifest: request.tools?.manifest,
				...(request.tools?.skillTool ? { skillTool: request.tools.skillTool } : {}),
			});
			incrementalSends = 0;
			kind = "bootstrap";
		}

		const pooled = this.pooled;
		const storeLocation = this.sessionStore?.location;
		return {
			agent: pooled.agent,
			prompt,
			kind,
			staleRunRecoverable: () => {
				// Only a persisted session's store can be shared with (or left behind by) another Pi process.
				if (!storeLocation || storeLocation.temporary || heldByAnotherLivePi(storeLocation.dir)) return false;
				const interrupted = pooled.recoversInterruptedTurn === true;
				pooled.recoversInterruptedTurn = false;
				this.hooks.notify(interrupted ? INTERRUPTED_TURN_RECOVERED : STALE_RUN_EXPIRED);
				return true;
			},
			release: (outcome, covered = request.messages) => {
				try {
					if (this.pooled !== pooled) return;
					if (outcome === "finished") {
						pooled.coverage = coverageOf(poolKey, covered, incrementalSends, (m) => pooled.fingerprints.of(m));
						if (storeLocation && !storeLocation.temporary) {
							const handle: ResumeHandle = {
								agentId: pooled.agent.agentId,
								storeDir: storeLocation.dir,
								coverage: pooled.coverage,
							};
							this.hooks.appendEntry(RESUME_ENTRY_TYPE, handle);
						}
					} else {
						this.invalidate(); // after an error or abort the SDK conversation state is unknown
					}
				} finally {
					done(); // even when appending the resume entry fails, the next turn must not wait for this one
				}
			},
		};
	}

	/** A compaction or tree summary: a fresh tool-less agent on an ephemeral store; the pool is untouched. */
	async acquireForSummary(request: PoolRequest, watch: TurnWatch): Promise<AgentLease> {
		watch.startSdkWork();
		const store = await watch.race(this.sdk.openEphemeralStore(request.cwd));
		const definitionFree = { ...request, settingSources: [], agents: undefined, agentsDigest: undefined };
		const options = { ...this.agentOptions(definitionFree), mode: "agent", tools: [] } as AgentOptions;
		const agent = await watch.race(this.sdk.createAgent(store, options), closeAgent);
		return {
			agent,
			prompt: buildBootstrapPrompt(request.messages, { toolGuards: false }),
			kind: "summary",
			release: () => closeAgent(agent), // its store goes with it
		};
	}

	/** `session_shutdown`: close the agent; a temporary session store is removed. */
	shutdown(): void {
		this.invalidate();
		this.dropSessionStore();
	}
}
