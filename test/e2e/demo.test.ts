// Acceptance of `npm run demo` (build/demo.mjs): in a real terminal (tmux) a newcomer without a key sees Pi's TUI
// with the demo notice and a Cursor model in the footer (the notice follows a model switch), and the scripted answer
// to whatever they type. Ending the demo (ctrl+d in Pi, or SIGTERM to the launcher) leaves no process and no file
// behind, offers no session to resume, and the user's own home is never touched. Print mode (`npm run demo -- -p …`)
// prints the scripted answer; `/cursor-usage refresh` there bills exactly what the script reported, at no cost.
import { afterAll, afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TempHome } from "../support/pi.ts";
import { descendantProcesses, waitNoProcesses } from "../support/pi-turn.ts";
import { runProcess } from "../support/processes.ts";
import { TmuxSession } from "../support/tmux.ts";
import { REPO_ROOT } from "../support/toolchain.ts";

const TIMEOUT_MS = 120_000;
/** The scripted answer's first words, and the workspace file the scripted turn reads (build/demo-script.mjs). */
const DEMO_ANSWER_START = "This reply is scripted by the local fake Cursor backend";
const DEMO_FILE = "notes.md";
const roots: string[] = [];
const terminals: TmuxSession[] = [];

afterEach(() => {
	for (const terminal of terminals.splice(0)) terminal.kill();
});
afterAll(() => {
	for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/**
 * A stand-in for the user's machine: their home (with Pi and Cursor settings pointing into it, and a key of
 * their own) and their temp folder, where the demo must create its folder and nothing else.
 */
function userMachine() {
	const root = mkdtempSync(join(tmpdir(), "pi-cursor-demo-test-"));
	roots.push(root);
	const home = join(root, "home");
	const tmp = join(root, "tmp");
	mkdirSync(home);
	mkdirSync(tmp);
	const env: Record<string, string> = {
		PATH: process.env.PATH ?? "/usr/bin:/bin",
		TERM: "xterm-256color",
		HOME: home,
		TMPDIR: tmp,
		PI_CODING_AGENT_DIR: join(home, ".pi", "agent"),
		PI_CURSOR_SDK_STATE_ROOT: join(home, "cursor-state"),
		CURSOR_API_KEY: "key_users_own_must_not_be_used",
	};
	for (const tool of ["PI_CURSOR_NODE", "PI_CURSOR_BUN"]) {
		const path = process.env[tool];
		if (path) env[tool] = path;
	}
	return { root, home, tmp, env };
}

type Machine = ReturnType<typeof userMachine>;

/** The demo's own folder (inside the user's temp folder) while it runs. */
function demoFolder(machine: Machine): string {
	const entries = readdirSync(machine.tmp);
	expect(entries).toHaveLength(1);
	expect(entries[0]).toStartWith("pi-cursor-demo-");
	return join(machine.tmp, entries[0] ?? "");
}

/** The demo in a terminal; `thenShell`: the terminal stays open after the demo, showing what it printed last. */
function startDemo(machine: Machine, thenShell = false): TmuxSession {
	const command = thenShell
		? `node build/demo.mjs --no-build; echo "demo exited: $?"; sleep 120`
		: "exec node build/demo.mjs --no-build";
	const terminal = new TmuxSession(machine.root, command, {
		env: machine.env,
		cwd: REPO_ROOT,
	});
	terminals.push(terminal);
	return terminal;
}

/** Pi's footer: the last lines of the screen. */
function footer(screen: string): string {
	return screen.trimEnd().split("\n").slice(-3).join("\n");
}

/** Waits until Pi is up with the demo notice above its editor and a Cursor model in the footer. */
async function waitForReady(terminal: TmuxSession): Promise<string> {
	return terminal.waitForScreen(
		(screen) => screen.includes("scripted by a local fake Cursor backend") && footer(screen).includes("cursor:"),
		"Pi's editor with the demo notice",
	);
}

/** After the demo ended: no process of it is left and only the user's (untouched) folders remain. */
async function expectNothingLeft(machine: Machine, demo: string): Promise<void> {
	const demoHome = { dir: join(demo, "home") } as TempHome;
	expect(await waitNoProcesses([demoHome])).toEqual([]);
	expect(descendantProcesses()).toEqual([]);
	expect(existsSync(demo)).toBe(false);
	expect(readdirSync(machine.tmp)).toEqual([]);
	expect(readdirSync(machine.home)).toEqual([]);
}

test(
	"the TUI shows the demo notice, a Cursor model in the footer and the scripted answer; ctrl+d leaves nothing",
	async () => {
		const machine = userMachine();
		const terminal = startDemo(machine, true);
		const ready = await waitForReady(terminal);
		expect(ready).toContain("pi-cursor-sdk");
		expect(ready).toContain("the real Cursor SDK (cursor/composer-2)");
		expect(ready).toContain("export CURSOR_API_KEY=…; npm start");
		expect(footer(ready)).toContain("composer-2");
		const demo = demoFolder(machine);
		expect(existsSync(join(demo, "workspace", DEMO_FILE))).toBe(true);

		terminal.type("What is this?");
		terminal.press("Enter");
		const answered = await terminal.waitForScreen(
			(screen) => screen.includes(DEMO_ANSWER_START) && screen.includes("Every message you send gets this same"),
			"the scripted answer",
		);
		expect(answered).toContain("nothing was sent to Cursor");
		expect(answered).toContain(`read ${DEMO_FILE}`);
		expect(footer(answered)).toContain("composer-2");
		expect(footer(answered)).toContain("cursor:local");

		// The next model (ctrl+p): the notice names it, as the footer does.
		terminal.press("C-p");
		const switched = await terminal.waitForScreen(
			(screen) => /the real Cursor SDK \(cursor\/(?!composer-2\))/.test(screen),
			"the notice naming the next model",
		);
		const next = /the real Cursor SDK \(cursor\/([^)]+)\)/.exec(switched)?.[1] ?? "";
		expect(footer(switched)).toContain(next.replace(/:.*$/, ""));

		terminal.press("C-d");
		const ended = await terminal.waitForScreen((screen) => screen.includes("demo exited: 0"), "the demo's end");
		expect(ended).not.toContain("To resume this session");
		terminal.kill();
		await expectNothingLeft(machine, demo);
	},
	TIMEOUT_MS,
);

test(
	"SIGTERM to the demo ends Pi and the fake backend and removes the demo folder",
	async () => {
		const machine = userMachine();
		const terminal = startDemo(machine);
		await waitForReady(terminal);
		const demo = demoFolder(machine);

		process.kill(terminal.panePid(), "SIGTERM");
		expect(await terminal.waitClosed(20_000)).toBe(true);
		await expectNothingLeft(machine, demo);
	},
	TIMEOUT_MS,
);

test(
	"print mode prints the scripted answer, with the notice on stderr",
	async () => {
		const machine = userMachine();
		const { code, stdout, stderr } = await runProcess(
			"node",
			["build/demo.mjs", "--no-build", "-p", "hello", "/cursor-usage refresh"],
			{ cwd: REPO_ROOT, env: machine.env, timeoutMs: TIMEOUT_MS },
		);
		expect({ code, stderr: stderr.includes("nothing is sent to Cursor") }).toEqual({ code: 0, stderr: true });
		expect(stdout).toStartWith(DEMO_ANSWER_START);
		// The scripted turn reports 1800 input and 120 output tokens (build/demo-script.mjs); Cursor "billed" that.
		expect(stderr).toContain("raw input 1800 (cache read 0, cache write 0) · output 120");
		expect(stderr).toContain(
			"billed: 1920 tokens (input 1800, cache read 0, cache write 0, output 120) · cost $0.0000, charged $0.0000",
		);
		expect(stdout).not.toContain("nothing is sent to Cursor");
		expect(`${stdout}${stderr}`).not.toContain("key_users_own_must_not_be_used");
		expect(readdirSync(machine.tmp)).toEqual([]);
		expect(readdirSync(machine.home)).toEqual([]);
	},
	TIMEOUT_MS,
);
