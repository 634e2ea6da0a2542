// The one scrubber (`redactSecrets`, src/sdk/errors.ts) on every message path: generated secrets (URL and SCP-style
// userinfo whose password holds `@` and `:`, cookies, session ids, bearer and basic headers, credential query
// parameters) in SDK errors, catalog failures, notices and log lines; none survives, in full or in part.
import { afterAll, expect, test } from "bun:test";
import { discoverModels } from "../../src/catalog/discovery.ts";
import type { CursorSdk } from "../../src/sdk/cursor-sdk.ts";
import { classifyCursorError, redactSecrets, scrubText } from "../../src/sdk/errors.ts";
import { Notifier } from "../../src/ui/notifier.ts";
import { fc, PropertyTarget } from "../support/property.ts";

const target = new PropertyTarget("scrub");
afterAll(() => target.report());

/** Distinctive secret text (a digit and a mark around random text), so no ordinary word contains it by chance. */
const distinct = (chars: string, min: number, max: number) =>
	fc.stringMatching(new RegExp(`^[${chars}]{${min},${max}}$`)).map((s) => `9${s}Q`);
const ALNUM = "A-Za-z0-9";
/** RFC 3986 userinfo characters, plus `@` and `:` as users paste them unencoded. */
const PASSWORD = `${ALNUM}._~!$&'()*+,;=%@:-`;

const secretCase = fc.oneof(
	fc
		.record({
			scheme: fc.constantFrom("https", "http", "socks5", "ssh"),
			user: distinct(`${ALNUM}._-`, 2, 8),
			password: distinct(PASSWORD, 4, 14),
			host: fc.constantFrom("proxy.example:8080", "10.0.0.1", "api.cursor.com"),
		})
		.map((u) => ({
			kind: "url userinfo",
			text: `${u.scheme}://${u.user}:${u.password}@${u.host}/v1`,
			secrets: [u.password, `${u.user}:`],
		})),
	fc
		.record({
			user: distinct(`${ALNUM}._-`, 2, 8),
			password: distinct(PASSWORD.replace("'", "").replace(",", "").replace("(", "").replace("=", ""), 4, 14),
			host: fc.constantFrom("github.com", "git.corp.example", "10.1.2.3"),
		})
		.map((u) => ({
			kind: "scp userinfo",
			text: `${u.user}:${u.password}@${u.host}:acme/app.git`,
			secrets: [u.password, `${u.user}:`],
		})),
	fc
		.record({
			name: fc.constantFrom("sid", "session", "_cursor_session", "auth"),
			value: distinct(ALNUM, 8, 24),
			other: distinct(`${ALNUM}-_`, 8, 24),
		})
		.chain((c) =>
			fc.constantFrom(
				{
					kind: "cookie header",
					text: `Cookie: ${c.name}=${c.value}; theme=dark; csrf=${c.other}`,
					secrets: [c.value, c.other],
				},
				{ kind: "set-cookie", text: `Set-Cookie: ${c.name}=${c.value}; Path=/; HttpOnly`, secrets: [c.value] },
				{ kind: "cookie field", text: `{"cookie":"${c.name}=${c.value}; x=${c.other}"}`, secrets: [c.value, c.other] },
			),
		),
	fc
		.record({
			name: fc.constantFrom("session_id", "sessionId", "session-id", "JSESSIONID", "sessionToken"),
			value: distinct(`${ALNUM}-`, 6, 36),
			sep: fc.constantFrom("=", ": ", '":"', "="),
		})
		.map((c) => ({ kind: "session id", text: `${c.name}${c.sep}${c.value}`, secrets: [c.value] })),
	fc
		.record({ scheme: fc.constantFrom("Bearer", "Basic", "bearer"), value: distinct(`${ALNUM}._~+/=-`, 6, 40) })
		.map((c) => ({ kind: "auth header", text: `Authorization: ${c.scheme} ${c.value}`, secrets: [c.value] })),
	fc
		.record({
			name: fc.constantFrom("access_token", "token", "api_key", "sig", "X-Amz-Signature", "code", "key", "session"),
			value: distinct(ALNUM, 6, 30),
		})
		.map((c) => ({
			kind: "query token",
			text: `https://api.example.com/v1/models?page=2&${c.name}=${c.value}&x=1`,
			secrets: [c.value],
		})),
);
type SecretCase = typeof secretCase extends fc.Arbitrary<infer T> ? T : never;

/** Text around a secret the way errors and outputs carry it. */
const carrier = fc.constantFrom(
	(s: string) => s,
	(s: string) => `request failed: ${s}`,
	(s: string) => `[unauthenticated] (${s})\n    at fetch (node:internal)`,
	(s: string) => `{"detail":"${s.replaceAll('"', '\\"')}"}`,
	(s: string) => `${s} (retry later)`,
	(s: string) => `failed (${s})`,
);

function leaks(text: string, c: SecretCase): string[] {
	return c.secrets.filter(
		(secret) => text.includes(secret) || (secret.length >= 8 && text.includes(secret.slice(0, 8))),
	);
}

test("errors: SDK failures, run failures and catalog refresh failures never show a secret", async () => {
	await target.check(
		fc.asyncProperty(secretCase, carrier, async (c, wrap) => {
			const text = wrap(c.text);
			const shown = [
				classifyCursorError(new Error(text)).message,
				classifyCursorError(new Error("fetch failed", { cause: new Error(text) })).message,
				scrubText(text),
				redactSecrets(text),
			];
			const sdk = { listModels: async () => Promise.reject(new Error(text)) } as unknown as CursorSdk;
			await discoverModels(sdk, "key_scrub_property_0001", new AbortController().signal, 5_000).catch((error: Error) =>
				shown.push(error.message),
			);
			for (const message of shown)
				expect({ kind: c.kind, message, leaks: leaks(message, c) }).toEqual({ kind: c.kind, message, leaks: [] });
		}),
		2500,
	);
});

test("notices and log lines: what the notifier shows and the gentle (tool output, log) variant hide every secret", async () => {
	await target.check(
		fc.property(secretCase, carrier, fc.boolean(), (c, wrap, withUi) => {
			const text = wrap(c.text);
			const shown: string[] = [];
			const notifier = new Notifier();
			const ui = { notify: (message: string) => shown.push(message) };
			if (withUi) notifier.bind({ hasUI: true, ui } as never);
			const error = console.error;
			console.error = (message: string) => shown.push(message);
			try {
				notifier.notify(`Cursor refresh failed: ${text}`, "error");
				notifier.report(text, "info");
			} finally {
				console.error = error;
			}
			shown.push(redactSecrets(text, [], { content: true }));
			expect(shown.length).toBe(3);
			for (const message of shown)
				expect({ kind: c.kind, message, leaks: leaks(message, c) }).toEqual({ kind: c.kind, message, leaks: [] });
		}),
		2500,
	);
});

test("ordinary text passes unchanged: prose about sessions, plain git remotes, URLs without credentials", () => {
	for (const text of [
		"Cursor mode set to agent for this session: Cursor implements the plan.",
		"bc-1 was not created in this Pi session: /cursor-cloud only manages the agents it recorded",
		"git@github.com:acme/app.git has no HTTPS form",
		"See https://cursor.com/agents?tab=all for the dashboard",
		"Basic understanding of the session",
	]) {
		expect(redactSecrets(text, [], { content: true })).toBe(text);
	}
});
