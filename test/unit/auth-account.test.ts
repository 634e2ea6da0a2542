// The account sign-in's rules (src/auth/account.ts) and its owner (src/auth/credentials.ts): what auth.json holds,
// days left, the 7-day notice, the expiry and sign-out messages, and that no text ever carries the key.
import { afterAll, describe, expect, test } from "bun:test";
import type { OAuthCredential } from "@earendil-works/pi-ai";
import {
	type AccountKey,
	DASHBOARD_KEYS_URL,
	daysLeft,
	describeAccount,
	expiredMessage,
	expiryNotice,
	fromCredential,
	keyNameFor,
	logoutMessage,
	NEVER_EXPIRES,
	toCredential,
} from "../../src/auth/account.ts";
import { CursorCredentials } from "../../src/auth/credentials.ts";
import type { CursorAuthSdk } from "../../src/sdk/cursor-sdk.ts";
import { fc, PropertyTarget, wrongTyped } from "../support/property.ts";

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 11, 4, 12);
const KEY = "key_account_secret_4242";

const account = (days: number, extra: Partial<AccountKey> = {}): AccountKey => ({
	key: KEY,
	expiresAt: NOW + days * DAY,
	origin: "browser",
	email: "me@example.com",
	keyName: "Pi on laptop",
	...extra,
});

describe("account key rules", () => {
	test("auth.json's entry round-trips: the key, its expiry, email, name and origin", () => {
		const stored = toCredential(account(90));
		expect(stored).toMatchObject({ type: "oauth", access: KEY, refresh: "", expires: NOW + 90 * DAY });
		expect(fromCredential(stored)).toEqual(account(90));
		expect(keyNameFor("laptop")).toBe("Pi on laptop");
	});

	test("days left round up; the doctor's line names the account and the date", () => {
		expect(daysLeft(NOW + 4.2 * DAY, NOW)).toBe(5);
		expect(daysLeft(NOW - DAY, NOW)).toBe(0);
		expect(describeAccount(account(90), NOW)).toBe(
			"Cursor account sign-in (me@example.com), 90 days left (expires 2027-03-04)",
		);
		expect(describeAccount(account(0, { expiresAt: NEVER_EXPIRES, origin: "sdk-login" }), NOW)).toContain(
			"taken from the SDK's login (me@example.com), no expiry",
		);
	});

	test("the notice starts 7 days before expiry and stops at expiry, where the turn message takes over", () => {
		expect(expiryNotice(account(8), NOW)).toBeUndefined();
		expect(expiryNotice(account(7), NOW)).toContain("expires in 7 days (2026-12-11)");
		expect(expiryNotice(account(5), NOW)).toContain("Sign in again with /login");
		expect(expiryNotice(account(-1), NOW)).toBeUndefined();
		expect(expiredMessage(account(-1))).toBe(
			"Your Cursor sign-in (me@example.com) expired on 2026-12-03: sign in again with /login → Cursor.",
		);
	});

	test("sign-out says the key stays valid until its expiry unless revoked, with the dashboard link", () => {
		expect(logoutMessage(account(30))).toBe(
			`Signed out of Cursor (me@example.com). The API key "Pi on laptop" stays valid until 2027-01-03 unless you revoke it in Cursor's dashboard: ${DASHBOARD_KEYS_URL}`,
		);
	});
});

const target = new PropertyTarget("auth-credential");
afterAll(() => target.report());

test("property: any stored auth.json entry parses or is refused, never throws, and no text shows its key", async () => {
	const entry = fc.oneof(
		fc.record({
			type: fc.constant("oauth"),
			access: fc.oneof(
				fc.string({ minLength: 8, maxLength: 30 }).map((s) => `key_${s}`),
				wrongTyped,
			),
			refresh: wrongTyped,
			expires: fc.oneof(fc.double(), fc.integer({ min: NOW - 400 * DAY, max: NOW + 400 * DAY }), wrongTyped),
			email: wrongTyped,
			keyName: wrongTyped,
			origin: wrongTyped,
		}),
		fc.dictionary(fc.string(), wrongTyped),
	);
	await target.check(
		fc.property(entry, (value) => {
			const parsed = fromCredential(value as OAuthCredential);
			if (!parsed) return;
			expect(typeof parsed.key).toBe("string");
			expect(Number.isFinite(parsed.expiresAt)).toBe(true);
			const texts = [
				describeAccount(parsed, NOW),
				expiryNotice(parsed, NOW) ?? "",
				expiredMessage(parsed),
				logoutMessage(parsed),
			];
			// Real keys are long; a one-letter "key" would match any word.
			if (parsed.key.startsWith("key_")) for (const text of texts) expect(text.includes(parsed.key)).toBe(false);
		}),
		300,
	);
});

