// What a user sees in the real TUI (Pi in tmux, the real SDK against the fake backend): Cursor's read and shell
// calls appear as Pi's own tool cards, with the command, its output and the file read, followed by the answer.
import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { turnSuite, waitNoProcesses } from "../support/pi-turn.ts";
import { piTerminal, type TmuxSession } from "../support/tmux.ts";

const suite = turnSuite({
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
let terminal: TmuxSession | undefined;

afterAll(() => {
	terminal?.kill();
});

test("Cursor's read and shell calls render as Pi tool cards with command and output, then the answer", async () => {
	const home = suite.home();
	writeFileSync(join(home.dir, "notes.md"), "first note line\nsecond note line\n");
	terminal = piTerminal(home, ["--model", "cursor/composer-2.5"], { env: suite.env(), height: 60 });
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
	expect(await waitNoProcesses(suite.homes.homes)).toEqual([]);
}, 120_000);
