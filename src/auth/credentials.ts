// The one owner of Cursor credentials in the extension: the provider's `auth` (pasted key, account sign-in, env var),
// what is known about the key in use (kind, email, expiry) for notices and /cursor-doctor, and the sign-out notice.
// Pi keeps the secret (its auth.json); this instance only remembers, per key fingerprint, what the key is.

import { createHash } from "node:crypto";
import type { ApiKeyAuth, OAuthAuth, OAuthCredential, ProviderAuth } from "@earendil-works/pi-ai";
import type { CursorAuthSdk } from "../sdk/cursor-sdk.ts";
import { ENV_VARS, readEnvVar } from "../settings/env.ts";
import {
	type AccountKey,
	describeAccount,
	expiredMessage,
	expiryNotice,
	fromCredential,
	isExpired,
	logoutMessage,
} from "./account.ts";
import { type LoginDeps, signInWithCursor } from "./login.ts";

const API_KEY = ENV_VARS.apiKey.name;

/** A key as given, trimmed; blanks only count as no key. */
export const usableKey = (key: string | undefined): string | undefined => key?.trim() || undefined;
export const ACCOUNT_LOGIN_LABEL = "Sign in with your Cursor account (browser)";

/** What /cursor-doctor says about the key in use (never the key). */
export interface CredentialFact {
	kind: "env" | "pasted" | "account" | "none" | "other";
	detail: string;
	/** Set for an account key within `NOTICE_DAYS` of expiry, or expired. */
	warning?: string;
}

function fingerprint(key: string): string {
	return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

export interface CursorCredentialsDeps {
	sdk: CursorAuthSdk;
	host: string;
	env: NodeJS.ProcessEnv;
	notify: (message: string, level: "info" | "warning") => void;
	now?: () => number;
}

export class CursorCredentials {
	private readonly accounts = new Map<string, AccountKey>();
	private readonly noticed = new Set<string>();
	/** The account sign-in Pi last handed over: a later refresh without it is a sign-out. */
	private current: AccountKey | undefined;
	private readonly now: () => number;

	constructor(private readonly deps: CursorCredentialsDeps) {
		this.now = deps.now ?? Date.now;
	}

	/** The provider's `auth`: an account sign-in (OAuth entry) and a pasted key or CURSOR_API_KEY (API-key entry). */
	providerAuth(): ProviderAuth {
		return { apiKey: this.apiKeyAuth(), oauth: this.oauthAuth() };
	}

	private apiKeyAuth(): ApiKeyAuth {
		return {
			name: "Cursor",
			async login(interaction) {
				const key = (await interaction.prompt({ type: "secret", message: "Cursor API key" })).trim();
				if (!key) throw new Error("No Cursor API key entered.");
				return { type: "api_key", key };
			},
			resolve: async ({ ctx, credential }) => {
				const stored = usableKey(credential?.key) ?? usableKey(credential?.env?.[API_KEY]);
				if (stored) return { auth: { apiKey: stored }, source: "stored API key" };
				const ambient = usableKey(await ctx.env(API_KEY));
				if (ambient) return { auth: { apiKey: ambient }, source: API_KEY };
				// Logged out: keep the models visible (the turn explains how to log in) unless the user opted out.
				const hide = readEnvVar(this.deps.env, "hideModelsWhenLoggedOut");
				return hide ? undefined : { auth: {}, source: "logged out" };
			},
		};
	}

	private oauthAuth(): OAuthAuth {
		const loginDeps: LoginDeps = { sdk: this.deps.sdk, host: this.deps.host, now: this.now };
		return {
			name: "Cursor",
			loginLabel: ACCOUNT_LOGIN_LABEL,
			login: (interaction) => signInWithCursor(loginDeps, interaction),
			// No refresh token exists: Pi asks for a refresh only once the key is (nearly) expired, and the answer is to
			// sign in again. Throwing here fails the turn before any request carries the key.
			refresh: async (credential) => {
				const account = fromCredential(credential);
				throw new Error(
					account
						? expiredMessage(account)
						: "The stored Cursor sign-in is damaged: sign in again with /login → Cursor.",
				);
			},
			toAuth: async (credential) => {
				const account = this.remember(credential);
				return account ? { apiKey: account.key } : {};
			},
		};
	}

	/** Records the account key Pi resolved (so notices, the doctor and sign-out know it). */
	remember(credential: OAuthCredential | undefined): AccountKey | undefined {
		const account = fromCredential(credential);
		if (!account) return undefined;
		this.accounts.set(fingerprint(account.key), account);
		this.current = account;
		return account;
	}

	/** The account sign-in a key came from, when Pi resolved it from one in this session. */
	accountOf(apiKey: string | undefined): AccountKey | undefined {
		return apiKey ? this.accounts.get(fingerprint(apiKey)) : undefined;
	}

	/**
	 * Before a turn sends with `apiKey`: the expired message (the turn must not run), and at most once per key and
	 * session a notice when the sign-in ends within `NOTICE_DAYS`.
	 */
	checkTurn(apiKey: string | undefined): { expired: string } | undefined {
		const account = this.accountOf(apiKey);
		if (!account) return undefined;
		const now = this.now();
		if (isExpired(account, now)) return { expired: expiredMessage(account) };
		const notice = expiryNotice(account, now);
		const id = fingerprint(account.key);
		if (notice && !this.noticed.has(id)) {
			this.noticed.add(id);
			this.deps.notify(notice, "warning");
		}
		return undefined;
	}

	/**
	 * Pi refreshes the provider after every credential change. When the account sign-in seen before is gone (Pi's
	 * /logout), say that the key itself stays valid until it expires or is revoked.
	 */
	observeStoredCredential(credential: { type: string } | undefined): void {
		const account = credential?.type === "oauth" ? fromCredential(credential as OAuthCredential) : undefined;
		if (account) {
			this.remember(credential as OAuthCredential);
			return;
		}
		const gone = this.current;
		this.current = undefined;
		// A warning: the key is still live, and Pi's own "Logged out" status line would replace an info line.
		if (gone && !isExpired(gone, this.now())) this.deps.notify(logoutMessage(gone), "warning");
	}

	/** /cursor-doctor's view of the key Pi resolved and where it came from. */
	fact(apiKey: string | undefined, source: string | undefined): CredentialFact {
		const account = this.accountOf(apiKey);
		if (account) {
			const now = this.now();
			const notice = isExpired(account, now) ? expiredMessage(account) : expiryNotice(account, now);
			return { kind: "account", detail: describeAccount(account, now), ...(notice ? { warning: notice } : {}) };
		}
		if (!apiKey) return { kind: "none", detail: "no Cursor API key is configured" };
		if (source === API_KEY) return { kind: "env", detail: `the ${API_KEY} environment variable` };
		if (source === "stored API key") return { kind: "pasted", detail: "a pasted API key (Pi's auth.json)" };
		return { kind: "other", detail: source ?? "an unknown source" };
	}
}
