// One instance per Pi session runtime (`ExtensionAPI`): builds the subsystems, wires them to Pi's events, and hands
// each command module and the provider only what it uses. Pi may host several sessions in one process; each gets
// its own instance, so catalogs, agents and settings are never shared (process-wide effects: src/process/).

import { hostname } from "node:os";
import type { Model } from "@earendil-works/pi-ai";
import { type ExtensionAPI, type ExtensionContext, getAgentDir } from "@earendil-works/pi-coding-agent";
import { CursorCredentials } from "./auth/credentials.ts";
import { registerAskQuestion } from "./bridge/ask-question.ts";
import { guardBridgedCalls } from "./bridge/call-guard.ts";
import { BridgeView } from "./bridge/view.ts";
import { CatalogCache } from "./catalog/cache.ts";
import { FALLBACK_CONTEXT_WINDOWS } from "./catalog/context-windows.generated.ts";
import { learnedWindowsPath, readLearnedWindows } from "./catalog/learned-windows.ts";
import { CatalogState, PROVIDER_ID } from "./catalog/state.ts";
import { fleetOf, type SessionFleet } from "./fleet/register.ts";
import { installProcessEffects } from "./process/effects.ts";
import { dropForCursorTurn } from "./prompt/context-files.ts";
import { buildProvider } from "./provider.ts";
import { CursorReplay } from "./replay/replay.ts";
import { CloudRuntime, type CloudSessionView } from "./runtime/cloud.ts";
import { LocalRuntime } from "./runtime/local.ts";
import { SessionPrewarm } from "./runtime/prewarm.ts";
import {
	type CloudSdk,
	type CursorAuthSdk,
	type CursorSdk,
	cloudSdk,
	cursorAuthSdk,
	cursorSdk,
} from "./sdk/cursor-sdk.ts";
import { SdkSockets } from "./sdk/sdk-sockets.ts";
import { restoreLostModel } from "./session/lost-model.ts";
import { SessionAgentPool } from "./session/pool.ts";
import { sessionResume } from "./session/resume.ts";
import { SessionStoreScope } from "./session/store-scope.ts";
import { SessionTurnEntry } from "./session/turn-entry.ts";
import { CursorSdkConfigFile, userConfigPath } from "./settings/config-file.ts";
import { STATUS_KEY } from "./settings/effective.ts";
import { readEnv, readEnvVar } from "./settings/env.ts";
import { LocalAgentConfig } from "./settings/local-config.ts";
import { sessionTrustFacts } from "./settings/project-config.ts";
import { sessionSafety } from "./settings/safety.ts";
import { SessionSettings } from "./settings/session-settings.ts";
import { flagError } from "./turn/setup.ts";
import { registerExtensionCommands } from "./ui/extension-commands.ts";
import { readCloudFlags, readFlags, registerFlags } from "./ui/flags.ts";
import { Notifier } from "./ui/notifier.ts";
import { Accounting } from "./usage/accounting.ts";

export class CursorExtension {
	readonly env = process.env;
	readonly catalog: CatalogState;
	readonly configFile: CursorSdkConfigFile;
	readonly local: LocalAgentConfig;
	readonly settings: SessionSettings;
	readonly pool: SessionAgentPool;
	private readonly sockets = new SdkSockets();
	readonly replay: CursorReplay;
	readonly stores = new SessionStoreScope();
	readonly accounting: Accounting;
	readonly bridge: BridgeView;
	private readonly runtime: LocalRuntime;
	readonly cloud: CloudRuntime;
	readonly fleet: SessionFleet;
	private readonly entry: SessionTurnEntry;
	/** The first send prepared in the background once Pi has started (src/runtime/prewarm.ts). */
	private readonly prewarm: SessionPrewarm;
	/** Installed when the extension loads, before any agent exists (src/process/effects.ts). */
	private readonly effects = installProcessEffects(this.env);
	/** For `before_agent_start`, which runs before a turn reads the env: a process's env is fixed, so read once. */
	private readonly hookEnv = readEnv(this.env);
	/** The workspace, Pi's mode (print mode keeps stdout for the answer) and, once started, the session's manager. */
	private session: CloudSessionView = { cwd: process.cwd(), mode: "tui", manager: undefined };
	private readonly notifier = new Notifier();
	readonly notify = this.notifier.notify;
	readonly report = this.notifier.report;
	readonly refreshStatus = () => this.notifier.setStatus(STATUS_KEY, this.settings.status());
	private readonly storeRootChoice = () => this.local.storeRoot(readEnv(this.env));
	/** The one owner of Cursor credentials: the provider's auth and what is known about the key in use. */
	readonly credentials: CursorCredentials;

