import type { Model, SimpleStreamOptions } from "@earendil-works/pi-ai";
import { type ExtensionAPI, type ExtensionContext, getAgentDir } from "@earendil-works/pi-coding-agent";
import { CatalogCache } from "./catalog/cache.ts";
import { CatalogState, PROVIDER_ID, type ResolvedRow } from "./catalog/state.ts";
import { dropCursorLoadedContextFiles } from "./prompt/context-files.ts";
import { buildProvider } from "./provider.ts";
import { type CursorSdk, cursorSdk } from "./sdk/cursor-sdk.ts";
import type { CursorError } from "./sdk/errors.ts";
import { applyNativePaths, locateNativePaths } from "./sdk/native-paths.ts";
import { buildModelSelection } from "./selection.ts";
import { resumeHandleOf, SessionAgentPool } from "./session/pool.ts";
import { sessionStoreDir, stateRoot } from "./session/stores.ts";
import { CursorSdkConfigFile, type CursorSdkUserConfig, userConfigPath } from "./settings/config-file.ts";
import {
	type CursorModelInput,
	type EffectiveSettingsInput,
	parseFastForceFlags,
	resolveEffectiveSettings,
	resolveHttp1,
	STATUS_KEY,
} from "./settings/effective.ts";
import { readBooleanEnv, readCursorEnv } from "./settings/env.ts";
import { type CursorSessionState, emptySessionState, restoreSessionState } from "./settings/session-state.ts";
import type { TurnRuntime, TurnSetup } from "./turn/stream.ts";
import { registerCommands } from "./ui/commands.ts";
import { FLAG_FAST, FLAG_MODE, FLAG_NO_FAST, registerFlags } from "./ui/flags.ts";

type Notify = (message: string, type?: "info" | "warning" | "error") => void;

/**
 * Everything the extension knows about one Pi session runtime. Pi may host several sessions in one process; each
 * gets its own instance, so catalogs, agents and settings are never shared.
 */
export class CursorExtension {
	readonly catalog = new CatalogState();
	readonly configFile: CursorSdkConfigFile;
	private readonly cache: CatalogCache;
	session: CursorSessionState = emptySessionState();
	userConfig: CursorSdkUserConfig = {};
	private cwd = process.cwd();
	private activeModel: Model<string> | undefined;
	private ui: ExtensionContext["ui"] | undefined;
	/** The HTTP/1.1 value we last gave `Cursor.configure` (undefined: never configured by us). */
	private appliedHttp1: boolean | undefined;
	readonly pool: SessionAgentPool;
	/** Abort signals of compaction and tree summaries: Pi's only public marker of those requests. */
	private readonly summarySignals = new WeakSet<AbortSignal>();

	constructor(
		readonly pi: ExtensionAPI,
		readonly sdk: CursorSdk = cursorSdk,
		private readonly agentDir: string = getAgentDir(),
	) {
		this.configFile = new CursorSdkConfigFile(userConfigPath(agentDir));
		this.cache = new CatalogCache(agentDir);
		this.pool = new SessionAgentPool(sdk, {
			appendEntry: (customType, data) => this.pi.appendEntry(customType, data),
			notify: (message) => this.notify(message, "info"),
		});
	}

	register(): void {
		// The SDK's own native lookup walks up from Pi's argv[1]/execPath and misses our node_modules.
		applyNativePaths(process.env, locateNativePaths());
		registerFlags(this.pi);
		registerCommands(this);
		this.pi.registerProvider(
			buildProvider({
				sdk: this.sdk,
				catalog: this.catalog,
				cache: this.cache,
				turns: this.turnRuntime(),
				onRefreshError: (message) => this.notify(message, "warning"),
			}),
		);
		this.pi.on("session_start", (_event, ctx) => {
			this.bind(ctx);
			this.session = restoreSessionState(ctx.sessionManager.getBranch());
			this.cwd = ctx.cwd;
			const read = this.configFile.readSync();
			this.userConfig = read.config;
			if (read.warning) this.notify(read.warning, "warning");
			const flagError = this.flagError();
			if (flagError && ctx.hasUI) this.notify(flagError, "error");
			this.activeModel = ctx.model as Model<string> | undefined;
			this.warnUnsupportedFastFlag();
			this.refreshStatus();
			const sessionManager = ctx.sessionManager;
			const persisted = sessionManager.getSessionFile() !== undefined;
			const localResume = readBooleanEnv(process.env, "PI_CURSOR_LOCAL_RESUME", true);
			this.pool.bind({
				storeDir: persisted
					? sessionStoreDir(
							stateRoot(process.env, () => this.sdk.defaultStateRoot(ctx.cwd)),
							sessionManager.getSessionId(),
						)
					: undefined,
				resume:
					persisted && localResume
						? resumeHandleOf(sessionManager.getBranch(), sessionManager.getEntries())
						: undefined,
			});
		});
		this.pi.on("before_agent_start", (event, ctx) => {
			// Only for Cursor turns: switching to another provider gets Pi's full context block back next message.
			if (ctx.model?.provider !== PROVIDER_ID) return;
			if (readBooleanEnv(process.env, "PI_CURSOR_PRESERVE_PI_AGENTS_MD", false)) return;
			const sources = readCursorEnv(process.env).settingSources;
			if (!sources.ok) return;
			dropCursorLoadedContextFiles(event.systemPromptOptions.contextFiles ?? [], this.agentDir, sources.sources);
		});
		this.pi.on("session_before_compact", (event) => {
			this.summarySignals.add(event.signal);
		});
		this.pi.on("session_before_tree", (event) => {
			this.summarySignals.add(event.signal);
			this.pool.invalidate();
		});
		this.pi.on("session_compact", () => {
			this.pool.invalidate();
		});
		this.pi.on("session_tree", () => {
			this.pool.invalidate();
		});
		this.pi.on("model_select", (event, ctx) => {
			this.bind(ctx);
			this.activeModel = event.model as Model<string>;
			this.refreshStatus();
		});
		this.pi.on("session_shutdown", async () => {
			await this.pool.shutdown();
			if (this.appliedHttp1 !== undefined) this.sdk.setHttp1ForAgent(null);
			this.appliedHttp1 = undefined;
		});
	}

