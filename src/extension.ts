import type { Model, SimpleStreamOptions } from "@earendil-works/pi-ai";
import {
	type ExtensionAPI,
	type ExtensionContext,
	getAgentDir,
	hasTrustRequiringProjectResources,
} from "@earendil-works/pi-coding-agent";
import { ACTIVATE_SKILL_TOOL, registerActivateSkill, type SkillInfo } from "./bridge/activate-skill.ts";
import { ENV_ASK_QUESTION, registerAskQuestion } from "./bridge/ask-question.ts";
import { isBridgeToolCallId } from "./bridge/ids.ts";
import { renderToolsReport } from "./bridge/report.ts";
import { startBridgeServer } from "./bridge/server.ts";
import { type BridgeSettings, readBridgeSettings } from "./bridge/settings.ts";
import { type BridgeSurface, buildBridgeSurface, buildToolManifestText } from "./bridge/snapshot.ts";
import { CatalogCache } from "./catalog/cache.ts";
import { FALLBACK_CONTEXT_WINDOWS } from "./catalog/context-windows.generated.ts";
import { learnedWindowsPath, readLearnedWindows } from "./catalog/learned-windows.ts";
import { CatalogState, PROVIDER_ID, type ResolvedRow } from "./catalog/state.ts";
import { dropCursorLoadedContextFiles } from "./prompt/context-files.ts";
import { buildProvider } from "./provider.ts";
import { NEUTRAL_TOOL } from "./replay/mapping.ts";
import { CursorReplay } from "./replay/replay.ts";
import { readTaskWording } from "./replay/tools.ts";
import { type CursorSdk, cursorSdk } from "./sdk/cursor-sdk.ts";
import type { CursorError } from "./sdk/errors.ts";
import {
	installMcpTimeouts,
	type McpTimeoutInstall,
	mcpTimeoutNotices,
	SDK_MCP_REQUEST_TIMEOUT_MS,
} from "./sdk/mcp-timeouts.ts";
import { applyNativePaths, locateNativePaths } from "./sdk/native-paths.ts";
import { SdkSockets } from "./sdk/sdk-sockets.ts";
import { buildModelSelection } from "./selection.ts";
import { resumeHandleOf, SessionAgentPool } from "./session/pool.ts";
import { chooseStoreRoot } from "./session/store-root.ts";
import { SessionStoreScope } from "./session/store-scope.ts";
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
import { LocalAgentConfig } from "./settings/local-config.ts";
import { approveOverride, savedProjectTrust } from "./settings/project-config.ts";
import { resolveSafety, safetyAgentOptions } from "./settings/safety.ts";
import { type CursorSessionState, emptySessionState, restoreSessionState } from "./settings/session-state.ts";
import { catalogSubagentResolver } from "./settings/subagents.ts";
import type { TurnRuntime, TurnSetup } from "./turn/stream.ts";
import { declaredTools } from "./turn/tools.ts";
import { registerCommands } from "./ui/commands.ts";
import { FLAG_AUTO_REVIEW, FLAG_FAST, FLAG_MODE, FLAG_NO_FAST, FLAG_SANDBOX, registerFlags } from "./ui/flags.ts";
import { Accounting } from "./usage/accounting.ts";

type Notify = (message: string, type?: "info" | "warning" | "error") => void;

/**
 * Everything the extension knows about one Pi session runtime. Pi may host several sessions in one process; each
 * gets its own instance, so catalogs, agents and settings are never shared.
 */
export class CursorExtension {
	readonly catalog: CatalogState;
	readonly configFile: CursorSdkConfigFile;
	private readonly cache: CatalogCache;
	session: CursorSessionState = emptySessionState();
	userConfig: CursorSdkUserConfig = {};
	private cwd = process.cwd();
	/** Pi's mode: print mode keeps stdout for the answer (tool activity goes to stderr instead of cards). */
	private mode: ExtensionContext["mode"] = "tui";
	private activeModel: Model<string> | undefined;
	private ui: ExtensionContext["ui"] | undefined;
	/** The HTTP/1.1 value we last gave `Cursor.configure` (undefined: never configured by us). */
	private appliedHttp1: boolean | undefined;
	readonly pool: SessionAgentPool;
	private readonly sockets = new SdkSockets();
	/** Cursor's own tool calls replayed as Pi tool cards (src/replay/). */
	readonly replay: CursorReplay;
	/** User + trusted project `cursor-sdk.json`, re-read at each send (subagents, safety controls, store root). */
	readonly local: LocalAgentConfig;
	/** The persisted session's store under the chosen state root. */
	readonly stores = new SessionStoreScope();
	/** Usage ledger, SDK event capture, learned context windows, lineage and capability notices. */
	readonly accounting: Accounting;
	/** Abort signals of compaction and tree summaries: Pi's only public marker of those requests. */
	private readonly summarySignals = new WeakSet<AbortSignal>();
	/** The SDK's MCP timeouts as installed at load (src/sdk/mcp-timeouts.ts); a bridge deadline never exceeds `toolMs`. */
	mcpTimeouts: McpTimeoutInstall | undefined;
	private mcpTimeoutNoticesShown = false;

