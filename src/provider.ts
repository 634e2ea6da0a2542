import type {
	Model,
	Provider,
	RefreshModelsContext,
	SimpleStreamOptions,
	TranscriptContext,
} from "@earendil-works/pi-ai";
import type { CatalogCache } from "./catalog/cache.ts";
import { discoverModels } from "./catalog/discovery.ts";
import { type CatalogState, CURSOR_BASE_URL, PROVIDER_ID } from "./catalog/state.ts";
import type { TurnEntry } from "./runtime/types.ts";
import type { CursorSdk } from "./sdk/cursor-sdk.ts";
import type { SdkSockets } from "./sdk/sdk-sockets.ts";
import { ENV_VARS, readEnv, readEnvVar } from "./settings/env.ts";
import { streamCursorTurn } from "./turn/stream.ts";

export interface ProviderDeps {
	sdk: CursorSdk;
	catalog: CatalogState;
	cache: CatalogCache;
	turns: TurnEntry;
	/** SDK work runs inside `sockets.run` so that its leftover sockets cannot hold Pi's exit. */
	sockets: SdkSockets;
}

const API_KEY = ENV_VARS.apiKey.name;

/** A key as given, trimmed; blanks only count as no key. */
const usableKey = (key: string | undefined): string | undefined => key?.trim() || undefined;

/** The key Pi resolved for a refresh: a stored/runtime/models.json credential, else the ambient env key. */
function refreshKey(context: RefreshModelsContext): string | undefined {
	const credential = context.credential?.type === "api_key" ? context.credential : undefined;
	return usableKey(credential?.key) ?? usableKey(credential?.env?.[API_KEY]) ?? readEnvVar(process.env, "apiKey");
}

/** The native Pi provider for Cursor: API-key auth, the cached/fallback catalog, live refresh and the stream. */
export function buildProvider(deps: ProviderDeps): Provider<string> {
	const { catalog, cache } = deps;
	const streamSimple = (model: Model<string>, context: TranscriptContext, options?: SimpleStreamOptions) =>
		deps.sockets.run(() => streamCursorTurn(deps.turns, model, context, options));

	return {
		id: PROVIDER_ID,
		name: "Cursor",
		baseUrl: CURSOR_BASE_URL,
		auth: {
			apiKey: {
				name: "Cursor",
				async login(interaction) {
					const key = (await interaction.prompt({ type: "secret", message: "Cursor API key" })).trim();
					if (!key) throw new Error("No Cursor API key entered.");
					return { type: "api_key", key };
				},
				async resolve({ ctx, credential }) {
					const stored = usableKey(credential?.key) ?? usableKey(credential?.env?.[API_KEY]);
					if (stored) return { auth: { apiKey: stored }, source: "stored API key" };
					const ambient = usableKey(await ctx.env(API_KEY));
					if (ambient) return { auth: { apiKey: ambient }, source: API_KEY };
					// Logged out: keep the models visible (the turn explains how to log in) unless the user opted out.
					const hide = readEnvVar(process.env, "hideModelsWhenLoggedOut");
					return hide ? undefined : { auth: {}, source: "logged out" };
				},
			},
		},
		getModels: () => catalog.models,
		async refreshModels(context) {
			const env = readEnv(process.env);
			const key = refreshKey(context);
			const cached = key && !env.disableModelCache ? cache.read(key) : undefined;
			if (!context.allowNetwork) {
				// Startup and auth changes: cache-only, never the network.
				if (cached) await context.publish({ update: () => catalog.replace(cached.items, "cache", cached.built) });
				return;
			}
			if (!key) return;
			if (!context.force && cached && Date.now() - cached.fetchedAt < env.modelCacheTtlMs) return;
			// A failure is Pi's to report: /cursor-refresh-models and /login say so, Pi's startup refresh stays quiet
			// (offline is not worth a warning at every start).
			const items = await deps.sockets.run(() =>
				discoverModels(deps.sdk, key, context.signal, env.modelRefreshTimeoutMs),
			);
			if (context.signal.aborted) return;
			const fetchedAt = Date.now();
			// `update` must stay synchronous; the refresh (and so /cursor-refresh-models) resolves only once the cache is
			// on disk, so quitting Pi right after a refresh cannot lose it.
			let saved: Promise<void> | undefined;
			await context.publish({
				update: () => {
					catalog.replace(items, "live");
					if (!env.disableModelCache) {
						saved = cache.write(key, { fetchedAt, items, built: catalog.storable }).catch(() => {});
					}
				},
			});
			await saved;
		},
		stream: (model, context, options) => streamSimple(model, context, options as SimpleStreamOptions | undefined),
		streamSimple,
	};
}
