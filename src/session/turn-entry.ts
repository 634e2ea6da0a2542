// The provider entry of one Pi session: gathers a request's inputs once (the environment, the re-read local
// configuration, the session's settings) and resolves them into the turn's setup (src/turn/setup.ts), then checks
// the session's store (local turns). The runtime then runs the setup as it is.
import type { Model, SimpleStreamOptions } from "@earendil-works/pi-ai";
import type { CatalogState } from "../catalog/state.ts";
import type { TurnEntry, TurnRuntime } from "../runtime/types.ts";
import type { CursorError } from "../sdk/errors.ts";
import { type EnvRecord, readEnv } from "../settings/env.ts";
import type { LocalAgentConfig } from "../settings/local-config.ts";
import type { SessionSettings } from "../settings/session-settings.ts";
import { catalogSubagentResolver } from "../settings/subagents.ts";
import { resolveTurnSetup } from "../turn/setup.ts";
import type { TurnSetup } from "../turn/types.ts";
import type { SessionStoreScope } from "./store-scope.ts";

export interface SessionTurnEntryDeps {
	readonly catalog: CatalogState;
	readonly settings: SessionSettings;
	readonly local: LocalAgentConfig;
	readonly stores: SessionStoreScope;
	readonly env: EnvRecord;
	readonly runtime: TurnRuntime;
	readonly cloud: TurnRuntime;
	/** The session's store moved to another state root: the pool rebinds to it. */
	readonly storeMoved: (storeDir: string | undefined) => void;
	/** Every resolved request, set up or refused (usage accounting records the key or the error). */
	readonly resolved: (setup: TurnSetup | CursorError) => void;
	/** The key's own state (src/auth/): an expired account sign-in refuses the send; a near expiry is noticed. */
	readonly checkKey?: (apiKey: string | undefined) => { expired: string } | undefined;
}

export class SessionTurnEntry implements TurnEntry {
	/** Abort signals of compaction and tree summaries: Pi's only public marker of those requests. */
	private readonly summarySignals = new WeakSet<AbortSignal>();
	readonly runtime: TurnRuntime;
	readonly cloud: TurnRuntime;

	constructor(private readonly deps: SessionTurnEntryDeps) {
		this.runtime = deps.runtime;
		this.cloud = deps.cloud;
	}

	markSummary(signal: AbortSignal): void {
		this.summarySignals.add(signal);
	}

	isSummary(signal: AbortSignal | undefined): boolean {
		return signal !== undefined && this.summarySignals.has(signal);
	}

	setup(model: Model<string>, options: SimpleStreamOptions | undefined, continuing: boolean): TurnSetup | CursorError {
		const expired = this.deps.checkKey?.(options?.apiKey)?.expired;
		const setup: TurnSetup | CursorError = expired
			? { kind: "auth", message: expired }
			: this.resolve(model, options, continuing);
		this.deps.resolved(setup);
		return setup;
	}

	/** What a send on `model` now would be set up with, unrecorded (a prewarm prepares for it). */
	preview(model: Model<string>, options: SimpleStreamOptions): TurnSetup | CursorError {
		return this.resolve(model, options, false);
	}

	private resolve(model: Model<string>, options: SimpleStreamOptions | undefined, continuing: boolean) {
		const { catalog, local, settings } = this.deps;
		// Edits to cursor-sdk.json apply from the next send (a continued run keeps its agent and store).
		if (!continuing) local.reload();
		const summary = this.isSummary(options?.signal);
		const env = readEnv(this.deps.env);
		const setup = resolveTurnSetup({
			modelId: model.id,
			row: catalog.resolve(model.id),
			options,
			settings: settings.input(model, env),
			env,
			subagents: local.subagents(catalogSubagentResolver(catalog)),
			summary,
		});
		// Summaries use a temporary store; every other send of a persisted session needs a safe state root.
		if ("kind" in setup || continuing || summary || setup.runtime === "cloud") return setup;
		const store = this.deps.stores.forTurn(local.storeRoot(env));
		if (!store.ok) return { kind: "configuration", message: store.message } satisfies CursorError;
		if (store.moved) this.deps.storeMoved(store.storeDir);
		return setup;
	}
}
