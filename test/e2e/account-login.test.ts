// Signing in with a Cursor account, end to end: the real `pi --mode rpc` with our bundle and the real SDK's
// `Cursor.auth.login`, against the fake backend's login page, `/auth/poll` and key mint. The test plays the browser
// (it opens the login URL Pi showed and settles the sign-in on the fake), then checks where the minted key went
// (Pi's auth.json only, 0600, with its expiry), that the next prompt reaches Cursor with it, and what the user sees
// on abort, denial, near expiry, expiry and sign-out.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { type FakeBackend, type StartFakeBackendOptions, startFakeBackend } from "../support/fake-backend/client.ts";
import { filesUnder, type PiHost, piHosts, type TempHome } from "../support/pi.ts";
import {
	isNotify,
	notifications,
	type RpcOptions,
	type RpcPi,
	type RpcRecord,
	rpcSuite,
	SharedRpcPi,
	type UiRequest,
} from "../support/rpc.ts";

const suite = rpcSuite(2);
const MODEL = "cursor/composer-2";
const DAY = 24 * 60 * 60 * 1000;
const TIMEOUT = 120_000;

/** A backend that accepts no key but the ones its sign-ins mint. */
const SIGN_INS_ONLY: StartFakeBackendOptions = { rest: { apiKeys: [] } };

/** Runs `body` with its own fake backend, stopped after it (at most as many at once as the suite allows). */
function withBackend(options: StartFakeBackendOptions, body: (backend: FakeBackend) => Promise<void>): Promise<void> {
	return suite.limit(async () => {
		const backend = await startFakeBackend(options);
		try {
			await body(backend);
		} finally {
			await backend.stop();
		}
	});
}

/** The files of `home` that hold `secret` (symlinks not followed). */
function filesHolding(home: TempHome, secret: string): string[] {
	return filesUnder(home.dir).filter((file) => readFileSync(file).includes(secret));
}

/** An RPC Pi in `home` on `backend`, ready for prompts. */
async function start(
	home: TempHome,
	backend: FakeBackend,
	host?: PiHost,
	extra: Record<string, string> = {},
): Promise<RpcPi> {
	const pi = suite.start(["--no-session", "--model", MODEL], piOptions(home, backend, host, extra));
	await pi.ready();
	return pi;
}

function piOptions(
	home: TempHome,
	backend: FakeBackend,
	host?: PiHost,
	extra: Record<string, string> = {},
	lifetimeMs = TIMEOUT,
): RpcOptions {
	return {
		home,
		...(host ? { host } : {}),
		lifetimeMs,
		env: {
			CURSOR_BACKEND_URL: backend.url,
			CURSOR_WEBSITE_URL: backend.url,
			NO_OPEN_BROWSER: "1",
			...extra,
		},
	};
}

/**
 * The sign-ins that store nothing (denied, expired, cancelled) take turns on one Pi, in one home, on one backend
 * (a Pi start and a backend start saved for each but the first): `body` gets them; the Pi is killed if it throws.
 */
const unsignedPi = (() => {
	let fixture: { backend: FakeBackend; home: TempHome; pi: SharedRpcPi } | undefined;
	afterAll(async () => {
		await fixture?.pi.close();
		await fixture?.backend.stop();
	});
	return async (body: (pi: RpcPi, backend: FakeBackend, home: TempHome) => Promise<void>): Promise<void> => {
		if (!fixture) {
			const backend = await startFakeBackend(SIGN_INS_ONLY);
			const home = suite.home();
			const pi = new SharedRpcPi(
				() => suite.start(["--no-session", "--model", MODEL], piOptions(home, backend, undefined, {}, 3 * TIMEOUT)), // the three tests' time
			);
			fixture = { backend, home, pi };
		}
		const { backend, home, pi } = fixture;
		await pi.use((rpc) => body(rpc, backend, home), { sameSession: true });
	};
})();

function authFile(home: TempHome): string {
	return join(home.agentDir, "auth.json");
}

function storedCursor(home: TempHome): Record<string, unknown> | undefined {
	if (!existsSync(authFile(home))) return undefined;
	return (JSON.parse(readFileSync(authFile(home), "utf8")) as Record<string, Record<string, unknown>>).cursor;
}

/** The browser step: open the login URL Pi showed (the fake learns the challenge), then settle the sign-in. */
async function browser(backend: FakeBackend, url: string, outcome: "done" | "denied" | "expired"): Promise<void> {
	const page = await fetch(url);
	expect(page.status).toBe(200);
	const uuid = new URL(url).searchParams.get("uuid") ?? "";
	await backend.settleLogin(outcome, uuid);
}

