// The rules of a Cursor account sign-in: what Pi's auth.json holds for it, how long it lasts, what the user is told.
// Pure functions; the key itself never appears in any text made here.

import type { OAuthCredential } from "@earendil-works/pi-ai";

/** Where Cursor's users see (and revoke) their API keys, the minted ones included. */
export const DASHBOARD_KEYS_URL = "https://cursor.com/dashboard?tab=integrations";
/** From this many days before expiry, a turn and /cursor-doctor say when the sign-in ends. */
export const NOTICE_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;
/** The `expires` of a key minted without expiry (an SDK login can be one): the latest date JavaScript knows. */
export const NEVER_EXPIRES = 8.64e15;

/** A key minted by signing in with a Cursor account, as Pi keeps it (an OAuth entry of its auth.json). */
export interface AccountKey {
	key: string;
	/** Epoch ms; `NEVER_EXPIRES` for a key without expiry. */
	expiresAt: number;
	email?: string;
	/** The key's name in the dashboard ("Pi on <host>"). */
	keyName?: string;
	/** Where it came from: this sign-in, or the SDK's own stored login (copied, never written back). */
	origin: "browser" | "sdk-login";
}

/** The name of a key minted from this machine, so the dashboard tells the user where it came from. */
export function keyNameFor(host: string): string {
	return `Pi on ${host || "this machine"}`;
}

/**
 * Pi's auth.json entry: an OAuth credential whose `access` is the minted key and whose `expires` is its expiry. There
 * is no refresh token (the SDK drops the login session once the key is minted): renewing is signing in again.
 */
export function toCredential(account: AccountKey): OAuthCredential {
	return {
		type: "oauth",
		access: account.key,
		refresh: "",
		expires: account.expiresAt,
		kind: "cursor-account",
		origin: account.origin,
		...(account.email ? { email: account.email } : {}),
		...(account.keyName ? { keyName: account.keyName } : {}),
	};
}

/** The account key of a stored OAuth credential, or undefined when it is not one of ours (or is damaged). */
export function fromCredential(credential: OAuthCredential | undefined): AccountKey | undefined {
	if (!credential || typeof credential.access !== "string" || !credential.access) return undefined;
	if (typeof credential.expires !== "number" || !Number.isFinite(credential.expires)) return undefined;
	const email = typeof credential.email === "string" && credential.email ? credential.email : undefined;
	const keyName = typeof credential.keyName === "string" && credential.keyName ? credential.keyName : undefined;
	return {
		key: credential.access,
		// Past the dates JavaScript can name is "never"; before 1970 is long expired.
		expiresAt: Math.min(Math.max(credential.expires, 0), NEVER_EXPIRES),
		origin: credential.origin === "sdk-login" ? "sdk-login" : "browser",
		...(email ? { email } : {}),
		...(keyName ? { keyName } : {}),
	};
}

/** Whole days left (rounded up: 4.2 days left reads "5 days"); 0 once expired. */
export function daysLeft(expiresAt: number, now: number): number {
	return Math.max(0, Math.ceil((expiresAt - now) / DAY_MS));
}

export function isExpired(account: Pick<AccountKey, "expiresAt">, now: number): boolean {
	return account.expiresAt <= now;
}

function day(ms: number): string {
	return new Date(ms).toISOString().slice(0, 10);
}

function who(account: Pick<AccountKey, "email">): string {
	return account.email ? ` (${account.email})` : "";
}

/** What the account sign-in is, for /cursor-doctor and notices: who, and how long it lasts. */
export function describeAccount(account: AccountKey, now: number): string {
	const origin =
		account.origin === "sdk-login" ? "Cursor account sign-in, taken from the SDK's login" : "Cursor account sign-in";
	if (account.expiresAt >= NEVER_EXPIRES) return `${origin}${who(account)}, no expiry`;
	if (isExpired(account, now)) return `${origin}${who(account)}, expired on ${day(account.expiresAt)}`;
	const left = daysLeft(account.expiresAt, now);
	return `${origin}${who(account)}, ${left} day${left === 1 ? "" : "s"} left (expires ${day(account.expiresAt)})`;
}

/** From `NOTICE_DAYS` before expiry: when it ends and how to renew. Undefined before that or once expired. */
export function expiryNotice(account: AccountKey, now: number): string | undefined {
	if (isExpired(account, now) || account.expiresAt - now > NOTICE_DAYS * DAY_MS) return undefined;
	const left = daysLeft(account.expiresAt, now);
	return (
		`Your Cursor sign-in${who(account)} expires in ${left} day${left === 1 ? "" : "s"} (${day(account.expiresAt)}). ` +
		"Sign in again with /login → Cursor to renew it."
	);
}

/** Why a turn with an expired sign-in does not run (nothing is sent with the key). */
export function expiredMessage(account: Pick<AccountKey, "email" | "expiresAt">): string {
	return `Your Cursor sign-in${who(account)} expired on ${day(account.expiresAt)}: sign in again with /login → Cursor.`;
}

/** After /logout: the key is only forgotten here; Cursor keeps accepting it until it expires or is revoked. */
export function logoutMessage(account: AccountKey): string {
	const until =
		account.expiresAt >= NEVER_EXPIRES ? "until you revoke it" : `until ${day(account.expiresAt)} unless you revoke it`;
	const name = account.keyName ? ` "${account.keyName}"` : "";
	return `Signed out of Cursor${who(account)}. The API key${name} stays valid ${until} in Cursor's dashboard: ${DASHBOARD_KEYS_URL}`;
}
