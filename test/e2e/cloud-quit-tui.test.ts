// Quitting Pi in the real TUI (tmux, the real SDK against the cloud fake) while a Cursor Cloud run is in flight: Pi
// asks once. "Leave it running" (the default) quits without cancelling anything, and the next `pi -c` collects the
// run's answer; "Stop it" makes Cursor cancel the run before Pi quits. One Pi start per choice, one per host.
import { afterAll, expect, test } from "bun:test";
import { cloudFakeForFile, type RequestLogEntry, type Scenario } from "../support/cloud-fake/client.ts";
import { runPi } from "../support/pi.ts";
import { HomeRegistry, NO_RETRY, withOutput } from "../support/pi-turn.ts";
import { piTerminal, type TmuxSession } from "../support/tmux.ts";

const REPO = "https://github.com/acme/app";
const LATE_ANSWER = "Finished after Pi quit.";
const SCENARIOS: Record<string, Scenario> = {
	"[[turn]]": {
		steps: [{ text: "Working on it. " }, { gate: "turn" }, { text: LATE_ANSWER }],
		result: { git: { branches: [{ repoUrl: REPO, branch: "cursor/late", prUrl: `${REPO}/pull/3` }] } },
	},
	"[[background]]": { steps: [{ text: "Started. " }, { gate: "background" }, { text: "Never reached." }] },
	"[[answer]]": { steps: [{ text: "Next answer." }] },
};
const cloud = cloudFakeForFile(SCENARIOS);
const homes = new HomeRegistry();
const terminals: TmuxSession[] = [];
const CLOUD_ARGS = ["--model", "cursor/composer-2", "--cursor-runtime", "cloud", "--cursor-cloud-ack"];
const env = () => cloud.fake.piEnv({ PI_CURSOR_CLOUD_REPO: REPO });

afterAll(() => {
	for (const terminal of terminals) terminal.kill();
	homes.removeAll();
});

const api = (log: RequestLogEntry[]) => log.filter((r) => r.path.startsWith("/v1/agents"));
const QUESTION = "still in flight";

test("ctrl+d during a cloud turn asks; leaving it running cancels nothing, and `pi -c` collects its answer", async () => {
	const home = homes.create(NO_RETRY);
	const terminal = piTerminal(home, CLOUD_ARGS, { env: env(), height: 50 });
	terminals.push(terminal);
	await terminal.waitForScreen((text) => text.includes("cursor:cloud"), "Pi's cloud footer");
	terminal.type("Fix the login [[turn]]");
	terminal.press("Enter");
	await terminal.waitForScreen((text) => text.includes("Working on it."), "the run streaming");

	terminal.press("C-d");
	const asked = await terminal.waitForScreen((text) => text.includes(QUESTION), "the quit question");
	expect(asked).toContain("Leave it running on Cursor");
	expect(asked).toContain("Stop it on Cursor, then quit");
	expect(terminal.open).toBe(true); // nothing quits before the answer
	terminal.press("Enter"); // the default: leave it running
	expect(await terminal.waitClosed(30_000)).toBe(true);

	const log = api(await cloud.fake.requests());
	expect(log.filter((r) => r.route === "cancel")).toEqual([]);
	const agents = await cloud.fake.agents();
	expect(agents).toHaveLength(1);
	expect(agents[0]?.runs[0]?.status).toBe("RUNNING");

	await cloud.fake.openGate("turn");
	const next = await runPi([...CLOUD_ARGS, "-c", "-p", "And now? [[answer]]"], { home, env: env() });
	withOutput(next, () => {
		expect(next.code).toBe(0);
		expect(next.stdout).toContain("Next answer.");
		expect(next.stderr.split(LATE_ANSWER)).toHaveLength(2); // the left run's answer, once
		expect(next.stderr).toContain(`${REPO}/pull/3`);
	});
	const all = api(await cloud.fake.requests());
	expect(all.filter((r) => r.method === "POST" && r.path === "/v1/agents")).toHaveLength(1);
	expect(all.filter((r) => r.route === "cancel")).toEqual([]);
}, 150_000);

test("/quit with a background agent running (Pi 0.87.1): choosing Stop cancels its run on Cursor, then Pi quits", async () => {
	const home = homes.create(NO_RETRY);
	const terminal = piTerminal(home, CLOUD_ARGS, { env: env(), height: 50, pi: "pi@0.87.1" });
	terminals.push(terminal);
	await terminal.waitForScreen((text) => text.includes("cursor:cloud"), "Pi's cloud footer");
	terminal.type("/cursor-cloud launch Tidy the docs [[background]]");
	terminal.press("Enter");
	await terminal.waitForScreen((text) => text.includes("☁ 1 cloud run"), "the footer count");

	terminal.type("/quit");
	terminal.press("Enter");
	await terminal.waitForScreen((text) => text.includes(QUESTION), "the quit question");
	expect(api(await cloud.fake.requests()).filter((r) => r.route === "cancel")).toEqual([]);
	terminal.press("Down");
	terminal.press("Enter"); // Stop it on Cursor, then quit
	expect(await terminal.waitClosed(30_000)).toBe(true);

	const agents = await cloud.fake.agents();
	expect(agents).toHaveLength(1);
	const cancels = api(await cloud.fake.requests()).filter((r) => r.route === "cancel");
	expect(cancels).toHaveLength(1);
	expect(cancels[0]?.runId).toBe(agents[0]?.runs[0]?.id);
	expect(agents[0]?.runs[0]?.status).toBe("CANCELLED");
}, 150_000);