/** Starts `/cursor-login browser` and returns the login URL from Pi's notice. */
async function beginSignIn(pi: RpcPi): Promise<{ url: string; from: number }> {
	const from = pi.mark();
	pi.write({ type: "prompt", message: "/cursor-login browser" });
	const notice = await pi.waitFor<UiRequest>(isNotify(/loginDeepControl/), { from, timeoutMs: 30_000 });
	const url = /https?:\/\/\S+/.exec(String(notice.message))?.[0] ?? "";
	return { url, from };
}

/** How often the sign-in of this login URL has been polled (0 before its first poll). */
async function pollsOf(backend: FakeBackend, url: string): Promise<number> {
	const uuid = new URL(url).searchParams.get("uuid");
	return (await backend.logins()).attempts.find((attempt) => attempt.uuid === uuid)?.polls ?? 0;
}

/** Waits until the sign-in of this login URL has been polled `count` times. */
async function pollsAtLeast(backend: FakeBackend, url: string, count: number, timeoutMs = 15_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while ((await pollsOf(backend, url)) < count) {
		if (Date.now() > deadline) throw new Error(`no ${count} polls within ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

async function turn(pi: RpcPi, text: string): Promise<RpcRecord[]> {
	const from = pi.mark();
	const { response } = await pi.prompt(text, { timeoutMs: 30_000 });
	expect(response.success).toBe(true);
	await pi.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 60_000 });
	return pi.records.slice(from);
}

function assistantEnd(records: RpcRecord[]): { stopReason?: string; errorMessage?: string; content?: unknown } {
	const ends = records.filter(
		(r) => r.type === "message_end" && (r.message as { role?: string } | undefined)?.role === "assistant",
	);
	return (ends.at(-1)?.message ?? {}) as { stopReason?: string; errorMessage?: string };
}

function accountCredential(expires: number, key: string) {
	return {
		cursor: {
			type: "oauth",
			access: key,
			refresh: "",
			expires,
			kind: "cursor-account",
			origin: "browser",
			email: "seeded@example.com",
			keyName: "Pi on seeded",
		},
	};
}

const hosts = piHosts();

describe("account sign-in through /cursor-login (RPC)", () => {
	for (const host of hosts) {
		test(
			`${host.name}: the URL is shown, the browser completes, the next prompt uses the minted key kept only in Pi's auth.json`,
			async () => {
				await withBackend(SIGN_INS_ONLY, async (backend) => {
					const home = suite.home();
					const pi = await start(home, backend, host);
					const { url, from } = await beginSignIn(pi);
					expect(url.startsWith(`${backend.url}/loginDeepControl?`)).toBe(true);
					await browser(backend, url, "done");
					await pi.waitFor(isNotify(/Signed in to Cursor/), { from, timeoutMs: 30_000 });

					const { minted } = await backend.logins();
					expect(minted).toHaveLength(1);
					const key = minted[0]?.key ?? "";
					expect(minted[0]?.name).toBe(`Pi on ${hostname()}`);
					const stored = storedCursor(home);
					expect(stored).toMatchObject({
						type: "oauth",
						access: key,
						email: "signed-in@example.com",
						keyName: `Pi on ${hostname()}`,
					});
					// The expiry the key was minted with (90 days), kept with it.
					expect(stored?.expires).toBe(minted[0]?.expiresAtMs);
					expect(Number(stored?.expires) - Date.now()).toBeGreaterThan(89 * DAY);
					expect(statSync(authFile(home)).mode & 0o777).toBe(0o600);
					// The SDK was told to keep nothing.
					expect(existsSync(join(home.dir, ".cursor", "sdk", "auth.json"))).toBe(false);

					const records = await turn(pi, "hello after sign-in");
					expect(assistantEnd(records).stopReason).toBe("stop");
					const exchanges = (await backend.requests()).filter((r) => r.path === "/auth/exchange_user_api_key");
					expect(exchanges.length).toBeGreaterThan(0);
					expect(exchanges.every((r) => r.bearer === key)).toBe(true);
					expect((await backend.runs()).length).toBe(1);

					const doctor = await pi.prompt("/cursor-doctor", { timeoutMs: 30_000 });
					const report = notifications(doctor.records)
						.map((n) => n.message)
						.join("\n");
					expect(report).toContain("Cursor account sign-in (signed-in@example.com), 90 days left");

					const logout = await pi.prompt("/cursor-logout", { timeoutMs: 30_000 });
					const said = notifications(pi.records.slice(pi.records.indexOf(logout.records[0] ?? {})))
						.map((n) => n.message)
						.join("\n");
					expect(said).toMatch(/stays valid until \d{4}-\d\d-\d\d unless you revoke it/);
					expect(said).toContain("https://cursor.com/dashboard");
					expect(storedCursor(home)).toBeUndefined();

					const exit = await pi.close();
					expect(exit.code).toBe(0);
					// The key is in no output and, after sign-out, in no file of the home.
					expect(JSON.stringify(exit.records) + exit.stderr).not.toContain(key);
					const holders = filesHolding(home, key);
					expect(holders).toEqual([]);
				});
			},
			TIMEOUT,
		);
	}

	test(
		"while signed in, only Pi's auth.json holds the key",
		async () => {
			await withBackend(SIGN_INS_ONLY, async (backend) => {
				const home = suite.home();
				const pi = await start(home, backend);
				const { url, from } = await beginSignIn(pi);
				await browser(backend, url, "done");
				await pi.waitFor(isNotify(/Signed in to Cursor/), { from, timeoutMs: 30_000 });
				await turn(pi, "one turn so the SDK writes its stores");
				const key = (await backend.logins()).minted[0]?.key ?? "";
				const exit = await pi.close();
				expect(exit.code).toBe(0);
				const holders = filesHolding(home, key);
				expect(holders).toEqual([authFile(home)]);
				expect(JSON.stringify(exit.records) + exit.stderr).not.toContain(key);
			});
		},
		TIMEOUT,
	);

	for (const outcome of ["denied", "expired"] as const)
		test(
			`a sign-in the browser ends as ${outcome} fails with a message and stores nothing`,
			async () => {
				await unsignedPi(async (pi, backend, home) => {
					const { url, from } = await beginSignIn(pi);
					await browser(backend, url, outcome);
					const failure = await pi.waitFor<UiRequest>(isNotify(/Cursor sign-in failed/), { from, timeoutMs: 30_000 });
					expect(failure.notifyType).toBe("error");
					expect(failure.message).toContain("Login failed or timed out");
					expect(storedCursor(home)).toBeUndefined();
					// Pi goes on answering (the cancel test below ends it and checks its clean exit).
					await pi.ready();
				});
			},
			TIMEOUT,
		);

	test(
		"cancelling the wait stores nothing, mints nothing and leaves no process",
		async () => {
			// The last of the sign-ins that store nothing: it ends their Pi, which must exit cleanly.
			await unsignedPi(async (pi, backend, home) => {
				const { url, from } = await beginSignIn(pi);
				const waiting = await pi.waitFor<UiRequest>(
					(r) => r.type === "extension_ui_request" && r.method === "select" && /Waiting/.test(String(r.title)),
					{ from },
				);
				// Cancel once Pi is really waiting on the backend (a pending poll answered).
				await pollsAtLeast(backend, url, 1);
				pi.write({ type: "extension_ui_response", id: waiting.id, cancelled: true });
				await pi.waitFor(isNotify(/cancelled: nothing was stored/), { from, timeoutMs: 15_000 });
				const polls = await pollsOf(backend, url);
				const exit = await pi.close();
				expect(exit.code).toBe(0);
				expect(storedCursor(home)).toBeUndefined();
				expect((await backend.logins()).minted).toEqual([]);
				// The poll stopped with the sign-in.
				expect(await pollsOf(backend, url)).toBe(polls);
			});
		},
		TIMEOUT,
	);

	test(
		"an existing SDK login is offered as the source and never written",
		async () => {
			await withBackend(SIGN_INS_ONLY, async (backend) => {
				const home = suite.home();
				const sdkDir = join(home.dir, ".cursor", "sdk");
				mkdirSync(sdkDir, { recursive: true });
				const sdkKey = "key_from_the_sdk_login";
				const expires = Date.now() + 30 * DAY;
				const sdkFile = join(sdkDir, "auth.json");
				const content = `${JSON.stringify(
					{
						version: 1,
						backendUrl: backend.url,
						apiKey: sdkKey,
						apiKeyExpiresAtMs: expires,
						email: "sdk@example.com",
						createdAtMs: 1,
					},
					null,
					2,
				)}\n`;
				writeFileSync(sdkFile, content, { mode: 0o600 });
				const pi = await start(home, backend);
				const from = pi.mark();
				pi.write({ type: "prompt", message: "/cursor-login browser" });
				const offer = await pi.waitFor<UiRequest>(
					(r) => r.type === "extension_ui_request" && r.method === "select" && /SDK login/.test(String(r.title)),
					{ from },
				);
				const options = (offer as unknown as { options: string[] }).options;
				expect(options[0]).toContain("sdk@example.com");
				expect(options[0]).not.toContain(sdkKey);
				pi.write({ type: "extension_ui_response", id: offer.id, value: options[0] });
				await pi.waitFor(isNotify(/Signed in to Cursor/), { from, timeoutMs: 30_000 });
				expect(storedCursor(home)).toMatchObject({ type: "oauth", access: sdkKey, expires, origin: "sdk-login" });
				expect(readFileSync(sdkFile, "utf8")).toBe(content);
				expect((await backend.logins()).attempts).toEqual([]);
				expect((await pi.close()).code).toBe(0);
			});
		},
		TIMEOUT,
	);
});