	constructor(
		readonly pi: ExtensionAPI,
		readonly sdk: CursorSdk = cursorSdk,
		readonly agentDir: string = getAgentDir(),
	) {
		// Windows learned from earlier runs are read once, here: startup never probes a model.
		this.catalog = new CatalogState(FALLBACK_CONTEXT_WINDOWS, readLearnedWindows(learnedWindowsPath(agentDir)));
		this.accounting = new Accounting({
			sdk,
			learnedWindowsPath: learnedWindowsPath(agentDir),
			appendEntry: (customType, data) => this.pi.appendEntry(customType, data),
			notify: (message, type) => this.notify(message, type),
			report: (message, type) => this.report(message, type),
			catalogItems: () => this.catalog.catalogItems,
			cwd: () => this.cwd,
			stateRoot: () => {
				const root = this.stores.checkRoot(chooseStoreRoot(process.env, this.userConfig.local?.storeRoot));
				return root.ok ? root.root : undefined;
			},
		});
		this.configFile = new CursorSdkConfigFile(userConfigPath(agentDir));
		this.cache = new CatalogCache(agentDir);
		this.pool = new SessionAgentPool(this.accounting.wrapSdk(sdk), {
			appendEntry: (customType, data) => this.pi.appendEntry(customType, data),
			notify: (message) => this.notify(message, "info"),
		});
		this.local = new LocalAgentConfig(this.configFile, (message) => this.notify(message, "warning"));
		this.replay = new CursorReplay(pi);
	}

