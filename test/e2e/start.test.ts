// Acceptance of `npm start` (build/start.mjs): the pinned Pi starts with the checkout loaded as a package, in the
// folder npm was started from (INIT_CWD, e.g. `npm --prefix <checkout> start` run in a project), and its startup
// header lists the extension under the package name, not as "dist".
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
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

test("npm start opens Pi in the user's folder, lists the extension under the package name, selects its models", async () => {
	const home = homes.create();
	const project = join(home.dir, "my-project");
	mkdirSync(project);
	const env = home.env({ TERM: "xterm-256color", CURSOR_API_KEY: "key_test_start", INIT_CWD: project });
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
	const footer = screen.trimEnd().split("\n").slice(-3).join("\n");
	expect(footer).toContain("composer-2");
	expect(footer).toContain("~/my-project");

	terminal.press("C-d");
	expect(await terminal.waitClosed(20_000)).toBe(true);
	expect(await waitNoProcesses(homes.homes)).toEqual([]);
}, 120_000);
