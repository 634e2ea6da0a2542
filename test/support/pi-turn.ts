// End-to-end turn helpers: the loopback fake Cursor backend loaded with the captured catalog, a long-running Pi
// process (RPC mode, signals), JSON-line parsing, secret and leftover-process checks, and `turnSuite`, the setup a
// turn test file shares (its backend, temp homes, a few Pi processes at a time, the closing leftover check).

import { afterAll, beforeAll, expect, test } from "bun:test";
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
	type FakeBackend,
	loadCapturedCatalog,
	type StartFakeBackendOptions,
	startFakeBackend,
} from "./fake-backend/client.ts";
import { pool } from "./limit.ts";
import { defaultHost, filesUnder, HomeRegistry, type PiHost, type PiResult, runPi, type TempHome } from "./pi.ts";
import { SHARED_PI_LIFETIME_MS, SharedRpcPi, startRpcPi } from "./rpc.ts";
import { BUNDLE } from "./toolchain.ts";

/** The only key the fake accepts; any other key gets a 401 at the key exchange. */
export const TEST_KEY = "key_test_e2e_turn_4f9c2a7b1d";
/** The fake's exchanged access token: the SDK sends it as `Authorization: Bearer …` on every RPC. */
export const ACCESS_TOKEN = "fake-access-token";
// 1×1 transparent PNG.
export const PNG_BASE64 =
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** A fake backend that serves the captured Cursor catalog (the SDK validates model ids against it). */
export function startTurnBackend(options: StartFakeBackendOptions = {}): Promise<FakeBackend> {
	return startFakeBackend({
		...options,
		rest: { models: loadCapturedCatalog(), apiKeys: [TEST_KEY], ...options.rest },
	});
}

/** Environment pointing the real SDK inside Pi at the fake backend. */
export function cursorEnv(backend: { url: string }, extra: Record<string, string | undefined> = {}) {
	return { CURSOR_BACKEND_URL: backend.url, CURSOR_API_KEY: TEST_KEY, ...extra };
}

/** Pi settings that turn off Pi's own agent-level retry (fault tests assert one attempt, quickly). */
export const NO_RETRY = { retry: { enabled: false } };

export { HomeRegistry, pool };

/** JSON lines of Pi's `--mode json` / `--mode rpc` stdout. */
// biome-ignore lint/suspicious/noExplicitAny: Pi's event records are checked field by field in the tests.
export type PiRecord = Record<string, any>;

export function jsonLines(stdout: string): PiRecord[] {
	return stdout
		.split("\n")
		.filter((line) => line.trim().startsWith("{"))
		.map((line) => JSON.parse(line) as PiRecord);
}

/** The entries of the one session file under `home` (Pi's JSON lines, in order). */
export function sessionEntriesOf(home: TempHome): PiRecord[] {
	const sessions = filesUnder(join(home.agentDir, "sessions")).filter((file) => file.endsWith(".jsonl"));
	expect(sessions).toHaveLength(1);
	return jsonLines(readFileSync(sessions[0] as string, "utf8"));
}

/** The secrets of a run that must never reach the user's terminal. */
export function leakedSecrets(text: string, extra: string[] = []): string[] {
	const secrets = [TEST_KEY, ACCESS_TOKEN, ...extra];
	const found = secrets.filter((secret) => text.includes(secret));
	if (/Bearer\s+(?!\[redacted\])\S/.test(text)) found.push("Bearer <token>");
	return found;
}

/** Adds the run's output to an assertion failure. */
export function withOutput(result: { stdout: string; stderr: string }, assertions: () => void): void {
	try {
		assertions();
	} catch (error) {
		if (error instanceof Error) {
			error.message += `\n--- stdout ---\n${result.stdout.slice(-4000)}\n--- stderr ---\n${result.stderr.slice(-4000)}`;
		}
		throw error;
	}
}

export interface PiExit {
	code: number | null;
	signal: NodeJS.Signals | null;
	/** Milliseconds since the process was spawned. */
	ms: number;
}

/** A Pi process that stays up: RPC commands on stdin, JSON records on stdout, signals. */
export class PiProcess {
	readonly child: ChildProcessWithoutNullStreams;
	readonly startedAt = Date.now();
	readonly exited: Promise<PiExit>;
	stdout = "";
	stderr = "";
	private readonly records: PiRecord[] = [];
	private readonly listeners = new Set<() => void>();
	private buffer = "";

