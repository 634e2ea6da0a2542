// A prompt to a busy Cursor Cloud agent in the real TUI (tmux, the real SDK against the cloud fake): when `pi -c`
// finds the branch's agent still working on a run an earlier Pi left going, the next prompt asks what to do, and each
// choice does what it says. One chain in one home: each Pi start leaves a run going (ctrl+d, "leave it running") for
// the next one to be busy with, then answers one choice:
//   stop it, then send → the fake logs the cancel of the left run, then the follow-up on the same agent;
//   wait, then send   → nothing is sent while the left run goes on; the follow-up comes once it has finished;
//   a new agent       → a second `POST /v1/agents`, and the left run is neither cancelled nor waited for.
import { afterAll, expect, test } from "bun:test";
import { BUSY_OPTIONS } from "../../src/fleet/busy.ts";
import { cloudFakeForFile, type RequestLogEntry, type Scenario } from "../support/cloud-fake/client.ts";
import type { TempHome } from "../support/pi.ts";
import { HomeRegistry, NO_RETRY } from "../support/pi-turn.ts";
import { piTerminal, type TmuxSession } from "../support/tmux.ts";

const REPO = "https://github.com/acme/app";
const gated = (n: number): Scenario => ({
	steps: [{ text: `Working ${n}. ` }, { gate: `g${n}` }, { text: `Done ${n}.` }],
});
const cloud = cloudFakeForFile({
	"[[g1]]": gated(1),
	"[[g2]]": gated(2),
	"[[g3]]": gated(3),
	"[[answer]]": { steps: [{ text: "Answered by a new agent." }] },
});
const homes = new HomeRegistry();
const terminals: TmuxSession[] = [];
const CLOUD_ARGS = ["--model", "cursor/composer-2", "--cursor-runtime", "cloud", "--cursor-cloud-ack"];
const BUSY = "is still working on an earlier run";

afterAll(() => {
	for (const terminal of terminals) terminal.kill();
	homes.removeAll();
});

const api = async () => (await cloud.fake.requests()).filter((r: RequestLogEntry) => r.path.startsWith("/v1/agents"));
const label = (choice: string) => BUSY_OPTIONS.find((o) => o.choice === choice)?.label ?? choice;

async function pi(home: TempHome, resume: boolean): Promise<TmuxSession> {
	const env = cloud.fake.piEnv({ PI_CURSOR_CLOUD_REPO: REPO });
	const terminal = piTerminal(home, [...CLOUD_ARGS, ...(resume ? ["-c"] : [])], { env, height: 50 });
	terminals.push(terminal);
	const ready = resume ? "☁ 1 cloud run" : "cursor:cloud";
	await terminal.waitForScreen((text) => text.includes(ready), resume ? "the left run in the footer" : "Pi's footer");
	return terminal;
}

/** Sends `prompt`; when the agent is busy, answers the question with the option `choice` (by its place). */
async function prompt(terminal: TmuxSession, text: string, choice?: "wait" | "stop" | "new"): Promise<void> {
	terminal.type(text);
	terminal.press("Enter");
	if (!choice) return;
	const asked = await terminal.waitForScreen((screen) => screen.includes(BUSY), "the busy question");
	for (const option of BUSY_OPTIONS) expect(asked).toContain(option.label);
	const index = BUSY_OPTIONS.findIndex((o) => o.choice === choice);
	for (let i = 0; i < index; i++) terminal.press("Down");
	await terminal.waitForScreen((screen) => screen.includes(`→ ${label(choice)}`), `"${label(choice)}" selected`);
	terminal.press("Enter");
}

/** ctrl+d, "leave it running": the run goes on for the next Pi. */
async function quitLeaving(terminal: TmuxSession): Promise<void> {
	terminal.press("C-d");
	await terminal.waitForScreen((text) => text.includes("still in flight"), "the quit question");
	terminal.press("Enter");
	expect(await terminal.waitClosed(30_000)).toBe(true);
}

test("a prompt to the branch's busy agent: stop then send, wait then send, or a new agent, each as chosen", async () => {
	const home = homes.create(NO_RETRY);
	const first = await pi(home, false);
	await prompt(first, "One [[g1]]");
	await first.waitForScreen((text) => text.includes("Working 1."), "the first run streaming");
	await quitLeaving(first);
	const [agent] = await cloud.fake.agents();
	const runOf = async (n: number) => (await cloud.fake.agents())[0]?.runs[n - 1];

	// Stop it, then send: the left run is cancelled, then the prompt goes to the same agent.
	const stopping = await pi(home, true);
	// The left run has a line of its own, with the text it streamed (replayed from its start).
	const runLine = (screen: string) => screen.split("\n").some((l) => l.includes(`☁ ${agent?.id}: Working 1.`));
	await stopping.waitForScreen(runLine, "the left run's line");
	await prompt(stopping, "Two [[g2]]", "stop");
	await stopping.waitForScreen((text) => text.includes("Working 2."), "the second run streaming");
	let log = await api();
	const cancel = log.findIndex((r) => r.route === "cancel");
	const followup = log.findIndex((r) => r.route === "followup");
	expect(log[cancel]?.runId).toBe((await runOf(1))?.id);
	expect(cancel).toBeLessThan(followup);
	expect(log[followup]?.agentId).toBe(agent?.id);
	expect((await runOf(1))?.status).toBe("CANCELLED");
	await quitLeaving(stopping);

	// Wait, then send: nothing is sent until the left run has finished on its own.
	const waiting = await pi(home, true);
	await prompt(waiting, "Three [[g3]]", "wait");
	await waiting.waitForScreen((text) => text.includes("Waiting for Cursor Cloud agent"), "the wait notice");
	expect((await api()).filter((r) => r.route === "followup")).toHaveLength(1);
	await cloud.fake.openGate("g2");
	await waiting.waitForScreen((text) => text.includes("Working 3."), "the third run streaming");
	expect((await runOf(2))?.status).toBe("FINISHED");
	log = await api();
	expect(log.filter((r) => r.route === "followup")).toHaveLength(2);
	expect(log.filter((r) => r.route === "cancel")).toHaveLength(1);
	await quitLeaving(waiting);

	// A new agent: a second agent answers; the left run goes on, neither cancelled nor waited for.
	const fresh = await pi(home, true);
	await prompt(fresh, "Four [[answer]]", "new");
	await fresh.waitForScreen((text) => text.includes("Answered by a new agent."), "the new agent's answer");
	log = await api();
	expect(log.filter((r) => r.method === "POST" && r.path === "/v1/agents")).toHaveLength(2);
	expect(log.filter((r) => r.route === "cancel")).toHaveLength(1);
	expect((await runOf(3))?.status).toBe("RUNNING");
}, 240_000);
