// Every slash command the extension registers, wired to the parts of the per-session instance (src/extension.ts)
// that each one uses.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { registerAuthCommands } from "../auth/command.ts";
import type { CursorCredentials } from "../auth/credentials.ts";
import type { BridgeView } from "../bridge/view.ts";
import type { CatalogState } from "../catalog/state.ts";
import type { SessionFleet } from "../fleet/register.ts";
import { registerPlanApproval } from "../plan/approval.ts";
import type { CloudRuntime } from "../runtime/cloud.ts";
import type { CloudSdk, CursorSdk } from "../sdk/cursor-sdk.ts";
import type { SessionAgentPool } from "../session/pool.ts";
import type { SessionStoreScope } from "../session/store-scope.ts";
import type { CursorSdkConfigFile } from "../settings/config-file.ts";
import type { LocalAgentConfig } from "../settings/local-config.ts";
import type { SessionSettings } from "../settings/session-settings.ts";
import type { Accounting } from "../usage/accounting.ts";
import { registerCloudCommands } from "./cloud-commands.ts";
import { registerCommands } from "./commands.ts";
import type { Notifier } from "./notifier.ts";

/** What the commands use of the extension instance. */
export interface CommandHost {
	readonly pi: ExtensionAPI;
	readonly env: NodeJS.ProcessEnv;
	readonly agentDir: string;
	readonly sdk: CursorSdk;
	readonly cloudApi: CloudSdk;
	readonly settings: SessionSettings;
	readonly configFile: CursorSdkConfigFile;
	readonly local: LocalAgentConfig;
	readonly catalog: CatalogState;
	readonly pool: SessionAgentPool;
	readonly stores: SessionStoreScope;
	readonly accounting: Accounting;
	readonly bridge: BridgeView;
	readonly cloud: CloudRuntime;
	readonly fleet: SessionFleet;
	readonly credentials: CursorCredentials;
	readonly notify: Notifier["notify"];
	readonly report: Notifier["report"];
	readonly refreshStatus: () => void;
}

export function registerExtensionCommands(ext: CommandHost): void {
	const { notify, report, refreshStatus } = ext;
	const bridgeRunning = () => ext.pool.liveRun?.bridge !== undefined;
	registerPlanApproval(ext.pi, { settings: ext.settings, refreshStatus, notify, report });
	registerAuthCommands(ext.pi, notify);
	const settings = { settings: ext.settings, configFile: ext.configFile, local: ext.local, notify, refreshStatus };
	const journal = () => ext.cloud.journal();
	registerCloudCommands(ext.pi, { ...settings, sdk: ext.cloudApi, journal, report, fleet: ext.fleet });
	registerCommands(ext.pi, {
		settings,
		catalog: ext.catalog,
		localAgent: { local: ext.local, pool: ext.pool, stores: ext.stores, env: ext.env, notify, refreshStatus },
		usage: { ledger: ext.accounting.ledger, sdk: ext.sdk, report },
		doctor: {
			env: ext.env,
			agentDir: ext.agentDir,
			sdk: ext.sdk,
			catalog: ext.catalog,
			settings: () => ext.settings.input(),
			stores: ext.stores,
			local: ext.local,
			bridge: () => ext.bridge.doctorFact(bridgeRunning()),
			cloudTarget: () => ext.cloud.doctorFact(),
			lastError: () => ext.accounting.ledger.lastError,
			credential: (apiKey, source) => ext.credentials.fact(apiKey, source),
			report,
		},
		toolsReport: () => ext.bridge.report(bridgeRunning()),
		notify,
		report,
	});
}
