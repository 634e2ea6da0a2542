// Acceptance of `npm start` (build/start.mjs): the pinned Pi starts with the checkout loaded as a package, and its
// startup header lists the extension under the package name, not as "dist".
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HomeRegistry } from "../support/pi.ts";
import { waitNoProcesses } from "../support/pi-turn.ts";
import { TmuxSession } from "../support/tmux.ts";
import { ensureTool, REPO_ROOT } from "../support/toolchain.ts";

const homes = new HomeRegistry();
let terminal: TmuxSession | undefined;
afterAll(() => {
	terminal?.kill();
	homes.removeAll();
});

const PACKAGE_NAME = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).name as string;

test("npm start lists the extension under the package name and selects its Cursor models", async () => {
	const home = homes.create();
	const env = home.env({ TERM: "xterm-256color", CURSOR_API_KEY: "key_test_start" });
	terminal = new TmuxSession(home.dir, `exec ${ensureTool("node24")} build/start.mjs -ne --model cursor/composer-2`, {
		env,
		cwd: REPO_ROOT,
	});
	const screen = await terminal.waitForScreen(
		(text) => /\[Extensions\]\n\s+\S/.test(text) && text.includes("cursor:"),
		"Pi's startup header and footer",
	);
	const listed = /\[Extensions\]\n\s+(.*)/.exec(screen)?.[1]?.trim();
	expect(listed).toBe(PACKAGE_NAME);
	expect(screen.trimEnd().split("\n").slice(-3).join("\n")).toContain("composer-2");

	terminal.press("C-d");
	expect(await terminal.waitClosed(20_000)).toBe(true);
	expect(await waitNoProcesses(homes.homes)).toEqual([]);
}, 120_000);
