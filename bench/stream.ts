// Streaming benchmark: time to first token and the cost of 10,000 text deltas through pi-cursor-sdk in a real
// `pi --mode json` run (Pi 1.6.0 on Node 24, built bundle, real @cursor/sdk, loopback fake Cursor backend), versus a
// bare @cursor/sdk script (bench/fixtures/bare-sdk-stream.mjs, Node 24) consuming the same fake stream. A third
// column shows Pi's own floor (Pi's faux provider streaming as many deltas, no SDK). Printed, never asserted.
//
// Run (after building the bundle):
//   node build/toolchain.mjs --run bun build/bundle.ts
//   node build/toolchain.mjs --run bun bench/stream.ts
// Knobs: BENCH_RUNS (interleaved runs per variant, default 3), BENCH_DELTAS (default 10000),
// BENCH_TIMEOUT_MS (bound of one run, default 30000; an overrunning run is killed and reported from what it got).
//
// Times are taken on this process's clock when a line arrives on the child's stdout:
// - TTFT (spawn): process start → first text delta visible.
// - TTFT (stream): the fake backend starts the RunSSE stream → first text delta visible.
// - deltas: first → last text delta visible (">" when the run was killed first).
// - per delta: first → latest delta seen, divided by the deltas in between (comparable for killed runs).
// - total: process start → exit.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeBackend, Step } from "../test/support/fake-backend/client.ts";
import { startTurnBackend, TEST_KEY } from "../test/support/pi-turn.ts";
import { BUNDLE, ensureTool, REPO_ROOT } from "../test/support/toolchain.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const DELTAS = Number(process.env.BENCH_DELTAS ?? 10000);
const RUN_TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 30_000);
const WARM_DELTAS = 10;
const MARKER = "[[bench:stream]]";
const WARM_MARKER = "[[bench:warm]]";

interface Sample {
	spawnAt: number;
	firstAt?: number;
	lastAt?: number;
	/** The latest delta seen (count and arrival), for runs killed before the last delta. */
	seen: number;
	seenAt?: number;
	exitAt?: number;
	killed: boolean;
	/** Absolute time the fake began the RunSSE stream (none for the faux floor). */
	streamAt?: number;
}

type LineHandler = (line: string, at: number, sample: Sample, expected: number) => void;

function runChild(
	command: string[],
	env: Record<string, string>,
	cwd: string,
	expected: number,
	onLine: LineHandler,
): Promise<Sample> {
	const [program = "", ...args] = command;
	const sample: Sample = { spawnAt: Date.now(), seen: 0, killed: false };
	const child = spawn(program, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
	let buffer = "";
	let stderr = "";
	child.stdout.on("data", (chunk: Buffer) => {
		const at = Date.now();
		buffer += chunk.toString();
		let newline = buffer.indexOf("\n");
		while (newline >= 0) {
			onLine(buffer.slice(0, newline), at, sample, expected);
			buffer = buffer.slice(newline + 1);
			newline = buffer.indexOf("\n");
		}
	});
	child.stderr.on("data", (chunk: Buffer) => {
		stderr = (stderr + chunk.toString()).slice(-4000);
	});
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			sample.killed = true;
			child.kill("SIGKILL");
		}, RUN_TIMEOUT_MS);
		child.on("close", (code) => {
			clearTimeout(timer);
			sample.exitAt = Date.now();
			if (code !== 0 && !sample.killed) reject(new Error(`${command.slice(1).join(" ")} exited ${code}\n${stderr}`));
			else resolve(sample);
		});
	});
}

function sawDelta(sample: Sample, count: number, at: number, expected: number): void {
	sample.seen = count;
	sample.seenAt = at;
	if (count === 1) sample.firstAt = at;
	if (count === expected) sample.lastAt = at;
}

/** Pi's JSON event lines: every text delta. */
const piLines: LineHandler = (line, at, sample, expected) => {
	if (!line.startsWith("{") || !line.includes('"text_delta"')) return;
	const record = JSON.parse(line) as { type?: string; assistantMessageEvent?: { type?: string } };
	if (record.type === "message_update" && record.assistantMessageEvent?.type === "text_delta") {
		sawDelta(sample, sample.seen + 1, at, expected);
	}
};

/** The bare script's own event lines (first, every 100th, last). */
const bareLines: LineHandler = (line, at, sample, expected) => {
	if (!line.startsWith('{"event"')) return; // the SDK's own log lines share stdout here
	const record = JSON.parse(line) as { event: string; deltas?: number };
	if (record.event === "first") sawDelta(sample, 1, at, expected);
	if (record.event === "progress") sawDelta(sample, record.deltas ?? 0, at, expected);
	if (record.event === "last") sawDelta(sample, expected, at, expected);
};

const median = (xs: number[]) => {
	const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
	return s.length === 0 ? Number.NaN : (s[Math.floor(s.length / 2)] ?? Number.NaN);
};

function textSteps(count: number): Step[] {
	const steps: Step[] = [{ stepStarted: 1 }];
	for (let i = 0; i < count; i++) steps.push({ text: i === 0 ? "first " : "tok " });
	steps.push({ stepCompleted: 1 }, { turnEnded: { inputTokens: 1000, outputTokens: count } });
	return steps;
}

type Variant = (deltas: number, marker: string) => Promise<Sample>;

