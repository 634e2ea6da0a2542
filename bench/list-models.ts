// Startup benchmark: whole-process wall time of `pi -ne --list-models cursor` (Pi 1.6.0 on Node 24, PI_OFFLINE=1,
// output discarded), interleaved runs, medians; also each process's CPU time (user + system, from /usr/bin/time), which
// other jobs on a shared machine disturb far less than wall time. Printed, never asserted.
//
// Variants:
// - Pi alone: no extension.
// - SDK-only floor: bench/fixtures/sdk-only-extension.js, an extension that only imports @cursor/sdk (as any SDK-based
//   extension must). Our share of startup is measured against it.
// - floor + our rows: the floor plus a provider with our catalog rows ready-made (bench/fixtures/sdk-rows-extension.js):
//   what Pi itself spends registering, merging and listing our rows.
// - ours, installed: the bundle as users install it, `node_modules/pi-cursor-sdk/dist/index.js` with only
//   `@cursor/sdk` beside it (test/support/toolchain.ts stages it). No model cache yet, as before the first refresh.
// - the same with a model cache (every start after a live refresh reads it), written by a live refresh
//   (`pi -p /cursor-refresh-models` against the loopback fake backend serving the catalog): holding the bundled
//   catalog, and holding one that differs from it (Cursor's catalog a few weeks after a release), whose rows the
//   refresh stored beside it.
// - ours, checkout: `dist/index.js` in this checkout, Pi's packages installed beside it (`npm start`, `pi install git:`).
// Each variant has its own TMPDIR. "Warm": Pi's extension loader (jiti) has the transpiled file cached in
// `$TMPDIR/jiti`, as on every start after the first. "First start": that cache is emptied before each run, as after
// an install or upgrade (Node's compile cache for Pi and the SDK stays warm).
//
// Run (after building the bundle): node build/toolchain.mjs --run bun bench/list-models.ts
// Knobs: BENCH_RUNS (warm runs per variant, default 15), BENCH_FIRST_RUNS (first-start runs, default 3).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MODEL_CACHE_FILENAME } from "../src/catalog/cache.ts";
import { FALLBACK_MODELS } from "../src/catalog/fallback-models.generated.ts";
import { CatalogState } from "../src/catalog/state.ts";
import type { CatalogItem } from "../src/catalog/types.ts";
import { startFakeBackend } from "../test/support/fake-backend/client.ts";
import { BUNDLE, ensureTool, REPO_ROOT } from "../test/support/toolchain.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const FIRST_RUNS = Number(process.env.BENCH_FIRST_RUNS ?? 3);
const TIME = "/usr/bin/time";

interface Variant {
	name: string;
	extensions: string[];
	/** Also timed with an empty loader cache. */
	firstStart: boolean;
	/** The catalog our model cache holds in this variant's HOME (none: no cache, as before the first refresh). */
	cachedCatalog?: readonly CatalogItem[];
}

export interface StartupFigures {
	runs: number;
	firstRuns: number;
	rows: number;
	/** Median wall ms per variant name (warm), and with an empty loader cache where measured. */
	warm: Record<string, number>;
	first: Record<string, number>;
	/** Median peak RSS (MiB) per variant, when /usr/bin/time is available. */
	rssMiB: Record<string, number>;
	/**
	 * Median CPU time (user + system ms) per variant, warm, when /usr/bin/time is available: steadier than wall time
	 * on a machine shared with other jobs, which stretch wall times far more than the work itself.
	 */
	cpuMs: Record<string, number>;
}

const median = (xs: readonly number[]) => {
	const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
	return s.length === 0 ? Number.NaN : (s[Math.floor(s.length / 2)] ?? Number.NaN);
};

export const STARTUP = {
	alone: "Pi alone",
	floor: "SDK-only floor",
	rows: "floor + our rows",
	installed: "ours, installed",
	cachedSame: "…, cached = bundled",
	cachedChanged: "…, cached ≠ bundled",
	checkout: "ours, checkout",
} as const;

const KEY = "key_bench";

/** The bundled catalog as Cursor might serve it a few weeks later: one model renamed (every row is built again). */
function changedCatalog(): CatalogItem[] {
	const [first, ...rest] = FALLBACK_MODELS;
	return first ? [{ ...first, displayName: `${first.displayName} (new)` }, ...rest] : [];
}