describe("expiry of an account sign-in", () => {
	for (const host of hosts.filter((h) => h.name.startsWith("npm")))
		test(
			`${host.name}: an expired sign-in fails the turn with 'sign in again with /login' and sends nothing`,
			async () => {
				await withBackend(SIGN_INS_ONLY, async (backend) => {
					const home = suite.home();
					const key = "key_expired_account";
					home.writeAgentFile("auth.json", accountCredential(Date.now() - DAY, key));
					const pi = await start(home, backend, host);
					const records = await turn(pi, "hello with an expired key");
					const end = assistantEnd(records);
					expect(end.stopReason).toBe("error");
					expect(end.errorMessage).toContain("sign in again with /login");
					expect(end.errorMessage).not.toMatch(/invalid API key|rejected the API key/i);
					const requests = await backend.requests();
					expect(requests.filter((r) => r.bearer === key)).toEqual([]);
					expect(await backend.runs()).toEqual([]);
					const doctor = await pi.prompt("/cursor-doctor", { timeoutMs: 30_000 });
					expect(
						notifications(doctor.records)
							.map((n) => n.message)
							.join("\n"),
					).toContain("sign in again with /login");
					expect((await pi.close()).code).toBe(0);
				});
			},
			TIMEOUT,
		);

	test(
		"5 days before expiry the doctor and a notice say when it ends and how to renew",
		async () => {
			await withBackend({ rest: { apiKeys: ["key_five_days"] } }, async (backend) => {
				const home = suite.home();
				home.writeAgentFile("auth.json", accountCredential(Date.now() + 5 * DAY - 60_000, "key_five_days"));
				const pi = await start(home, backend);
				const records = await turn(pi, "hello near expiry");
				expect(assistantEnd(records).stopReason).toBe("stop");
				const notice = notifications(pi.records).find((n) => /expires in 5 days/.test(n.message));
				expect(notice?.message).toContain("seeded@example.com");
				expect(notice?.message).toContain("/login");
				const doctor = await pi.prompt("/cursor-doctor", { timeoutMs: 30_000 });
				const report = notifications(doctor.records)
					.map((n) => n.message)
					.join("\n");
				expect(report).toContain("Cursor account sign-in (seeded@example.com), 5 days left");
				expect((await pi.close()).code).toBe(0);
			});
		},
		TIMEOUT,
	);
});