	constructor(
		readonly pi: ExtensionAPI,
		readonly sdk: CursorSdk = cursorSdk,
		readonly agentDir: string = getAgentDir(),
		readonly cloudApi: CloudSdk = cloudSdk,
		authSdk: CursorAuthSdk = cursorAuthSdk,
	) {
		this.credentials = new CursorCredentials({ sdk: authSdk, host: hostname(), env: this.env, notify: this.notify });
		// Windows learned from earlier runs are read once, here: startup never probes a model.
		this.catalog = new CatalogState(FALLBACK_CONTEXT_WINDOWS, readLearnedWindows(learnedWindowsPath(agentDir)));
		this.configFile = new CursorSdkConfigFile(userConfigPath(agentDir));
		this.local = new LocalAgentConfig(this.configFile, (message) => this.notify(message, "warning"));
		const appendEntry = (customType: string, data: unknown) => this.pi.appendEntry(customType, data);
		const { catalog, local, env } = this;
		this.settings = new SessionSettings({ catalog, local, flags: () => readFlags(pi), appendEntry, env });
		this.accounting = new Accounting({
			learnedWindowsPath: learnedWindowsPath(agentDir),
			appendEntry,
			notify: this.notify,
			report: this.report,
			catalogItems: () => this.catalog.catalogItems,
			readWindow: (agentId) => this.pool.checkpointMaxTokens(agentId),
			stateRoot: () => {
				const root = this.stores.checkRoot(this.storeRootChoice());
				return root.ok ? root.root : undefined;
			},
		});
		this.pool = new SessionAgentPool(sdk, {
			appendEntry,
			notify: (message) => this.notify(message, "info"),
		});
		this.replay = new CursorReplay(pi);
		this.bridge = new BridgeView(pi, this.env, () => this.effects.mcpTimeouts.settings.toolMs, {
			safety: () => sessionSafety(this.settings.input()),
			notify: (message) => this.notify(message, "warning"),
		});
		const runtimes = { pool: this.pool, replay: this.replay, session: () => this.session };
		const { notify, report } = this;
		this.fleet = fleetOf(pi, { sdk: cloudApi, notify, report, cloud: () => this.cloud, entry: () => this.entry });
		this.runtime = new LocalRuntime({ ...runtimes, bridge: this.bridge, sdk, observer: this.accounting.observer });
		this.cloud = new CloudRuntime({
			...runtimes,
			env: this.env,
			sdk: cloudApi,
			flags: () => readCloudFlags(pi),
			local: this.local,
			configFile: this.configFile,
			confirm: this.notifier.confirm,
			select: this.notifier.select,
			notify: this.notify,
			appendEntry,
			fleet: this.fleet.fleet,
		});
		this.entry = new SessionTurnEntry({
			catalog: this.catalog,
			settings: this.settings,
			local: this.local,
			stores: this.stores,
			env: this.env,
			runtime: this.runtime,
			cloud: this.cloud,
			storeMoved: (storeDir) => this.pool.bind({ storeDir, resume: undefined }),
			resolved: (setup) => this.accounting.noteTurn(setup),
			checkKey: (apiKey) => this.credentials.checkTurn(apiKey),
		});
		const { sockets } = this;
		this.prewarm = new SessionPrewarm({ env, entry: this.entry, runtime: this.runtime, sockets });
	}

