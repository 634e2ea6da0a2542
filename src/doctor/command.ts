// `/cursor-doctor`: why Cursor does (not) work here, one line per check with a fix.
import { type ExtensionCommandContext, VERSION } from "@earendil-works/pi-coding-agent";
import { CatalogCache } from "../catalog/cache.ts";
import { FALLBACK_CATALOG_CAPTURED_ON } from "../catalog/fallback-models.generated.ts";
import type { CursorExtension } from "../extension.ts";
import { chooseStoreRoot, describeChoice } from "../session/store-root.ts";
import { resolveHttp1 } from "../settings/effective.ts";
import { readCursorEnv } from "../settings/env.ts";
import { renderDoctor, runChecks } from "./checks.ts";
import { gatherDoctorFacts } from "./gather.ts";

export async function doctorCommand(ext: CursorExtension, ctx: ExtensionCommandContext): Promise<void> {
	const http = resolveHttp1(ext.settingsInput());
	const sources = readCursorEnv(process.env).settingSources;
	const cache = new CatalogCache(ext.agentDir);
	const facts = await gatherDoctorFacts({
		env: process.env,
		auth: async () => {
			const auth = await ctx.modelRegistry.getProviderAuth("cursor");
			return { apiKey: auth?.auth.apiKey || undefined, source: auth?.source };
		},
		me: (apiKey) => ext.sdk.me(apiKey),
		piVersion: VERSION,
		transport: { useHttp1: http.useHttp1, source: http.source },
		catalog: { source: ext.catalog.source, rows: ext.catalog.models.length, capturedOn: FALLBACK_CATALOG_CAPTURED_ON },
		cachedAt: (apiKey) => cache.read(apiKey)?.fetchedAt,
		settingSources: sources.ok
			? { ok: true, sources: [...sources.sources], isDefault: sources.isDefault }
			: { ok: false, error: sources.error },
		storeRoot: () => {
			const choice = chooseStoreRoot(process.env, ext.userConfig.local?.storeRoot);
			const label = describeChoice(choice);
			const root = ext.stores.checkRoot(choice);
			return root.ok ? { ok: true, path: root.root, label } : { ok: false, label, message: root.message };
		},
		bridge: ext.bridgeDoctorFact(),
		lastError: ext.accounting.ledger.lastError,
		now: Date.now(),
	});
	const results = runChecks(facts);
	// A report the user asked for, not an error of the command (Pi would title it "Error:"); a script running
	// `pi -p /cursor-doctor` gets a failing exit code instead, the way Pi's own commands report failures.
	ext.report(renderDoctor(results), "info");
	if (results.some((r) => r.status === "fail") && (ctx.mode === "print" || ctx.mode === "json")) process.exitCode = 1;
}
