// Startup benchmark: wall time of `pi --list-models cursor` with our extension vs. without it (and vs. the floor of
// an extension that only imports @cursor/sdk). Interleaved runs, warm caches, medians. Run: `npm run bench`.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUNDLE, ensureTool, REPO_ROOT } from "../test/support/toolchain.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const home = mkdtempSync(join(tmpdir(), "bench-list-models-"));
mkdirSync(join(home, "tmp"));
const env = {
	PATH: process.env.PATH ?? "/usr/bin:/bin",
	HOME: home,
	TMPDIR: join(home, "tmp"),
	PI_OFFLINE: "1",
	PI_SKIP_VERSION_CHECK: "1",
	PI_TELEMETRY: "0",
	CURSOR_API_KEY: "key_bench",
};
const pi = [ensureTool("node24"), ensureTool("pi@1.6.0")];
const variants: Record<string, string[]> = {
	"without extension": [],
	"sdk import only": ["-e", join(REPO_ROOT, "bench", "fixtures", "sdk-only-extension.js")],
	"with pi-cursor-sdk": ["-e", BUNDLE],
};

function timeOnce(extra: string[]): number {
	const start = performance.now();
	const [program = "", ...prefix] = pi;
	const result = spawnSync(program, [...prefix, "-ne", ...extra, "--list-models", "cursor"], { env, stdio: "ignore" });
	if (result.status !== 0) throw new Error(`pi exited ${result.status}`);
	return performance.now() - start;
}

const median = (xs: number[]) => {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.floor(s.length / 2)] ?? Number.NaN;
};

export function runListModelsBench(): Record<string, number> {
	const samples: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
	for (const extra of Object.values(variants)) timeOnce(extra); // warm Node's compile cache
	for (let i = 0; i < RUNS; i++) {
		for (const [name, extra] of Object.entries(variants)) samples[name]?.push(timeOnce(extra));
	}
	rmSync(home, { recursive: true, force: true });
	return Object.fromEntries(Object.entries(samples).map(([name, xs]) => [name, median(xs)]));
}

if (import.meta.main) {
	const medians = runListModelsBench();
	const base = medians["without extension"] ?? Number.NaN;
	const floor = medians["sdk import only"] ?? Number.NaN;
	const ours = medians["with pi-cursor-sdk"] ?? Number.NaN;
	console.log(`pi --list-models cursor, Pi 1.6.0 on Node 24, median of ${RUNS} interleaved runs each:`);
	for (const [name, ms] of Object.entries(medians)) console.log(`  ${name.padEnd(20)} ${ms.toFixed(0)} ms`);
	console.log(`  ratio with/without extension: ${(ours / base).toFixed(2)}x (target < 1.2x)`);
	console.log(`  ratio with extension/sdk import only: ${(ours / floor).toFixed(2)}x`);
}