	constructor(
		args: string[],
		options: {
			host?: PiHost;
			home: TempHome;
			env?: Record<string, string | undefined>;
			/** Plain Pi, without this extension (a baseline to compare with). */
			withoutExtension?: boolean;
		},
	) {
		const host = options.host ?? defaultHost();
		const [program, ...prefix] = host.command;
		if (!program) throw new Error(`host ${host.name} has no command`);
		const extension = options.withoutExtension ? [] : ["-e", BUNDLE];
		this.child = spawn(program, [...prefix, "-ne", ...extension, ...args], {
			cwd: options.home.dir,
			env: options.home.env(options.env),
			stdio: ["pipe", "pipe", "pipe"],
		});
		this.child.stdout.on("data", (chunk: Buffer) => {
			const text = chunk.toString();
			this.stdout += text;
			this.buffer += text;
			let newline = this.buffer.indexOf("\n");
			while (newline >= 0) {
				const line = this.buffer.slice(0, newline).trim();
				this.buffer = this.buffer.slice(newline + 1);
				if (line.startsWith("{")) {
					try {
						this.records.push(JSON.parse(line) as PiRecord);
					} catch {
						// not a protocol record
					}
				}
				newline = this.buffer.indexOf("\n");
			}
			for (const listener of [...this.listeners]) listener();
		});
		this.child.stderr.on("data", (chunk: Buffer) => {
			this.stderr += chunk.toString();
		});
		// A command written after Pi exited fails with EPIPE; the exit itself is what the tests look at.
		this.child.stdin.on("error", () => {});
		this.exited = new Promise((resolve) => {
			this.child.once("close", (code, signal) => {
				resolve({ code, signal, ms: Date.now() - this.startedAt });
				for (const listener of [...this.listeners]) listener();
			});
		});
	}

	get running(): boolean {
		return this.child.exitCode === null && this.child.signalCode === null;
	}

	send(command: object): void {
		this.child.stdin.write(`${JSON.stringify(command)}\n`);
	}

	/** Every record so far. */
	all(): PiRecord[] {
		return [...this.records];
	}

	/** Resolves with the first record (from index `from`) that matches; rejects on timeout or exit. */
	waitFor(predicate: (record: PiRecord) => boolean, timeoutMs = 30_000, from = 0): Promise<PiRecord> {
		return new Promise((resolve, reject) => {
			const check = () => {
				const found = this.records.slice(from).find(predicate);
				if (found) {
					done();
					resolve(found);
				} else if (!this.running) {
					done();
					reject(new Error(`pi exited before the expected record\nstdout: ${this.stdout}\nstderr: ${this.stderr}`));
				}
			};
			const timer = setTimeout(() => {
				done();
				reject(new Error(`timed out waiting for a record\nstdout: ${this.stdout}\nstderr: ${this.stderr}`));
			}, timeoutMs);
			const done = () => {
				clearTimeout(timer);
				this.listeners.delete(check);
			};
			this.listeners.add(check);
			check();
		});
	}

	/** Closes stdin (an orderly shutdown in RPC mode) and waits for the exit; SIGKILL after `timeoutMs`. */
	async close(timeoutMs = 10_000): Promise<PiExit> {
		this.child.stdin.end();
		return this.waitExit(timeoutMs);
	}

	/** Waits for the exit; SIGKILLs the process after `timeoutMs` (the exit then reports the signal). */
	async waitExit(timeoutMs: number): Promise<PiExit> {
		const timer = setTimeout(() => this.child.kill("SIGKILL"), timeoutMs);
		try {
			return await this.exited;
		} finally {
			clearTimeout(timer);
		}
	}

	result(): PiResult {
		return { code: this.child.exitCode, stdout: this.stdout, stderr: this.stderr };
	}
}

/** Runs `body`, then ends `pi` (SIGKILL) if it still runs, whatever `body` did: no test leaves a Pi behind. */
export async function endingPi<T>(pi: PiProcess, body: () => Promise<T>): Promise<T> {
	try {
		return await body();
	} finally {
		if (pi.running) pi.child.kill("SIGKILL");
	}
}

/** Processes (other than this test process) whose environment points at one of the given temp homes. */
export function processesUsingHomes(homes: readonly TempHome[]): string[] {
	if (process.platform !== "linux") return [];
	const markers = homes.map((home) => `HOME=${home.dir}\0`);
	const found: string[] = [];
	for (const entry of readdirSync("/proc")) {
		if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
		try {
			const environ = `${readFileSync(`/proc/${entry}/environ`, "latin1")}\0`;
			if (!markers.some((marker) => environ.includes(marker))) continue;
			const cmdline = readFileSync(`/proc/${entry}/cmdline`, "latin1").split("\0").join(" ").trim();
			found.push(`${entry} ${cmdline}`);
		} catch {
			// exited meanwhile, or not ours
		}
	}
	return found;
}

/** Whether a process id is still alive (signal 0 probe). */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** Polls until no process uses the homes (children may need a moment after their parent exits). */
export async function waitNoProcesses(homes: readonly TempHome[], timeoutMs = 5_000): Promise<string[]> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const left = processesUsingHomes(homes);
		if (left.length === 0 || Date.now() > deadline) return left;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

/** Live descendants of this test process (`ps`), as "pid command" lines. */
export function descendantProcesses(): string[] {
	const out = spawnSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" }).stdout ?? "";
	const rows = out
		.split("\n")
		.map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
		.filter((m): m is RegExpExecArray => m !== null)
		.map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] ?? "" }));
	const mine = new Set([process.pid]);
	let grew = true;
	while (grew) {
		grew = false;
		for (const row of rows) {
			if (!mine.has(row.pid) && mine.has(row.ppid)) {
				mine.add(row.pid);
				grew = true;
			}
		}
	}
	return rows
		.filter((row) => row.pid !== process.pid && mine.has(row.pid) && !row.args.startsWith("ps "))
		.map((row) => `${row.pid} ${row.args}`);
}

