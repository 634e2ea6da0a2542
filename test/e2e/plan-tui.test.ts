// Plan, then build, in the real TUI (Pi in tmux, the real SDK against the fake backend): a plan-mode turn ends with
// Cursor's plan as a readable card and the Build it / Keep planning / Dismiss choices; Build it starts an agent-mode
// turn on the same Cursor agent without retyping anything, and the footer drops `· plan`.
import { afterAll, expect, test } from "bun:test";
import { BUILD_PROMPT } from "../../src/plan/approval.ts";
import { turnSuite, waitNoProcesses } from "../support/pi-turn.ts";
import { BUILD_ANSWER, BUILD_RUN, PLAN_RUN } from "../support/plan-runs.ts";
import { piTerminal, type TmuxSession } from "../support/tmux.ts";

const suite = turnSuite({ scenarioMap: { "[[plan:tui]]": PLAN_RUN, [BUILD_PROMPT]: BUILD_RUN } });
const { homes } = suite;
let terminal: TmuxSession | undefined;

afterAll(() => {
	terminal?.kill();
});

/** The footer's Cursor status line. */
const footer = (screen: string) => screen.split("\n").find((line) => line.includes("cursor:local")) ?? "";

/** Sends a plan-mode prompt and waits for the plan's choices (the `n`-th Cursor run). */
async function planTurn(terminal: TmuxSession, prompt: string, n: number): Promise<string> {
	terminal.type(prompt);
	terminal.press("Enter");
	await suite.backend.waitForRuns((runs) => runs.length >= n);
	return terminal.waitForScreen(
		(text) => text.includes("Build it") && text.includes("Keep planning") && text.includes("Dismiss"),
		`the choices of plan ${n}`,
	);
}

test("a plan-mode turn ends with the plan card and three choices; Keep planning and Dismiss stay in plan mode; Build it builds on the same agent and leaves plan mode", async () => {
	terminal = piTerminal(suite.home(), ["--model", "cursor/composer-2"], { env: suite.env(), height: 80 });
	await terminal.waitForScreen((text) => text.includes("cursor:local"), "Pi's footer");
	// The trailing space leaves no argument completion open, so Enter submits instead of completing.
	terminal.type("/cursor-mode plan ");
	terminal.press("Enter");
	await terminal.waitForScreen((text) => footer(text).endsWith("· plan"), "the footer's plan mode");

	const offered = await planTurn(terminal, "[[plan:tui]] Plan a /hello command", 1);
	// The plan card: its title in the header, then steps and files; the choices below it.
	expect(offered).toMatch(/Cursor plan\s+Add a \/hello command/);
	expect(offered).toContain("1. Create `src/hello.ts` with the handler");
	expect(offered).toContain("Files: src/hello.ts, src/commands.ts, test/hello.test.ts");
	expect(offered).toContain("Cursor's plan: Add a /hello command");
	expect(offered.indexOf("Files: src/hello.ts")).toBeLessThan(offered.indexOf("Build it"));

	terminal.press("Down");
	terminal.press("Enter"); // Keep planning
	let screen = await terminal.waitForScreen((text) => text.includes("Still in plan mode"), "Keep planning's note");
	expect(screen).not.toContain("Keep planning");
	expect(footer(screen)).toEndWith("· plan");

	await planTurn(terminal, "[[plan:tui]] Also log each greeting", 2);
	terminal.press("Escape"); // Dismiss
	screen = await terminal.waitForScreen((text) => text.includes("Plan kept"), "Dismiss's note");
	expect(footer(screen)).toEndWith("· plan");
	expect(await suite.backend.runRequests()).toHaveLength(2); // nothing is sent without the user's choice

	await planTurn(terminal, "[[plan:tui]] Good, one more look", 3);
	terminal.press("Enter"); // Build it is the first choice
	const built = await terminal.waitForScreen((text) => text.includes(BUILD_ANSWER), "the build turn's answer");
	expect(built).toContain(BUILD_PROMPT); // sent for the user, shown as their message
	expect(footer(built)).toContain("cursor:local");
	expect(footer(built)).not.toContain("plan");

	const runs = await suite.backend.runRequests();
	expect(runs.map((r) => r.mode)).toEqual(["plan", "plan", "plan", "agent"]);
	expect(new Set(runs.map((r) => r.conversationId)).size).toBe(1); // one Cursor agent throughout
	const build = runs[3];
	expect(build?.text).toContain(BUILD_PROMPT);
	expect(build?.text).not.toContain("one more look"); // incremental: only the follow-up

	terminal.press("C-d");
	expect(await terminal.waitClosed(20_000)).toBe(true);
	expect(await waitNoProcesses(homes.homes)).toEqual([]);
}, 150_000);

test("a run started with --cursor-mode plan offers Build it too: it switches the run to agent mode, and the note, the footer and the build request agree", async () => {
	const args = ["--model", "cursor/composer-2", "--cursor-mode", "plan"];
	terminal = piTerminal(suite.home(), args, { env: suite.env(), height: 60 });
	await terminal.waitForScreen((text) => footer(text).endsWith("· plan"), "the footer's plan mode");
	const before = (await suite.backend.runRequests()).length;
	await planTurn(terminal, "[[plan:tui]] Plan a /hello command", before + 1);
	terminal.press("Enter"); // Build it
	const built = await terminal.waitForScreen((text) => text.includes(BUILD_ANSWER), "the build turn's answer");
	expect(built.replace(/\s+/g, " ")).toContain("Cursor mode set to agent for this session");
	expect(footer(built)).toContain("cursor:local");
	expect(footer(built)).not.toContain("plan");
	const runs = (await suite.backend.runRequests()).slice(before);
	expect(runs.map((r) => r.mode)).toEqual(["plan", "agent"]);
	expect(runs[1]?.text).toContain(BUILD_PROMPT);

	terminal.press("C-d");
	expect(await terminal.waitClosed(20_000)).toBe(true);
	expect(await waitNoProcesses(homes.homes)).toEqual([]);
}, 150_000);