export async function runStartupBench(): Promise<StartupFigures> {
	const root = mkdtempSync(join(tmpdir(), "bench-startup-"));
	try {
		const models = new CatalogState().models;
		const rowsFile = join(root, "rows.json");
		writeFileSync(rowsFile, JSON.stringify(models));
		const fixture = (name: string) => join(REPO_ROOT, "bench", "fixtures", name);
		const variants: Variant[] = [
			{ name: STARTUP.alone, extensions: [], firstStart: false },
			{ name: STARTUP.floor, extensions: [fixture("sdk-only-extension.js")], firstStart: true },
			{ name: STARTUP.rows, extensions: [fixture("sdk-rows-extension.js")], firstStart: false },
			{ name: STARTUP.installed, extensions: [BUNDLE], firstStart: true },
			{ name: STARTUP.cachedSame, extensions: [BUNDLE], firstStart: false, cachedCatalog: FALLBACK_MODELS },
			{ name: STARTUP.cachedChanged, extensions: [BUNDLE], firstStart: false, cachedCatalog: changedCatalog() },
			{ name: STARTUP.checkout, extensions: [join(REPO_ROOT, "dist", "index.js")], firstStart: true },
		];
		const pi = [ensureTool("node24"), ensureTool("pi@1.6.0")];
		const timed = existsSync(TIME);
		const envOf = (index: number) => {
			const home = join(root, `home-${index}`);
			const tmp = join(home, "tmp");
			mkdirSync(tmp, { recursive: true });
			return {
				PATH: process.env.PATH ?? "/usr/bin:/bin",
				HOME: home,
				TMPDIR: tmp,
				PI_OFFLINE: "1",
				PI_SKIP_VERSION_CHECK: "1",
				PI_TELEMETRY: "0",
				CURSOR_API_KEY: KEY,
				BENCH_ROWS_FILE: rowsFile,
			};
		};
		const backend = await startFakeBackend();
		try {
			for (const [index, variant] of variants.entries()) {
				if (!variant.cachedCatalog) continue;
				await backend.setRest({ models: [...variant.cachedCatalog] });
				const env = { ...envOf(index), PI_OFFLINE: "", CURSOR_BACKEND_URL: backend.url };
				const args = [...pi, "-ne", ...variant.extensions.flatMap((e) => ["-e", e]), "-p", "/cursor-refresh-models"];
				const [program = "", ...rest] = args;
				const result = spawnSync(program, rest, { env, encoding: "utf8" });
				const cache = join(env.HOME, ".pi", "agent", MODEL_CACHE_FILENAME);
				if (result.status !== 0 || !existsSync(cache)) {
					throw new Error(`${variant.name}: the refresh wrote no model cache\n${result.stdout}${result.stderr}`);
				}
				const stored = readFileSync(cache, "utf8").includes('"built"');
				if (stored !== (variant.cachedCatalog !== FALLBACK_MODELS)) {
					throw new Error(`${variant.name}: the refresh ${stored ? "stored" : "did not store"} built rows`);
				}
			}
		} finally {
			await backend.stop();
		}
		const once = (variant: Variant, index: number, emptyCache: boolean) => {
			const env = envOf(index);
			if (emptyCache) rmSync(join(env.TMPDIR, "jiti"), { recursive: true, force: true });
			const args = [...pi, "-ne", ...variant.extensions.flatMap((e) => ["-e", e]), "--list-models", "cursor"];
			const [program = "", ...rest] = timed ? [TIME, "-f", "%M %U %S", ...args] : args;
			const start = performance.now();
			const result = spawnSync(program, rest, { env, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
			const ms = performance.now() - start;
			if (result.status !== 0) throw new Error(`${variant.name}: pi exited ${result.status}\n${result.stderr}`);
			const [rssKiB, user, system] = (result.stderr.trim().split("\n").at(-1) ?? "").split(" ").map(Number);
			return {
				ms,
				rssMiB: timed ? (rssKiB ?? Number.NaN) / 1024 : Number.NaN,
				cpuMs: timed ? ((user ?? Number.NaN) + (system ?? Number.NaN)) * 1000 : Number.NaN,
			};
		};

		const warm = new Map<Variant, number[]>(variants.map((v) => [v, []]));
		const rss = new Map<Variant, number[]>(variants.map((v) => [v, []]));
		const cpu = new Map<Variant, number[]>(variants.map((v) => [v, []]));
		const first = new Map<Variant, number[]>(variants.map((v) => [v, []]));
		for (const [index, variant] of variants.entries()) once(variant, index, false); // fills each variant's caches
		// Rotate the order so no variant always runs right after the same neighbour.
		const rounds = (count: number, run: (variant: Variant, index: number) => void) => {
			for (let round = 0; round < count; round++) {
				for (let k = 0; k < variants.length; k++) {
					const index = (round + k) % variants.length;
					run(variants[index] as Variant, index);
				}
			}
		};
		rounds(RUNS, (variant, index) => {
			const sample = once(variant, index, false);
			warm.get(variant)?.push(sample.ms);
			rss.get(variant)?.push(sample.rssMiB);
			cpu.get(variant)?.push(sample.cpuMs);
		});
		rounds(FIRST_RUNS, (variant, index) => {
			if (variant.firstStart) first.get(variant)?.push(once(variant, index, true).ms);
		});
		const byName = (samples: Map<Variant, number[]>, only?: (v: Variant) => boolean) =>
			Object.fromEntries(variants.filter((v) => only?.(v) ?? true).map((v) => [v.name, median(samples.get(v) ?? [])]));
		return {
			runs: RUNS,
			firstRuns: FIRST_RUNS,
			rows: models.length,
			warm: byName(warm),
			first: byName(first, (v) => v.firstStart),
			rssMiB: byName(rss),
			cpuMs: byName(cpu),
		};
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
}

const ratio = (a: number | undefined, b: number | undefined) =>
	a !== undefined && b !== undefined && b > 0 ? a / b : Number.NaN;

/** Ours ÷ the SDK-only floor, warm, per layout: wall time (the target) and CPU time (the steadier cross-check). */
export function startupRatios(f: StartupFigures): {
	installed: number;
	checkout: number;
	cachedSame: number;
	cachedChanged: number;
	cpuInstalled: number;
	cpuCheckout: number;
} {
	const floor = f.warm[STARTUP.floor];
	const cpuFloor = f.cpuMs[STARTUP.floor];
	return {
		installed: ratio(f.warm[STARTUP.installed], floor),
		checkout: ratio(f.warm[STARTUP.checkout], floor),
		cachedSame: ratio(f.warm[STARTUP.cachedSame], floor),
		cachedChanged: ratio(f.warm[STARTUP.cachedChanged], floor),
		cpuInstalled: ratio(f.cpuMs[STARTUP.installed], cpuFloor),
		cpuCheckout: ratio(f.cpuMs[STARTUP.checkout], cpuFloor),
	};
}

export function printStartup(f: StartupFigures): void {
	const ms = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? `${x.toFixed(0)} ms` : "—");
	const mib = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? `${x.toFixed(0)} MiB` : "—");
	console.log(
		`Startup: pi --list-models cursor (Pi 1.6.0, Node 24), medians of ${f.runs} interleaved runs per variant ` +
			`(first start: ${f.firstRuns}); our catalog has ${f.rows} rows`,
	);
	console.log(
		`  ${"".padEnd(20)}${"warm".padStart(10)}${"first start".padStart(14)}${"peak RSS".padStart(11)}${"CPU (warm)".padStart(12)}`,
	);
	for (const [name, warm] of Object.entries(f.warm)) {
		console.log(
			`  ${name.padEnd(20)}${ms(warm).padStart(10)}${ms(f.first[name]).padStart(14)}${mib(f.rssMiB[name]).padStart(11)}${ms(f.cpuMs[name]).padStart(12)}`,
		);
	}
	const r = startupRatios(f);
	const floor = f.warm[STARTUP.floor];
	const rowsShare = ratio(f.warm[STARTUP.rows], floor);
	console.log(
		`  ours ÷ floor (warm): installed ${r.installed.toFixed(2)}×, checkout ${r.checkout.toFixed(2)}× (target ≤ 1.10×); ` +
			`Pi's own cost of our rows alone: ${rowsShare.toFixed(2)}×`,
	);
	console.log(
		`  ours ÷ floor in CPU time (user + system): installed ${r.cpuInstalled.toFixed(2)}×, checkout ${r.cpuCheckout.toFixed(2)}×`,
	);
	console.log(
		`  installed, with a model cache: ${r.cachedSame.toFixed(2)}× holding the bundled catalog, ` +
			`${r.cachedChanged.toFixed(2)}× holding a changed one`,
	);
}

if (import.meta.main) printStartup(await runStartupBench());
