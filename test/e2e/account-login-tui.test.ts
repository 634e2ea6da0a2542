// Pi's own `/login` and `/logout` in the real TUI (Pi 1.6.0 in tmux, the real SDK against the fake backend):
// `/login cursor` offers the account sign-in next to the API key, shows the login URL, and after the browser step
// (played by the test on the fake) the next prompt is answered with the minted key; Esc during the wait stores
// nothing; `/logout` says how long the key stays valid.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type FakeBackend, startFakeBackend } from "../support/fake-backend/client.ts";
import { HomeRegistry, type TempHome } from "../support/pi.ts";
import { piTerminal, type TmuxSession } from "../support/tmux.ts";

const homes = new HomeRegistry();
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const step of cleanup.splice(0).reverse()) await step();
	homes.removeAll();
});

async function setup(): Promise<{ home: TempHome; backend: FakeBackend; terminal: TmuxSession }> {
	const backend = await startFakeBackend({ rest: { apiKeys: [] } });
	cleanup.push(() => backend.stop());
	const home = homes.create();
	const env = { CURSOR_BACKEND_URL: backend.url, CURSOR_WEBSITE_URL: backend.url, NO_OPEN_BROWSER: "1" };
	const terminal = piTerminal(home, ["--no-session", "--model", "cursor/composer-2"], { env, height: 50, width: 250 });
	cleanup.push(() => terminal.kill());
	await terminal.waitForScreen((text) => text.includes("cursor:local"), "Pi's footer");
	return { home, backend, terminal };
}

/** `/login cursor` → the account sign-in; returns the uuid of the login URL on screen. */
async function startSignIn(terminal: TmuxSession): Promise<string> {
	// Pi completes the provider first: Enter takes the completion, a second Enter runs the command.
	terminal.type("/login cursor");
	await terminal.waitForScreen((text) => text.includes("Cursor · account/API key"), "the provider completion");
	terminal.press("Enter");
	await terminal.waitForScreen((text) => !text.includes("Cursor · account/API key"), "the completion taken");
	terminal.press("Enter");
	const menu = await terminal.waitForScreen(
		(text) => text.includes("Sign in with your Cursor account (browser)") && text.includes("Sign in with an API key"),
		"Cursor's two sign-in methods",
	);
	expect(menu).toContain("Select authentication method for Cursor");
	terminal.press("Enter");
	const screen = await terminal.waitForScreen((text) => /loginDeepControl\?challenge=/.test(text), "the login URL");
	return /uuid=([0-9a-f-]{36})/.exec(screen)?.[1] ?? "";
}

function storedCursor(home: TempHome): Record<string, unknown> | undefined {
	const path = join(home.agentDir, "auth.json");
	if (!existsSync(path)) return undefined;
	return (JSON.parse(readFileSync(path, "utf8")) as Record<string, Record<string, unknown>>).cursor;
}

test("/login cursor: the browser sign-in is offered, its URL shown; after the browser step the next prompt uses the minted key; /logout says how long it stays valid", async () => {
	const { home, backend, terminal } = await setup();
	const uuid = await startSignIn(terminal);
	expect(uuid).not.toBe("");
	await backend.settleLogin("done", uuid);
	await terminal.waitForScreen((text) => text.includes("Logged in to Cursor"), "Pi's login confirmation");
	const key = (await backend.logins()).minted[0]?.key ?? "";
	expect(storedCursor(home)).toMatchObject({ type: "oauth", access: key });
	expect(statSync(join(home.agentDir, "auth.json")).mode & 0o777).toBe(0o600);
	expect(terminal.screen()).not.toContain(key);

	terminal.type("hello from the TUI");
	terminal.press("Enter");
	await backend.waitForRuns((runs) => runs.length === 1, 60_000);
	await terminal.waitForScreen((text) => text.includes("Hello from fake backend"), "Cursor's answer");
	const exchanges = (await backend.requests()).filter((r) => r.path === "/auth/exchange_user_api_key");
	expect(exchanges.map((r) => r.bearer)).toContain(key);

	terminal.type("/logout");
	terminal.press("Enter");
	await terminal.waitForScreen((text) => /Select provider to logout[\s\S]*→ Cursor/.test(text), "the logout list");
	terminal.press("Enter");
	const after = await terminal.waitForScreen((text) => text.includes("stays valid until"), "the sign-out notice");
	expect(after).toContain("cursor.com/dashboard");
	expect(storedCursor(home)).toBeUndefined();
}, 180_000);

test("Esc while waiting for the browser cancels the sign-in: nothing stored, polling stops, Pi stays usable", async () => {
	const { home, backend, terminal } = await setup();
	await startSignIn(terminal);
	const deadline = Date.now() + 15_000;
	while (((await backend.logins()).attempts.at(-1)?.polls ?? 0) < 1 && Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	terminal.press("Escape");
	await terminal.waitForScreen((text) => !text.includes("loginDeepControl"), "the login dialog to close");
	const polls = (await backend.logins()).attempts.at(-1)?.polls ?? 0;
	expect(polls).toBeGreaterThan(0);
	expect(storedCursor(home)).toBeUndefined();
	// The SDK polls at most every 1.2 s here: 3 s without a poll means the wait really ended.
	await new Promise((resolve) => setTimeout(resolve, 3000));
	expect((await backend.logins()).attempts.at(-1)?.polls).toBe(polls);
	expect((await backend.logins()).minted).toEqual([]);
	expect(terminal.open).toBe(true);
}, 120_000);