/** The closing check of a turn test file: stop the fake, then no Pi, SDK or backend process may be left. */
function testNothingLeftBehind(backend: () => FakeBackend, homes: HomeRegistry, shared: SharedRpcPi[]): void {
	test("no Pi, SDK or backend process is left behind", async () => {
		await Promise.all(shared.map((pi) => pi.close()));
		await backend().stop();
		expect(isAlive(backend().pid)).toBe(false);
		expect(await waitNoProcesses(homes.homes)).toEqual([]);
		expect(descendantProcesses()).toEqual([]);
	});
}

/** How long one turn test may take on a busy 2-core machine (several Pi starts, each seconds). */
export const TURN_TEST_MS = 150_000;

type Env = Record<string, string | undefined>;

interface SuitePiOptions {
	/** Default: a fresh temp home with Pi's retry off. */
	home?: TempHome;
	/** Variables on top of the suite's (the backend's URL and the test key). */
	env?: Env;
	host?: PiHost;
}

/** What a turn test file shares; see {@link turnSuite}. */
export interface TurnSuite {
	/** The file's fake backend (started before the first test). */
	readonly backend: FakeBackend;
	readonly homes: HomeRegistry;
	/** Runs `task` when one of the file's Pi slots is free. */
	limit<T>(task: () => Promise<T>): Promise<T>;
	/** A concurrent test whose body runs in one of the file's Pi slots. */
	test(name: string, body: () => Promise<void>, timeoutMs?: number): void;
	/** A temp home whose Pi does not retry (each test asserts one attempt), or with `settings` instead. */
	home(settings?: object): TempHome;
	/** The environment of a Pi that talks to the suite's backend, `extra` on top. */
	env(extra?: Env): Env;
	/** `pi <args>` with stdin closed, run to its exit (at most `timeoutMs`). */
	run(args: string[], options?: SuitePiOptions & { timeoutMs?: number }): Promise<PiResult>;
	/** A long-running `pi <args>` for `body`; SIGKILLed afterwards if it still runs, whatever `body` did. */
	withPi<T>(args: string[], options: SuitePiOptions, body: (pi: PiProcess) => Promise<T>): Promise<T>;
	/** One `pi --mode rpc <args>` that tests take turns on (see {@link SharedRpcPi}), closed after the last test. */
	shared(args: string[], options?: SuitePiOptions): SharedRpcPi;
	/** The file's last test: the backend stops, and no Pi, SDK or backend process is left behind. */
	nothingLeftBehind(): void;
}

/**
 * The setup of a turn test file: a fake backend with these scenarios (started in `beforeAll`), temp homes
 * (removed in `afterAll`), and at most `concurrency` Pi processes at a time (each costs seconds of CPU).
 */
export function turnSuite(scenarios: StartFakeBackendOptions = {}, concurrency = 3): TurnSuite {
	const homes = new HomeRegistry();
	const limit = pool(concurrency);
	const shared: SharedRpcPi[] = [];
	let started: FakeBackend | undefined;
	const running = () => {
		if (!started) throw new Error("the suite's backend has not started (tests run after beforeAll)");
		return started;
	};
	beforeAll(async () => {
		started = await startTurnBackend(scenarios);
	}, 30_000);
	// Removing the temp homes (Node's compile cache, ~12 MB each) can take seconds on a busy machine.
	afterAll(async () => {
		await Promise.all(shared.map((pi) => pi.close()));
		await started?.stop();
		homes.removeAll();
	}, 60_000);
	const suite: TurnSuite = {
		get backend() {
			return running();
		},
		homes,
		limit,
		test: (name, body, timeoutMs = TURN_TEST_MS) => test.concurrent(name, () => limit(body), timeoutMs),
		home: (settings = NO_RETRY) => homes.create(settings),
		env: (extra = {}) => cursorEnv(running(), extra),
		run: (args, options = {}) =>
			runPi(args, {
				host: options.host,
				home: options.home ?? suite.home(),
				env: suite.env(options.env),
				timeoutMs: options.timeoutMs ?? 60_000,
			}),
		withPi: (args, options, body) => {
			const pi = new PiProcess(args, {
				host: options.host,
				home: options.home ?? suite.home(),
				env: suite.env(options.env),
			});
			return endingPi(pi, () => body(pi));
		},
		shared: (args, options = {}) => {
			const home = options.home ?? suite.home();
			const pi = new SharedRpcPi(() =>
				startRpcPi(args, { host: options.host, home, env: suite.env(options.env), lifetimeMs: SHARED_PI_LIFETIME_MS }),
			);
			shared.push(pi);
			return pi;
		},
		nothingLeftBehind: () => testNothingLeftBehind(running, homes, shared),
	};
	return suite;
}
