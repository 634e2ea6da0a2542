// `/login` → Cursor → "Sign in with your Cursor account (browser)": the SDK's browser sign-in with `store: null`, so
// the minted key is returned to Pi (which keeps it in its auth.json) and written nowhere else. An SDK login already on
// this machine (~/.cursor/sdk/auth.json) is offered as the source instead; it is read, never written.

import type { OAuthCredential, ProviderAuthInteraction } from "@earendil-works/pi-ai";
import type { CursorAuthSdk, SdkStoredLogin } from "../sdk/cursor-sdk.ts";
import { scrubText } from "../sdk/errors.ts";
import { type AccountKey, describeAccount, isExpired, keyNameFor, NEVER_EXPIRES, toCredential } from "./account.ts";

export interface LoginDeps {
	sdk: CursorAuthSdk;
	host: string;
	now: () => number;
}

/** Pi's TUI treats this message as "the user backed out" (it reopens the menu instead of showing an error). */
const CANCELLED = "Login cancelled";

function sdkLoginAccount(stored: SdkStoredLogin | undefined, backendUrl: string, now: number): AccountKey | undefined {
	if (!stored || stored.backendUrl.replace(/\/+$/, "") !== backendUrl) return undefined;
	const account: AccountKey = {
		key: stored.apiKey,
		expiresAt: stored.apiKeyExpiresAtMs ?? NEVER_EXPIRES,
		origin: "sdk-login",
		...(stored.email ? { email: stored.email } : {}),
	};
	return isExpired(account, now) ? undefined : account;
}

async function offerSdkLogin(deps: LoginDeps, interaction: ProviderAuthInteraction): Promise<AccountKey | undefined> {
	const stored = await deps.sdk.readStoredLogin().catch(() => undefined);
	const account = sdkLoginAccount(stored, deps.sdk.backendUrl(), deps.now());
	if (!account) return undefined;
	const choice = await interaction.prompt({
		type: "select",
		message: "This machine already has a Cursor SDK login (~/.cursor/sdk/auth.json):",
		options: [
			{ id: "sdk", label: `Use it: ${describeAccount(account, deps.now())}` },
			{ id: "browser", label: "Sign in in the browser for a new key" },
		],
	});
	return choice === "sdk" ? account : undefined;
}

async function browserSignIn(deps: LoginDeps, interaction: ProviderAuthInteraction): Promise<AccountKey> {
	const keyName = keyNameFor(deps.host);
	let loginUrl: string | undefined;
	try {
		const result = await deps.sdk.login({
			apiKeyName: keyName,
			// The SDK opens a browser only where one can be (not over SSH, not with NO_OPEN_BROWSER); the URL is shown
			// either way, to open or copy.
			openBrowser: true,
			onLoginUrl: (url) => {
				loginUrl = url;
				interaction.notify({
					type: "auth_url",
					url,
					instructions:
						"Sign in to Cursor in your browser. If no browser opened (SSH, NO_OPEN_BROWSER), open this URL yourself.",
				});
				interaction.notify({ type: "progress", message: "Waiting for the browser sign-in… (Esc cancels)" });
			},
			signal: interaction.signal,
		});
		return {
			key: result.apiKey,
			expiresAt: result.apiKeyExpiresAtMs,
			origin: "browser",
			keyName,
			...(result.email ? { email: result.email } : {}),
		};
	} catch (error) {
		if (interaction.signal.aborted) throw new Error(CANCELLED);
		const message = error instanceof Error ? error.message : String(error);
		throw new Error(`Cursor sign-in failed: ${scrubText(message, loginUrl ? [loginUrl] : [])}`);
	}
}

/** The whole sign-in; resolves to the credential Pi stores. */
export async function signInWithCursor(
	deps: LoginDeps,
	interaction: ProviderAuthInteraction,
): Promise<OAuthCredential> {
	const account = (await offerSdkLogin(deps, interaction)) ?? (await browserSignIn(deps, interaction));
	return toCredential(account);
}