function credentials(now = NOW) {
	const notices: { message: string; level: string }[] = [];
	const sdk: CursorAuthSdk = {
		login: async () => {
			throw new Error("not used");
		},
		readStoredLogin: async () => undefined,
		backendUrl: () => "https://api2.cursor.sh",
	};
	const owner = new CursorCredentials({
		sdk,
		host: "laptop",
		env: {},
		notify: (message, level) => notices.push({ message, level }),
		now: () => now,
	});
	return { owner, notices };
}

describe("the credential owner", () => {
	test("a turn 5 days before expiry gets one notice per session; an expired key refuses the turn", async () => {
		const { owner, notices } = credentials();
		const auth = owner.providerAuth();
		expect(await auth.oauth?.toAuth(toCredential(account(5)))).toEqual({ apiKey: KEY });
		expect(owner.checkTurn(KEY)).toBeUndefined();
		expect(owner.checkTurn(KEY)).toBeUndefined();
		expect(notices).toHaveLength(1);
		expect(notices[0]?.message).toContain("expires in 5 days");

		const expired = credentials(NOW + 6 * DAY);
		await expired.owner.providerAuth().oauth?.toAuth(toCredential(account(5)));
		expect(expired.owner.checkTurn(KEY)).toEqual({ expired: expect.stringContaining("sign in again with /login") });
		expect(owner.checkTurn("key_someone_else")).toBeUndefined();
	});

	test("Pi's refresh of an expired sign-in fails with the way out, not a key error", async () => {
		const { owner } = credentials();
		const refresh = owner.providerAuth().oauth?.refresh(toCredential(account(-2)), AbortSignal.timeout(1000));
		await expect(refresh).rejects.toThrow(/expired on 2026-12-02: sign in again with \/login/);
	});

	test("the doctor names the kind of key and never the key", async () => {
		const { owner } = credentials();
		await owner.providerAuth().oauth?.toAuth(toCredential(account(3)));
		const fact = owner.fact(KEY, "OAuth");
		expect(fact).toMatchObject({ kind: "account", detail: expect.stringContaining("3 days left") });
		expect(fact.warning).toContain("expires in 3 days");
		expect(owner.fact("key_env", "CURSOR_API_KEY")).toMatchObject({ kind: "env" });
		expect(owner.fact("key_pasted", "stored API key")).toMatchObject({ kind: "pasted" });
		expect(JSON.stringify(fact)).not.toContain(KEY);
	});

	test("a refresh without the account sign-in seen before is a sign-out: one warning with the dashboard link", () => {
		const { owner, notices } = credentials();
		owner.observeStoredCredential(toCredential(account(30)));
		owner.observeStoredCredential(undefined);
		owner.observeStoredCredential(undefined);
		expect(notices).toEqual([{ message: logoutMessage(account(30)), level: "warning" }]);
	});

	test("the API-key entry keeps its behaviour: a pasted key wins over CURSOR_API_KEY", async () => {
		const { owner } = credentials();
		const apiKey = owner.providerAuth().apiKey;
		const ctx = {
			env: async (name: string) => (name === "CURSOR_API_KEY" ? "key_env" : undefined),
			fileExists: async () => false,
		};
		const signal = AbortSignal.timeout(1000);
		expect(await apiKey?.resolve({ ctx, credential: { type: "api_key", key: "key_pasted" }, signal })).toEqual({
			auth: { apiKey: "key_pasted" },
			source: "stored API key",
		});
		expect(await apiKey?.resolve({ ctx, signal })).toEqual({ auth: { apiKey: "key_env" }, source: "CURSOR_API_KEY" });
	});
});