describe("an idle pooled agent refused with 401", () => {
	test(
		"is recreated once with the same key and the turn is answered; a fresh agent's 401 is still a rejected key",
		async () => {
			const key = "key_idle_pooled";
			await withBackend(
				{
					rest: { apiKeys: [key] },
					scenarios: [
						[{ text: "first answer" }, { turnEnded: true }],
						{ name: "stale-session", httpStatus: 401 },
						[{ text: "answered on a new agent" }, { turnEnded: true }],
					],
				},
				async (backend) => {
					const home = suite.home();
					const pi = await start(home, backend, undefined, { CURSOR_API_KEY: key });
					expect(assistantEnd(await turn(pi, "first")).stopReason).toBe("stop");
					const second = await turn(pi, "second, after a long idle");
					const end = assistantEnd(second);
					expect({ stopReason: end.stopReason, error: end.errorMessage }).toEqual({
						stopReason: "stop",
						error: undefined,
					});
					expect(JSON.stringify(end.content)).toContain("answered on a new agent");
					expect(notifications(second).filter((n) => /rejected|API key/i.test(n.message))).toEqual([]);
					const runs = await backend.runs();
					expect(runs.map((r) => r.scenarioName ?? r.status)).toHaveLength(3);
					const agents = (await backend.runRequests()).map((r) => r.conversationId);
					// The refused send went to the pooled agent; the retry to a new one, with the same key.
					expect(agents[1]).toBe(agents[0]);
					expect(agents[2]).not.toBe(agents[1]);
					const bearers = new Set(
						(await backend.requests()).filter((r) => r.path === "/auth/exchange_user_api_key").map((r) => r.bearer),
					);
					expect([...bearers]).toEqual([key]);

					// A brand-new agent refused: reported, not retried.
					await backend.enqueue({ name: "fresh-401", httpStatus: 401 });
					await pi.send({ type: "new_session" });
					const fresh = assistantEnd(await turn(pi, "a new session"));
					expect(fresh.stopReason).toBe("error");
					expect(fresh.errorMessage).toMatch(/^Cursor rejected the API key/);
					expect(await backend.runs()).toHaveLength(4);
					expect((await pi.close()).code).toBe(0);
				},
			);
		},
		TIMEOUT,
	);
});
