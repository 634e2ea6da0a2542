// `/cursor-doctor`: why Cursor does (not) work here, one line per check with a fix.
import { type ExtensionCommandContext, VERSION } from "@earendil-works/pi-coding-agent";
import { CatalogCache } from "../catalog/cache.ts";
import { FALLBACK_CATALOG_CAPTURED_ON } from "../catalog/fallback-models.generated.ts";
import type { CatalogState } from "../catalog/state.ts";
import type { CursorSdk } from "../sdk/cursor-sdk.ts";
import { describeChoice } from "../session/store-root.ts";
import type { SessionStoreScope } from "../session/store-scope.ts";
import { type EffectiveSettingsInput, resolveHttp1, resolveRuntimeSetting } from "../settings/effective.ts";
import { type EnvRecord, readEnv } from "../settings/env.ts";
import type { LocalAgentConfig } from "../settings/local-config.ts";
import { RUNTIME_SETTING, RUNTIME_USAGE } from "../settings/runtime.ts";
import type { Notify } from "../ui/types.ts";
import { type DoctorFacts, renderDoctor, runChecks } from "./checks.ts";
import { gatherDoctorFacts } from "./gather.ts";

/** What /cursor-doctor looks at. */
export interface DoctorDeps {
	readonly env: EnvRecord;
	readonly agentDir: string;
	readonly sdk: Pick<CursorSdk, "me">;
	readonly catalog: Pick<CatalogState, "source" | "models">;
	/** The session's settings (the HTTP/1.1 transport's value and source). */
	readonly settings: () => EffectiveSettingsInput;
	readonly stores: Pick<SessionStoreScope, "checkRoot">;
	/** Where the session stores go (the user config's owner). */
	readonly local: Pick<LocalAgentConfig, "storeRoot">;
	readonly bridge: () => DoctorFacts["bridge"];
	/** What a cloud turn would run against (asked only when the runtime is cloud). */
	readonly cloudTarget: () => Promise<NonNullable<DoctorFacts["cloudTarget"]>>;
	readonly lastError: () => DoctorFacts["lastError"];
	/** Which kind of key Pi resolved (never the key). */
	readonly credential: (apiKey: string | undefined, source: string | undefined) => { detail: string; warning?: string };
	readonly report: Notify;
}

export async function doctorCommand(deps: DoctorDeps, ctx: ExtensionCommandContext): Promise<void> {
	const settings = deps.settings();
	const http = resolveHttp1(settings);
	const env = readEnv(deps.env);
	const sources = env.settingSources;
	const runtime = resolveRuntimeSetting(settings);
	const cache = new CatalogCache(deps.agentDir);
	const facts = await gatherDoctorFacts({
		env,
		auth: async () => {
			const auth = await ctx.modelRegistry.getProviderAuth("cursor");
			return { apiKey: auth?.auth.apiKey || undefined, source: auth?.source };
		},
		credential: deps.credential,
		me: (apiKey) => deps.sdk.me(apiKey),
		piVersion: VERSION,
		transport: { useHttp1: http.useHttp1, source: http.source },
		catalog: {
			source: deps.catalog.source,
			rows: deps.catalog.models.length,
			capturedOn: FALLBACK_CATALOG_CAPTURED_ON,
		},
		cachedAt: (apiKey) => cache.read(apiKey)?.fetchedAt,
		settingSources: sources.ok
			? { ok: true, sources: [...sources.sources], isDefault: sources.isDefault }
			: { ok: false, error: sources.error },
		storeRoot: () => {
			const choice = deps.local.storeRoot(env);
			const label = describeChoice(choice);
			const root = deps.stores.checkRoot(choice);
			return root.ok ? { ok: true, path: root.root, label } : { ok: false, label, message: root.message };
		},
		bridge: deps.bridge(),
		runtime: runtime.ok
			? {
					status: "ok",
					detail: `${runtime.runtime} (${runtime.source === "default" ? "the default" : `set by ${RUNTIME_SETTING[runtime.source]}`})`,
				}
			: { status: "fail", detail: runtime.error, fix: RUNTIME_USAGE },
		cloudTarget: runtime.ok && runtime.runtime === "cloud" ? await deps.cloudTarget() : undefined,
		lastError: deps.lastError(),
		now: Date.now(),
	});
	const results = runChecks(facts);
	// A report the user asked for, not an error of the command (Pi would title it "Error:"); a script running
	// `pi -p /cursor-doctor` gets a failing exit code instead, the way Pi's own commands report failures.
	deps.report(renderDoctor(results), "info");
	if (results.some((r) => r.status === "fail") && (ctx.mode === "print" || ctx.mode === "json")) process.exitCode = 1;
}
