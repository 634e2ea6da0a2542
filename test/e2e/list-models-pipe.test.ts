// `pi --list-models cursor` read through a pipe by a busy reader (a Node process that does not read at once, the way
// editors and scripts drive Pi): Pi calls process.exit(0) right after printing, which would drop whatever a
// non-blocking stdout still queues; our rows are many more than Pi's own short lists. Every row arrives, 20 runs in a
// row, with the reader busy until Pi has exited or waits for it (test/fixtures/slow-reader.mjs).
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { defaultHost, parseModelTable, TempHome } from "../support/pi.ts";
import { BUNDLE, ensureTool, REPO_ROOT } from "../support/toolchain.ts";

const RUNS = Number(process.env.Q33_RUNS ?? 20);
const READER = join(REPO_ROOT, "test", "fixtures", "slow-reader.mjs");
/** The reader stays busy until Pi has exited or blocks writing its stdout (at most this long). */
const BUSY_MS = 90_000;

test(
	`${RUNS} runs in a row through a busy reader's pipe: every row of the list arrives and Pi exits 0`,
	() => {
		const home = new TempHome();
		try {
			const [program = "", ...prefix] = defaultHost().command;
			const node = ensureTool("node24");
			const args = [...prefix, "-ne", "-e", BUNDLE, "--list-models", "cursor"];
			const run = () => {
				const out = spawnSync(node, [READER, String(BUSY_MS), "--", program, ...args], {
					cwd: home.dir,
					env: home.env({ PI_OFFLINE: "1", CURSOR_API_KEY: "key_list_models_pipe_0000" }),
					encoding: "utf8",
					timeout: 120_000,
				});
				if (out.status !== 0) throw new Error(`reader failed: ${out.stderr}`);
				return JSON.parse(out.stdout) as { code: number; bytes: number; stdout: string; waited: string };
			};
			// What a reader that keeps up gets: the reference.
			const reference = spawnSync(program, args, {
				cwd: home.dir,
				env: home.env({ PI_OFFLINE: "1", CURSOR_API_KEY: "key_list_models_pipe_0000" }),
				encoding: "utf8",
				maxBuffer: 16 * 1024 * 1024,
			});
			const rows = parseModelTable(reference.stdout).length;
			expect(rows).toBeGreaterThan(100);
			const seen: { run: number; code: number; rows: number; bytes: number; waited: string }[] = [];
			for (let i = 0; i < RUNS; i++) {
				const result = run();
				const waited = result.waited;
				seen.push({
					run: i,
					code: result.code,
					rows: parseModelTable(result.stdout).length,
					bytes: result.bytes,
					waited,
				});
			}
			// Pi waits for the busy reader (blocked on its stdout) instead of exiting with rows still queued.
			const whole = { code: 0, rows, bytes: Buffer.byteLength(reference.stdout), waited: "blocked" };
			expect(seen).toEqual(seen.map((s) => ({ ...s, ...whole })));
		} finally {
			home.remove();
		}
	},
	RUNS * 30_000,
);
