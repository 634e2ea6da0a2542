import type {
	Model,
	Provider,
	RefreshModelsContext,
	SimpleStreamOptions,
	TranscriptContext,
} from "@earendil-works/pi-ai";
import { fromCredential } from "./auth/account.ts";
import { type CursorCredentials, usableKey } from "./auth/credentials.ts";
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
	/** The provider's auth (pasted key, account sign-in, env var) and what is known about the key in use. */
	credentials: CursorCredentials;
}

const API_KEY = ENV_VARS.apiKey.name;

/** The key Pi resolved for a refresh: a stored/runtime/models.json credential, else the ambient env key. */
function refreshKey(context: RefreshModelsContext): string | undefined {
	if (context.credential?.type === "oauth") return fromCredential(context.credential)?.key;
	const credential = context.credential?.type === "api_key" ? context.credential : undefined;
	return usableKey(credential?.key) ?? usableKey(credential?.env?.[API_KEY]) ?? readEnvVar(process.env, "apiKey");
}

/** The native Pi provider for Cursor: API-key and account sign-in auth, the cached/fallback catalog, live refresh and the stream. */
export function buildProvider(deps: ProviderDeps): Provider<string> {
	const { catalog, cache } = deps;
	const streamSimple = (model: Model<string>, context: TranscriptContext, options?: SimpleStreamOptions) =>
		deps.sockets.run(() => streamCursorTurn(deps.turns, model, context, options));

	return {
		id: PROVIDER_ID,
		name: "Cursor",
		baseUrl: CURSOR_BASE_URL,
		auth: deps.credentials.providerAuth(),
		getModels: () => catalog.models,
		async refreshModels(context) {
			// Pi refreshes after every login and logout: the credential seen now tells a sign-out apart.
			deps.credentials.observeStoredCredential(context.credential);
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