async function main(): Promise<void> {
	const node = ensureTool("node24");
	const pi = ensureTool("pi@1.6.0");
	const backend: FakeBackend = await startTurnBackend({
		scenarioMap: {
			[MARKER]: { name: "bench", steps: textSteps(DELTAS) },
			[WARM_MARKER]: { steps: textSteps(WARM_DELTAS) },
		},
	});
	const health = (await (await fetch(`${backend.url}/__fake/health`)).json()) as { startedAt: number };
	const root = mkdtempSync(join(tmpdir(), "bench-stream-"));
	const home = join(root, "home");
	const agentDir = join(home, ".pi", "agent");
	mkdirSync(agentDir, { recursive: true });
	mkdirSync(join(root, "tmp"));
	const baseEnv: Record<string, string> = {
		PATH: process.env.PATH ?? "/usr/bin:/bin",
		HOME: home,
		TMPDIR: join(root, "tmp"),
		PI_CODING_AGENT_DIR: agentDir,
		PI_OFFLINE: "1",
		PI_SKIP_VERSION_CHECK: "1",
		PI_TELEMETRY: "0",
		CURSOR_BACKEND_URL: backend.url,
		CURSOR_API_KEY: TEST_KEY,
	};
	const env = (deltas: number, marker: string, extra: Record<string, string> = {}) => ({
		...baseEnv,
		BENCH_DELTAS: String(deltas),
		BENCH_PROMPT: `${marker} go`,
		...extra,
	});
	const withStreamStart = async (sample: Sample) => {
		const run = (await backend.runs()).at(-1);
		if (run) sample.streamAt = health.startedAt + run.startedAt;
		return sample;
	};
	const bare = join(REPO_ROOT, "bench", "fixtures", "bare-sdk-stream.mjs");

	const variants: Record<string, Variant> = {
		"bare SDK": async (deltas, marker) =>
			withStreamStart(await runChild([node, bare], env(deltas, marker), root, deltas, bareLines)),
		"pi+ours": async (deltas, marker) => {
			const args = [pi, "-ne", "-e", BUNDLE, "--no-session", "--model", "cursor/composer-2.5", "--mode", "json"];
			return withStreamStart(
				await runChild([node, ...args, `${marker} go`], env(deltas, marker), root, deltas, piLines),
			);
		},
		"pi+faux": (deltas, marker) => {
			const faux = join(REPO_ROOT, "bench", "fixtures", "faux-stream-extension.js");
			const args = [pi, "-ne", "-e", faux, "--no-session", "--model", "faux/faux-1", "--mode", "json", "go"];
			return runChild([node, ...args], env(deltas, marker), root, deltas, piLines);
		},
	};

	const samples: Record<string, Sample[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
	try {
		for (const run of Object.values(variants)) await run(WARM_DELTAS, WARM_MARKER); // compile caches, SDK state dirs
		for (let i = 0; i < RUNS; i++) {
			for (const [name, run] of Object.entries(variants)) samples[name]?.push(await run(DELTAS, MARKER));
		}
	} finally {
		await backend.stop();
		rmSync(root, { recursive: true, force: true });
	}

	const names = Object.keys(variants);
	const metric = (name: string, f: (s: Sample) => number | undefined) =>
		median((samples[name] ?? []).map((s) => f(s) ?? Number.NaN));
	const anyKilled = (name: string) => (samples[name] ?? []).some((s) => s.lastAt === undefined);
	const rows: [string, (s: Sample) => number | undefined, (x: number, name: string) => string][] = [
		["TTFT (spawn)", (s) => (s.firstAt ? s.firstAt - s.spawnAt : undefined), (x) => `${x.toFixed(0)} ms`],
		[
			"TTFT (stream)",
			(s) => (s.firstAt && s.streamAt ? s.firstAt - s.streamAt : undefined),
			(x) => `${x.toFixed(0)} ms`,
		],
		[
			`${DELTAS} deltas`,
			(s) => (s.firstAt && s.lastAt ? s.lastAt - s.firstAt : undefined),
			(x) => `${x.toFixed(0)} ms`,
		],
		[
			"per delta",
			(s) => (s.firstAt && s.seenAt && s.seen > 1 ? (s.seenAt - s.firstAt) / (s.seen - 1) : undefined),
			(x) => `${x.toFixed(3)} ms`,
		],
		[
			"total",
			(s) => (s.exitAt ? s.exitAt - s.spawnAt : undefined),
			(x, name) => `${anyKilled(name) ? ">" : ""}${x.toFixed(0)} ms`,
		],
	];
	const cell = (text: string) => text.padStart(12);
	const ratio = (a: number, b: number) =>
		Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}x` : "—";

	console.log(
		`Streaming ${DELTAS} text deltas, Pi 1.6.0 on Node 24, median of ${RUNS} interleaved runs (bound ${RUN_TIMEOUT_MS} ms each):`,
	);
	console.log(`  ${"".padEnd(15)}${names.map(cell).join("")}${cell("ours/bare")}${cell("ours/faux")}`);
	for (const [label, f, format] of rows) {
		const values = names.map((name) => metric(name, f));
		const shown = values.map((x, i) => cell(Number.isFinite(x) ? format(x, names[i] ?? "") : "—"));
		const [bareValue = Number.NaN, ours = Number.NaN, faux = Number.NaN] = values;
		console.log(`  ${label.padEnd(15)}${shown.join("")}${cell(ratio(ours, bareValue))}${cell(ratio(ours, faux))}`);
	}
	const seen = names.map(
		(name) => `${name} ${(samples[name] ?? []).map((s) => `${s.seen}${s.killed ? " (killed)" : ""}`).join("/")}`,
	);
	console.log(`  target: ours/bare ≤ 1.05x. Deltas seen per run: ${seen.join("; ")}`);
}

await main();