	register(): void {
		// The SDK's own native lookup walks up from Pi's argv[1]/execPath and misses our node_modules.
		applyNativePaths(process.env, locateNativePaths());
		// Before any agent exists: the SDK's MCP client arms its request timers when it connects.
		this.mcpTimeouts = installMcpTimeouts(process.env);
		if (readBooleanEnv(process.env, ENV_ASK_QUESTION, false) && this.bridgeSettings().enabled) {
			registerAskQuestion(this.pi);
		}
		registerFlags(this.pi);
		registerCommands(this);
		this.pi.registerProvider(
			buildProvider({
				sdk: this.sdk,
				catalog: this.catalog,
				cache: this.cache,
				turns: this.turnRuntime(),
				sockets: this.sockets,
				onRefreshError: (message) => this.notify(message, "warning"),
			}),
		);
		this.pi.on("project_trust", (event) => {
			this.local.onTrustEvent(event.cwd); // observed only: the decision stays Pi's
			return { trusted: "undecided" };
		});
		this.pi.on("session_start", (_event, ctx) => {
			this.bind(ctx);
			if (!this.mcpTimeoutNoticesShown) {
				this.mcpTimeoutNoticesShown = true;
				for (const notice of mcpTimeoutNotices(this.mcpTimeouts)) this.notify(notice, "warning");
			}
			this.session = restoreSessionState(ctx.sessionManager.getBranch());
			this.cwd = ctx.cwd;
			this.mode = ctx.mode;
			// Here, not in the factory: every extension's tools are registered by now, so names others own are kept.
			this.replay.register(ctx.cwd);
			this.userConfig = this.local.start(ctx.cwd, {
				piTrusted: ctx.isProjectTrusted?.() === true,
				savedTrust: savedProjectTrust(this.agentDir, ctx.cwd),
				cliApprove: approveOverride(process.argv) === true,
				hasProtectedResources: hasTrustRequiringProjectResources(ctx.cwd),
			}).user;
			const flagError = this.flagError();
			if (flagError && ctx.hasUI) this.notify(flagError, "error");
			this.activeModel = ctx.model as Model<string> | undefined;
			this.warnUnsupportedFastFlag();
			this.refreshStatus();
			const sessionManager = ctx.sessionManager;
			this.accounting.start(sessionManager);
			const persisted = sessionManager.getSessionFile() !== undefined;
			const localResume = readBooleanEnv(process.env, "PI_CURSOR_LOCAL_RESUME", true);
			const sessionFile = sessionManager.getSessionFile();
			this.pool.bind({
				storeDir: this.stores.start(
					sessionFile ? { sessionId: sessionManager.getSessionId(), sessionFile } : undefined,
					chooseStoreRoot(process.env, this.userConfig.local?.storeRoot),
					() => this.sdk.defaultStateRoot(ctx.cwd),
				),
				resume:
					persisted && localResume
						? resumeHandleOf(sessionManager.getBranch(), sessionManager.getEntries())
						: undefined,
			});
		});
		this.pi.on("before_agent_start", (event, ctx) => {
			// Only for Cursor turns: switching to another provider gets Pi's full context block back next message.
			if (ctx.model?.provider !== PROVIDER_ID) return;
			this.offerSkills(event.systemPromptOptions.skills ?? []);
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
		// A bridged call Cursor stopped waiting for (its deadline passed, or Cursor cancelled it) before Pi got to run it
		// (e.g. another extension's hook held it): Pi must not run it now. Pi has no public way to stop a tool that is
		// already running, so one that passes its deadline while running goes on and its late result is discarded.
		this.pi.on("tool_call", (event) => {
			if (!isBridgeToolCallId(event.toolCallId) || this.pool.liveRun?.awaitsBridgeResult(event.toolCallId)) return;
			return {
				block: true,
				reason:
					"Cursor stopped waiting for this call (its deadline, PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS, passed or Cursor cancelled it), so Pi did not run it.",
			};
		});
		// The agent loop ended while a run still waited for Pi's tool results (an abort during tool execution): give the
		// run up, so Cursor stops working on an answer nobody will read.
		this.pi.on("agent_end", () => {
			const live = this.pool.liveRun;
			if (live && !live.attached) this.pool.keepLive(undefined);
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
			await this.accounting.shutdown();
			await this.pool.shutdown();
			this.stores.release();
			this.sockets.release();
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

	/** Output the user asked for (command results): Pi's notification in UI modes, stderr (never stdout) otherwise. */
	readonly report: Notify = (message, type = "info") => {
		if (this.ui) this.ui.notify(message, type);
		else console.error(message);
	};

	/** The Pi tool bridge's state for /cursor-doctor. */
	bridgeDoctorFact(): { status: "ok" | "warn"; detail: string; fix?: string } {
		const settings = this.bridgeSettings();
		if (!settings.enabled) return { status: "ok", detail: "off (PI_CURSOR_PI_TOOL_BRIDGE=0)" };
		const exposed = this.bridgeSurface(settings).tools.length;
		const running = this.pool.liveRun?.bridge ? ", serving the current run" : "";
		if (settings.problems.length > 0) {
			return { status: "warn", detail: settings.problems.join(" "), fix: "Fix the named variable or unset it." };
		}
		return { status: "ok", detail: `${exposed} Pi tool(s) bridged as pi__<name>${running}; /cursor-tools lists them` };
	}

	/** Pi's loaded skills, offered to Cursor through `cursor_activate_skill` (registered once skills exist). */
	private skills: readonly SkillInfo[] = [];
	private skillToolRegistered = false;

	private offerSkills(skills: readonly SkillInfo[]): void {
		this.skills = skills;
		if (this.skillToolRegistered || skills.length === 0 || !this.bridgeSettings().enabled) return;
		this.skillToolRegistered = true;
		registerActivateSkill(this.pi, () => this.skills);
	}

	/** The `/cursor-tools` report. */
	toolsReport(): string {
		const settings = this.bridgeSettings();
		const sources = readCursorEnv(process.env).settingSources;
		return renderToolsReport({
			settings,
			surface: this.bridgeSurface(settings),
			settingSources: sources.ok ? sources.sources.join(",") || "none" : sources.error,
			running: this.pool.liveRun?.bridge !== undefined,
		});
	}

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
				autoReview: this.pi.getFlag(FLAG_AUTO_REVIEW),
				sandbox: this.pi.getFlag(FLAG_SANDBOX),
			},
			session: this.session,
			config: this.userConfig,
			projectConfig: this.local.current.project,
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

	private prepare(
		model: Model<string>,
		options: SimpleStreamOptions | undefined,
		continuing = false,
	): TurnSetup | CursorError {
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
		// Edits to cursor-sdk.json apply from the next send (a continued run keeps its agent and store).
		if (!continuing) this.userConfig = this.local.reload().user;
		// Summaries use a temporary store; every other send of a persisted session needs a safe state root.
		if (!continuing && !this.isSummary(options?.signal)) {
			const store = this.stores.forTurn(process.env, this.userConfig.local?.storeRoot);
			if (!store.ok) return { kind: "configuration", message: store.message };
			if (store.moved) this.pool.bind({ storeDir: store.storeDir, resume: undefined });
		}
		const settings = resolveEffectiveSettings(this.settingsInput(model));
		const fast = settings.fast.kind === "value" ? settings.fast.fast : undefined;
		const mode = settings.mode.ok ? settings.mode.mode : "agent";
		return {
			apiKey,
			baseModelId: row.meta.baseId,
			selection: buildModelSelection(row.meta, row.item, options?.reasoning, fast),
			mode,
			timeouts: { firstResponseMs: env.firstResponseTimeoutMs, idleMs: env.streamIdleTimeoutMs },
			liveRunIdleMs: env.liveRunIdleDisposeMs,
		};
	}

	/** The bridge settings, with the SDK's effective MCP tool timeout as the upper bound of a bridged call. */
	bridgeSettings(): BridgeSettings {
		return readBridgeSettings(process.env, this.mcpTimeouts?.settings.toolMs ?? SDK_MCP_REQUEST_TIMEOUT_MS);
	}

	/** The active Pi tools as Cursor would see them through the bridge (every registered tool with its verdict). */
	bridgeSurface(settings = this.bridgeSettings()): BridgeSurface {
		return buildBridgeSurface(this.pi.getActiveTools(), this.pi.getAllTools(), {
			replayNames: [NEUTRAL_TOOL],
			exposeBuiltins: settings.exposeBuiltins,
		});
	}

	/** What this turn bridges to Cursor, or undefined (bridge off, or no Pi tool to bridge). */
	private bridgePlan(): { surface: BridgeSurface; settings: BridgeSettings } | undefined {
		const settings = this.bridgeSettings();
		if (!settings.enabled) return undefined;
		const surface = this.bridgeSurface(settings);
		return surface.tools.length > 0 ? { surface, settings } : undefined;
	}

	/** Compaction and tree summaries: recognised by their abort signal, Pi's only public marker of them. */
	private isSummary(signal: AbortSignal | undefined): boolean {
		return signal !== undefined && this.summarySignals.has(signal);
	}

	private turnRuntime(): TurnRuntime {
		return {
			prepare: (model, options, continuing) => {
				const setup = this.prepare(model, options, continuing);
				this.accounting.noteTurn(setup);
				return setup;
			},
			observer: this.accounting.observer,
			liveRun: (signal) => (this.isSummary(signal) ? undefined : this.pool.liveRun),
			keepLive: (run) => this.pool.keepLive(run),
			dropLive: (run) => this.pool.dropLive(run),
			toolDisplay: (context, setup) => ({
				replay: this.replay,
				print: this.mode === "print",
				declared: declaredTools(context.messages),
				context: { cwd: this.cwd, secrets: [setup.apiKey], taskWording: readTaskWording(process.env) },
				trace: (line) => process.stderr.write(`${line}\n`),
			}),
			acquire: (setup, messages, watch) => {
				this.applyTransport();
				const env = readCursorEnv(process.env);
				const request = {
					setup,
					messages,
					cwd: this.cwd,
					settingSources: env.settingSources.ok ? env.settingSources.sources : (["all"] as const),
					transport: `http1=${this.appliedHttp1 ?? "default"}`,
					...this.local.subagents(catalogSubagentResolver(this.catalog)),
					safety: safetyAgentOptions(
						resolveSafety({ ...this.settingsInput(), user: this.userConfig, project: this.local.current.project }),
					),
				};
				if (this.isSummary(watch.piSignal)) return this.pool.acquireForSummary(request, watch);
				const bridge = this.bridgePlan();
				const skillTool = bridge?.surface.tools.find((tool) => tool.piName === ACTIVATE_SKILL_TOOL)?.mcpName;
				const tools = bridge && {
					fingerprint: bridge.surface.fingerprint,
					manifest: bridge.settings.manifest ? buildToolManifestText(bridge.surface) : "",
					...(skillTool ? { skillTool } : {}),
				};
				const leased = this.pool.acquire({ ...request, ...(tools ? { tools } : {}) }, watch);
				if (!bridge) return leased;
				return leased.then((lease) => ({
					...lease,
					bridge: (handler) =>
						startBridgeServer({
							surface: bridge.surface,
							handler,
							callTimeoutMs: bridge.settings.callTimeoutMs,
							debug: bridge.settings.debug,
						}),
				}));
			},
		};
	}
}
