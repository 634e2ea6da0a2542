// Background-agents TUI benchmark: keypress-to-render latency in Pi's real TUI (tmux, built bundle, real @cursor/sdk
// against the loopback cloud fake), while the session is idle and while BENCH_FLEET_AGENTS background Cursor Cloud
// agents (`/cursor-cloud launch`) work: each run produces a line of text every 100 ms on the fake, and Pi streams every
// one of them into its line above the editor (and counts them in the footer) as users get it. One character is typed at a time; its latency is the time until
// tmux shows it in Pi's editor (the screen is polled every 2 ms, so each figure carries up to ~2 ms of polling, and
// tmux's own capture time, equally in both phases). Printed, never asserted.
//
// Run (after building the bundle):
//   node build/toolchain.mjs --run bun build/bundle.ts
//   node build/toolchain.mjs --run bun bench/fleet-tui.ts
// Knobs: BENCH_FLEET_AGENTS (default 10), BENCH_FLEET_KEYS (keypresses per phase, default 40).
import { startCloudFake } from "../test/support/cloud-fake/client.ts";
import type { Step } from "../test/support/cloud-fake/scenario.ts";
import { HomeRegistry } from "../test/support/pi.ts";
import { NO_RETRY } from "../test/support/pi-turn.ts";
import { piTerminal, type TmuxSession } from "../test/support/tmux.ts";

const AGENTS = Number(process.env.BENCH_FLEET_AGENTS ?? 10);
const KEYS = Number(process.env.BENCH_FLEET_KEYS ?? 40);
const REPO = "https://github.com/acme/app";
/** Each agent streams about a minute of text, a line every 100 ms, then finishes with a branch and pull request. */
const STREAM: Step[] = Array.from({ length: 600 }, (_, i) => [
	{ text: `line ${i} of the work. ` },
	{ delay: 100 },
]).flat();

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const p95 = (values: readonly number[]) =>
	[...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.95))] ?? NaN;

/** Types KEYS characters one at a time into Pi's editor and returns each one's latency until it is on screen. */
async function keypressLatencies(terminal: TmuxSession, tag: string): Promise<number[]> {
	const latencies: number[] = [];
	let typed = `${tag}-`;
	terminal.type(typed);
	await terminal.waitForScreen((screen) => screen.includes(typed), "the editor");
	for (let i = 0; i < KEYS; i++) {
		const key = "abcdefghijklmnopqrstuvwxyz"[i % 26] as string;
		typed += key;
		const start = performance.now();
		terminal.type(key);
		for (;;) {
			if (terminal.screen().includes(typed)) break;
			if (performance.now() - start > 10_000) throw new Error(`key ${i} never rendered:\n${terminal.screen()}`);
			await new Promise((resolve) => setTimeout(resolve, 2));
		}
		latencies.push(performance.now() - start);
	}
	for (let i = 0; i < typed.length; i++) terminal.press("BSpace");
	await terminal.waitForScreen((screen) => !screen.includes(`${tag}-`), "the cleared editor");
	return latencies;
}

async function main(): Promise<void> {
	const fake = await startCloudFake();
	const homes = new HomeRegistry();
	let terminal: TmuxSession | undefined;
	try {
		await fake.setScenarioMap({ "[[bench]]": { steps: STREAM, result: { git: { branches: [{ repoUrl: REPO }] } } } });
		const home = homes.create(NO_RETRY);
		terminal = piTerminal(home, ["--model", "cursor/composer-2.5", "--cursor-cloud-ack", "--cursor-cloud-repo", REPO], {
			env: fake.piEnv(),
			height: 50,
		});
		const session = terminal;
		await session.waitForScreen((screen) => screen.includes("cursor:local"), "Pi's footer");
		const idle = await keypressLatencies(session, "idle");

		for (let n = 1; n <= AGENTS; n++) {
			session.type(`/cursor-cloud launch Task ${n} [[bench]]`);
			session.press("Enter");
			await session.waitForScreen(
				(screen) => screen.includes(`☁ ${n} cloud run${n === 1 ? "" : "s"}`),
				`the footer counting ${n} runs`,
			);
		}
		const agents = await fake.agents();
		const running = agents.filter((a) => a.runs.some((r) => r.status === "RUNNING")).length;
		const busy = await keypressLatencies(session, "busy");
		const stillRunning = (await fake.agents()).filter((a) => a.runs.some((r) => r.status === "RUNNING")).length;

		console.log(
			`Keypress to render in Pi's TUI (tmux), ${KEYS} keys per phase: ms median / p95 / max`,
			`\n  idle session                         ${median(idle).toFixed(1)} / ${p95(idle).toFixed(1)} / ${Math.max(...idle).toFixed(1)}`,
			`\n  ${String(running).padStart(2)} background agents working       ${median(busy).toFixed(1)} / ${p95(busy).toFixed(1)} / ${Math.max(...busy).toFixed(1)}`,
			`\n  (agents running on the fake when the busy phase began: ${running}, when it ended: ${stillRunning})`,
		);
	} finally {
		terminal?.kill();
		homes.removeAll();
		await fake.stop();
	}
}

await main();