	register(): void {
		if (readEnvVar(this.env, "askQuestion") && this.bridge.settings().enabled) registerAskQuestion(this.pi);
		registerFlags(this.pi);
		this.fleet.registerFlags();
		registerExtensionCommands(this);
		this.pi.registerProvider(
			buildProvider({
				sdk: this.sdk,
				catalog: this.catalog,
				cache: new CatalogCache(this.agentDir),
				turns: this.entry,
				sockets: this.sockets,
				credentials: this.credentials,
			}),
		);
		this.registerEvents();
		this.fleet.register();
	}

	private registerEvents(): void {
		const { pi } = this;
		pi.on("project_trust", (event) => {
			this.local.onTrustEvent(event.cwd); // observed only: the decision stays Pi's
			return { trusted: "undecided" };
		});
		pi.on("session_start", async (_event, ctx) => {
			this.start(ctx);
			await restoreLostModel({ pi: this.pi, agentDir: this.agentDir, notify: this.notify }, ctx);
		});
		pi.on("before_agent_start", (event, ctx) => {
			// Only for Cursor turns: switching to another provider gets Pi's full context block back next message.
			if (ctx.model?.provider !== PROVIDER_ID) return;
			this.bridge.offerSkills(event.systemPromptOptions.skills ?? [], this.hookEnv);
			dropForCursorTurn(event.systemPromptOptions.contextFiles ?? [], this.agentDir, this.hookEnv);
		});
		pi.on("session_before_compact", (event) => this.entry.markSummary(event.signal));
		pi.on("session_before_tree", (event) => {
			this.entry.markSummary(event.signal);
			this.pool.invalidate();
		});
		// The loop ended while a run waited for Pi's tool results (an abort mid-tool): nobody will read its answer.
		pi.on("agent_end", () => {
			if (this.pool.liveRun?.attached === false) this.pool.keepLive(undefined);
		});
		guardBridgedCalls(pi, () => this.pool.liveRun);
		pi.on("session_compact", () => this.pool.invalidate());
		pi.on("session_tree", () => this.pool.invalidate());
		pi.on("model_select", (event, ctx) => {
			this.notifier.bind(ctx);
			this.settings.activeModel = event.model as Model<string>;
			this.refreshStatus();
			this.prewarm.request(ctx, event.model as Model<string>);
		});
		pi.on("session_shutdown", async () => {
			this.prewarm.stop();
			await this.accounting.shutdown();
			this.pool.shutdown();
			this.stores.release();
			this.sockets.release();
			this.runtime.shutdown();
		});
	}

	private start(ctx: ExtensionContext): void {
		this.notifier.bind(ctx);
		for (const notice of this.effects.takeNotices()) this.notify(notice, "warning");
		const { sessionManager } = ctx;
		this.settings.restore(sessionManager.getBranch());
		this.session = { cwd: ctx.cwd, mode: ctx.mode, manager: sessionManager };
		// Here, not in the factory: every extension's tools are registered by now, so names others own are kept.
		this.replay.register(ctx.cwd);
		this.local.start(ctx.cwd, sessionTrustFacts(ctx, this.agentDir));
		this.settings.activeModel = ctx.model as Model<string> | undefined;
		const invalidFlag = flagError(this.settings.input());
		if (invalidFlag && ctx.hasUI) this.notify(invalidFlag, "error");
		const fastNotice = this.settings.unsupportedFastFlag();
		if (fastNotice) this.notify(fastNotice, "warning");
		this.refreshStatus();
		this.accounting.start(sessionManager);
		const sessionFile = sessionManager.getSessionFile();
		this.pool.bind({
			storeDir: this.stores.start(
				sessionFile ? { sessionId: sessionManager.getSessionId(), sessionFile } : undefined,
				this.storeRootChoice(),
				() => this.sdk.defaultStateRoot(ctx.cwd),
			),
			...sessionResume(sessionManager, readEnvVar(this.env, "localResume")),
		});
		this.prewarm.request(ctx);
	}
}