	private bind(ctx: ExtensionContext): void {
		this.ui = ctx.hasUI ? ctx.ui : undefined;
	}

	/** A user-facing notice: Pi's notification in UI modes, stderr in print/json mode. */
	readonly notify: Notify = (message, type = "info") => {
		if (this.ui) this.ui.notify(message, type);
		else if (type !== "info") console.error(message);
	};

	modelInput(model: Model<string> | undefined = this.activeModel): CursorModelInput | undefined {
		if (!model || model.provider !== PROVIDER_ID) return undefined;
		const row = this.catalog.resolve(model.id);
		if (!row) return { isCursor: true, selectionKey: model.id, baseId: model.id, fastCapable: false };
		const { meta } = row;
		const catalogFast = meta.defaultParams.find((p) => p.id === "fast")?.value;
		return {
			isCursor: true,
			selectionKey: meta.selectionId,
			baseId: meta.baseId,
			fastCapable: meta.capabilities.fast,
			catalogFastDefault: catalogFast === "true",
			...(meta.forcedFast !== undefined ? { aliasForcedFast: meta.forcedFast } : {}),
		};
	}

	settingsInput(model: Model<string> | undefined = this.activeModel): EffectiveSettingsInput {
		return {
			model: this.modelInput(model),
			flags: {
				fast: this.pi.getFlag(FLAG_FAST),
				noFast: this.pi.getFlag(FLAG_NO_FAST),
				mode: this.pi.getFlag(FLAG_MODE),
			},
			session: this.session,
			config: this.userConfig,
			env: process.env,
		};
	}

	/** `--cursor-fast`/`--cursor-no-fast` on a model without a fast switch change nothing: say so once. */
	private warnUnsupportedFastFlag(): void {
		const input = this.settingsInput();
		const flags = parseFastForceFlags(input.flags);
		if (flags.ok && flags.force !== undefined && input.model?.isCursor && !input.model.fastCapable) {
			this.notify(`Fast mode not supported by ${input.model.selectionKey}`, "warning");
		}
	}

	/** The first invalid `--cursor-*` flag, as a message naming the valid values. */
	flagError(): string | undefined {
		const input = this.settingsInput();
		const fastFlags = parseFastForceFlags(input.flags);
		if (!fastFlags.ok) return fastFlags.error;
		const mode = resolveEffectiveSettings(input).mode;
		return mode.ok ? undefined : mode.error;
	}

	refreshStatus(): void {
		this.ui?.setStatus(STATUS_KEY, resolveEffectiveSettings(this.settingsInput()).status);
	}

	/** Configures the SDK's local transport from the effective HTTP/1.1 setting (`null` resets to the default). */
	private applyTransport(): void {
		const wanted = resolveHttp1(this.settingsInput()).useHttp1;
		if (wanted === this.appliedHttp1) return;
		this.sdk.setHttp1ForAgent(wanted ?? null);
		this.appliedHttp1 = wanted;
	}

	private prepare(model: Model<string>, options: SimpleStreamOptions | undefined): TurnSetup | CursorError {
		const row: ResolvedRow | undefined = this.catalog.resolve(model.id);
		if (!row) {
			return {
				kind: "configuration",
				message: `Unknown Cursor model "cursor/${model.id}". Run \`pi --list-models cursor\` to list valid ids, or /cursor-refresh-models to update the catalog.`,
			};
		}
		const apiKey = options?.apiKey;
		if (!apiKey) {
			return { kind: "auth", message: "No Cursor API key: set CURSOR_API_KEY or run /login (API key → Cursor)." };
		}
		const flagError = this.flagError();
		if (flagError) return { kind: "configuration", message: flagError };
		const env = readCursorEnv(process.env);
		if (!env.settingSources.ok) return { kind: "configuration", message: env.settingSources.error };
		const settings = resolveEffectiveSettings(this.settingsInput(model));
		const fast = settings.fast.kind === "value" ? settings.fast.fast : undefined;
		const mode = settings.mode.ok ? settings.mode.mode : "agent";
		return {
			apiKey,
			baseModelId: row.meta.baseId,
			selection: buildModelSelection(row.meta, row.item, options?.reasoning, fast),
			mode,
		};
	}

	private turnRuntime(): TurnRuntime {
		return {
			prepare: (model, options) => this.prepare(model, options),
			acquire: (setup, messages, signal) => {
				this.applyTransport();
				const env = readCursorEnv(process.env);
				const request = {
					setup,
					messages,
					cwd: this.cwd,
					settingSources: env.settingSources.ok ? env.settingSources.sources : (["all"] as const),
					transport: `http1=${this.appliedHttp1 ?? "default"}`,
				};
				return signal && this.summarySignals.has(signal)
					? this.pool.acquireForSummary(request)
					: this.pool.acquire(request, signal);
			},
		};
	}
}
