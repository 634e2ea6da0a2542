// What a user sees in the real TUI (Pi in tmux, the real SDK against the fake backend): Cursor's read and shell
// calls appear as Pi's own tool cards, with the command, its output and the file read, followed by the answer.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeBackend } from "../support/fake-backend/client.ts";
import { cursorEnv, HomeRegistry, NO_RETRY, startTurnBackend, waitNoProcesses } from "../support/pi-turn.ts";
import { TmuxSession } from "../support/tmux.ts";
import { BUNDLE, ensureTool } from "../support/toolchain.ts";

const homes = new HomeRegistry();
let backend: FakeBackend;
let terminal: TmuxSession | undefined;

beforeAll(async () => {
	backend = await startTurnBackend({
		defaultScenario: {
			steps: [
				{ thinking: "Checking the notes." },
				{ tool: { callId: "t-read", read: { path: "notes.md" } } },
				{ tool: { callId: "t-shell", shell: { command: "echo card-output-line && wc -l notes.md" } } },
				{ text: "Everything is in order." },
				{ turnEnded: { inputTokens: 20, outputTokens: 4 } },
			],
		},
	});
}, 30_000);

afterAll(async () => {
	terminal?.kill();
	await backend?.stop();
	homes.removeAll();
});

test("Cursor's read and shell calls render as Pi tool cards with command and output, then the answer", async () => {
	const home = homes.create(NO_RETRY);
	writeFileSync(join(home.dir, "notes.md"), "first note line\nsecond note line\n");
	const env = home.env({ TERM: "xterm-256color", ...cursorEnv(backend) });
	const pi = `${ensureTool("node24")} ${ensureTool("pi@1.6.0")}`;
	terminal = new TmuxSession(home.dir, `exec ${pi} -ne -e ${BUNDLE} --model cursor/composer-2.5`, {
		env,
		cwd: home.dir,
		height: 60,
	});
	await terminal.waitForScreen((text) => text.includes("cursor:local"), "Pi's footer");
	terminal.type("check my notes");
	terminal.press("Enter");
	const screen = await terminal.waitForScreen((text) => text.includes("Everything is in order."), "the answer");
	expect(screen).toContain("echo card-output-line && wc -l notes.md"); // the bash card's command
	expect(screen).toContain("card-output-line"); // its output
	expect(screen).toMatch(/2 notes\.md/);
	expect(screen).toMatch(/read\s+notes\.md/); // the read card
	expect(screen.indexOf("card-output-line")).toBeLessThan(screen.indexOf("Everything is in order."));
	expect(screen).toContain("composer-2.5");

	terminal.press("C-d");
	expect(await terminal.waitClosed(20_000)).toBe(true);
	expect(await waitNoProcesses(homes.homes)).toEqual([]);
}, 120_000);
