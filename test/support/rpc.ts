// A reusable driver for `pi --mode rpc` (JSON records, one per LF-terminated line, on stdin/stdout).
//
//   const pi = startRpcPi(["--model", "cursor/composer-2"], { home });
//   await pi.ready();                                   // Pi answered get_state: startup is over
//   const { response, records } = await pi.prompt("/cursor-fast");   // records emitted while it ran
//   await pi.waitFor(isNotify(/refreshed/), { timeoutMs: 5000 });
//   const result = await pi.close();                    // closes stdin, waits for the exit (kills if stuck)
//
// Commands are sent one at a time by the helpers below (Pi handles concurrent commands concurrently, which makes
// the order of their UI records nondeterministic). Await every response before close(): at stdin EOF Pi shuts down
// without waiting for extension command handlers still in flight. Every started process is tracked and killed at exit.
import { afterAll, beforeAll, expect } from "bun:test";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createServer } from "node:net";
import { pool } from "./limit.ts";
import { defaultHost, HomeRegistry, type PiHost, type RunPiOptions, type TempHome } from "./pi.ts";
import { killAtExit } from "./processes.ts";
import { BUNDLE } from "./toolchain.ts";

/** Any JSON record Pi wrote to stdout. */
export type RpcRecord = Record<string, unknown> & { type?: string };

/** `{"type":"response", ...}` for a command. */
export interface RpcResponse extends RpcRecord {
	type: "response";
	id?: string;
	command: string;
	success: boolean;
	data?: unknown;
	error?: string;
}

/** An `extension_ui_request` (setStatus, notify, ...). */
export interface UiRequest extends RpcRecord {
	type: "extension_ui_request";
	id: string;
	method: string;
	statusKey?: string;
	statusText?: string;
	message?: string;
	notifyType?: "info" | "warning" | "error";
}

export interface RpcExit {
	code: number | null;
	signal: NodeJS.Signals | null;
	records: RpcRecord[];
	stderr: string;
	/** stdout lines that were not JSON (should be none: stdout is reserved for protocol records). */
	junk: string[];
}

export interface WaitOptions {
	/** Default 15000 ms. */
	timeoutMs?: number;
	/** Only records at or after this index (see {@link RpcPi.mark}). Default 0. */
	from?: number;
}

export type RpcOptions = Omit<RunPiOptions, "input" | "timeoutMs"> & {
	/** Hard limit for the whole process; it is killed (SIGKILL) after this. Default 90000 ms. */
	lifetimeMs?: number;
	/** Starts Pi as the leader of its own process group, so {@link RpcPi.killGroup} can crash it with its children. */
	processGroup?: boolean;
};

const live = new Set<ChildProcessWithoutNullStreams>();

/** Number of RPC Pi processes currently running (tests assert it returns to 0). */
export function liveRpcProcesses(): number {
	return live.size;
}

interface Waiter {
	predicate: (record: RpcRecord) => boolean;
	from: number;
	resolve: (record: RpcRecord) => void;
	reject: (error: Error) => void;
	timer: ReturnType<typeof setTimeout>;
}

export class RpcPi {
	readonly records: RpcRecord[] = [];
	readonly junk: string[] = [];
	stderr = "";
	readonly host: PiHost;
	private readonly child: ChildProcessWithoutNullStreams;
	private buffer = "";
	private waiters = new Set<Waiter>();
	private nextId = 1;
	private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
	private readonly exited: Promise<void>;
	private readonly killTimer: ReturnType<typeof setTimeout>;

	constructor(
		readonly args: string[],
		options: RpcOptions,
	) {
		this.host = options.host ?? defaultHost();
		const extensions = options.extensions ?? [BUNDLE];
		const [program, ...prefix] = this.host.command;
		if (!program) throw new Error(`host ${this.host.name} has no command`);
		this.child = spawn(program, [...prefix, "-ne", ...extensions.flatMap((e) => ["-e", e]), "--mode", "rpc", ...args], {
			cwd: options.cwd ?? options.home.dir,
			env: options.home.env(options.env),
			stdio: ["pipe", "pipe", "pipe"],
			...(options.processGroup ? { detached: true } : {}),
		});
		live.add(this.child);
		killAtExit(this.child);
		this.child.stdout.setEncoding("utf8");
		this.child.stdout.on("data", (chunk: string) => this.onStdout(chunk));
		this.child.stderr.setEncoding("utf8");
		this.child.stderr.on("data", (chunk: string) => {
			this.stderr += chunk;
		});
		this.child.stdin.on("error", () => {}); // EPIPE after an early exit is reported through the exit instead
		this.exited = new Promise((resolve) => {
			this.child.on("close", (code, signal) => {
				this.exitInfo = { code, signal };
				live.delete(this.child);
				clearTimeout(this.killTimer);
				for (const waiter of this.waiters) {
					clearTimeout(waiter.timer);
					waiter.reject(new Error(`pi exited (${code ?? signal}) while waiting\n${this.describe()}`));
				}
				this.waiters.clear();
				resolve();
			});
			this.child.on("error", (error) => {
				this.stderr += `\n[spawn error] ${error.message}`;
			});
		});
		this.killTimer = setTimeout(() => this.child.kill("SIGKILL"), options.lifetimeMs ?? 90_000);
	}

	get pid(): number | undefined {
		return this.child.pid;
	}

	/** Whether the process has exited. */
	get gone(): boolean {
		return this.exitInfo !== undefined;
	}

	/** Index of the next record; pass it as `from` to only see later records. */
	mark(): number {
		return this.records.length;
	}

	private onStdout(chunk: string): void {
		this.buffer += chunk;
		// Split on LF only (JSON strings may contain U+2028/U+2029, which readline would split on).
		for (let newline = this.buffer.indexOf("\n"); newline >= 0; newline = this.buffer.indexOf("\n")) {
			const line = this.buffer.slice(0, newline).replace(/\r$/, "");
			this.buffer = this.buffer.slice(newline + 1);
			if (line.trim() === "") continue;
			let record: RpcRecord;
			try {
				record = JSON.parse(line) as RpcRecord;
			} catch {
				this.junk.push(line);
				continue;
			}
			const index = this.records.push(record) - 1;
			for (const waiter of [...this.waiters]) {
				if (index >= waiter.from && waiter.predicate(record)) {
					this.waiters.delete(waiter);
					clearTimeout(waiter.timer);
					waiter.resolve(record);
				}
			}
		}
	}

	/** Resolves with the first record (at or after `from`) matching `predicate`; rejects on timeout or exit. */
	waitFor<T extends RpcRecord = RpcRecord>(
		predicate: (record: RpcRecord) => boolean,
		options: WaitOptions = {},
	): Promise<T> {
		const from = options.from ?? 0;
		const found = this.records.slice(from).find(predicate);
		if (found) return Promise.resolve(found as T);
		if (this.exitInfo) {
			return Promise.reject(new Error(`pi already exited (${this.exitInfo.code})\n${this.describe()}`));
		}
		const timeoutMs = options.timeoutMs ?? 15_000;
		return new Promise<T>((resolve, reject) => {
			const waiter: Waiter = {
				predicate,
				from,
				resolve: resolve as (record: RpcRecord) => void,
				reject,
				timer: setTimeout(() => {
					this.waiters.delete(waiter);
					reject(new Error(`no matching RPC record within ${timeoutMs} ms\n${this.describe()}`));
				}, timeoutMs),
			};
			this.waiters.add(waiter);
		});
	}

	/** Writes one command record (an `id` is added when missing) and returns that id. */
	write(command: Record<string, unknown>): string {
		const id = typeof command.id === "string" ? command.id : `t${this.nextId++}`;
		this.child.stdin.write(`${JSON.stringify({ ...command, id })}\n`);
		return id;
	}

	/**
	 * Sends a command and waits for its response. `records` are the records emitted from the send up to and
	 * including the response (for an extension command: its notifications, status updates and appended entries).
	 */
	async send(
		command: Record<string, unknown>,
		options: { timeoutMs?: number } = {},
	): Promise<{ response: RpcResponse; records: RpcRecord[] }> {
		const from = this.mark();
		const id = this.write(command);
		const response = await this.waitFor<RpcResponse>((r) => r.type === "response" && r.id === id, {
			from,
			timeoutMs: options.timeoutMs,
		});
		return { response, records: this.records.slice(from, this.records.indexOf(response) + 1) };
	}

	/** Sends `prompt` (a slash command or text). */
	prompt(message: string, options: { timeoutMs?: number } = {}) {
		return this.send({ type: "prompt", message }, options);
	}

	/** Sends `message` and waits for the end of the agent's work: the records from the prompt to `agent_end`. */
	async turn(message: string, options: { timeoutMs?: number } = {}): Promise<RpcRecord[]> {
		const from = this.mark();
		await this.prompt(message, options);
		const end = await this.waitFor((r) => r.type === "agent_end", { from, timeoutMs: options.timeoutMs ?? 60_000 });
		return this.records.slice(from, this.records.indexOf(end) + 1);
	}

	/** Waits until Pi answers `get_state` (startup, session_start and its status are done). Returns the state. */
	async ready(timeoutMs = 30_000): Promise<Record<string, unknown>> {
		const { response } = await this.send({ type: "get_state" }, { timeoutMs });
		if (!response.success) throw new Error(`get_state failed: ${JSON.stringify(response)}`);
		return response.data as Record<string, unknown>;
	}

	/** All `extension_ui_request` records (optionally of one method) at or after `from`. */
	ui(method?: string, from = 0): UiRequest[] {
		return this.records
			.slice(from)
			.filter(
				(r): r is UiRequest => r.type === "extension_ui_request" && (method === undefined || r.method === method),
			);
	}

	/** The latest `setStatus` text for `key` (undefined when cleared, null when never set). */
	status(key = "cursor"): string | undefined | null {
		const updates = this.ui("setStatus").filter((r) => r.statusKey === key);
		if (updates.length === 0) return null;
		return updates[updates.length - 1]?.statusText;
	}

	/** A short dump for failure messages. */
	describe(): string {
		const tail = this.records.slice(-30).map((r) => JSON.stringify(r).slice(0, 400));
		return [
			`--- pi ${this.args.join(" ")} (${this.host.name})`,
			`--- last records (${this.records.length} total)`,
			...tail,
			...(this.junk.length ? ["--- non-JSON stdout", ...this.junk.slice(-10)] : []),
			"--- stderr",
			this.stderr.slice(-4000),
		].join("\n");
	}

	/**
	 * Closes stdin (Pi's orderly shutdown) and waits for the exit; SIGTERM after `graceMs`, SIGKILL 2 s later.
	 * Idempotent.
	 */
	async close(graceMs = 15_000): Promise<RpcExit> {
		if (!this.exitInfo) {
			this.child.stdin.end();
			const term = setTimeout(() => this.child.kill("SIGTERM"), graceMs);
			const kill = setTimeout(() => this.child.kill("SIGKILL"), graceMs + 2000);
			await this.exited;
			clearTimeout(term);
			clearTimeout(kill);
		}
		const info = this.exitInfo ?? { code: null, signal: null };
		return { ...info, records: this.records, stderr: this.stderr, junk: this.junk };
	}

	/** A crash: SIGKILL to Pi's whole process group (started with `processGroup`), then waits for its exit. */
	async killGroup(): Promise<void> {
		const pid = this.child.pid;
		if (!this.exitInfo && pid !== undefined) {
			process.kill(-pid, "SIGKILL");
			await this.exited;
		}
	}

	/** Kills the process at once (for cleanup after a failed test). */
	async kill(): Promise<void> {
		if (!this.exitInfo) {
			this.child.kill("SIGKILL");
			await this.exited;
		}
	}
}

/** Starts `pi -ne -e <bundle> --mode rpc <args>` with the temp HOME of `options.home`. */
export function startRpcPi(args: string[], options: RpcOptions): RpcPi {
	return new RpcPi(args, options);
}

/** Predicate: an `extension_ui_request` notify whose message matches. */
export function isNotify(match: RegExp | string, notifyType?: UiRequest["notifyType"]) {
	return (record: RpcRecord): boolean => {
		if (record.type !== "extension_ui_request" || record.method !== "notify") return false;
		const message = String(record.message ?? "");
		const matches = typeof match === "string" ? message.includes(match) : match.test(message);
		return matches && (notifyType === undefined || record.notifyType === notifyType);
	};
}

/** Predicate: a `setStatus` for `key`. */
export function isStatus(key = "cursor") {
	return (record: RpcRecord): boolean =>
		record.type === "extension_ui_request" && record.method === "setStatus" && record.statusKey === key;
}

/** The notify messages among `records`. */
export function notifications(records: readonly RpcRecord[]): { message: string; type: string }[] {
	return records
		.filter((r) => r.type === "extension_ui_request" && r.method === "notify")
		.map((r) => ({ message: String(r.message), type: String(r.notifyType) }));
}

/** The setStatus texts for `key` among `records` (undefined = cleared). */
export function statuses(records: readonly RpcRecord[], key = "cursor"): (string | undefined)[] {
	return records
		.filter((r) => r.type === "extension_ui_request" && r.method === "setStatus" && r.statusKey === key)
		.map((r) => r.statusText as string | undefined);
}

/**
 * `http://127.0.0.1:<port>` of a loopback port nobody listens on (connections are refused). Pass it as
 * CURSOR_BACKEND_URL to runs that must never reach a real Cursor backend, or to provoke a network failure.
 */
export async function refusedBackendUrl(): Promise<string> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const address = server.address();
	await new Promise<void>((resolve) => server.close(() => resolve()));
	if (!address || typeof address === "string") throw new Error("no loopback port");
	return `http://127.0.0.1:${address.port}`;
}

export { pool };

/**
 * One RPC Pi that the tests of a file take turns on, for tests whose subject is a turn or a command rather than Pi's
 * start: a Pi start costs ~1 CPU-s and its first Cursor turn ~1 more, where a further turn costs ~0.05 and a new Pi
 * session ~0.3. {@link use} gives the Pi to one test at a time; each use after the first starts in a new Pi session
 * (RPC `new_session`: a new Cursor agent) unless `sameSession`. A use that throws kills the Pi, so the next test
 * starts a fresh one and no failure carries over.
 */
export class SharedRpcPi {
	private current: RpcPi | undefined;
	private uses = 0;
	private readonly one = pool(1);

	constructor(private readonly start: () => RpcPi) {}

	use<T>(body: (pi: RpcPi) => Promise<T>, options: { sameSession?: boolean } = {}): Promise<T> {
		return this.one(async () => {
			let pi = this.current;
			if (!pi || pi.gone) {
				pi = this.start();
				this.current = pi;
				this.uses = 0;
				await pi.ready(60_000); // the budget a whole `pi` run had (its start and turn), for a start under load
			} else if (this.uses > 0 && !options.sameSession) {
				const { response } = await pi.send({ type: "new_session" });
				if (!response.success) throw new Error(`new_session failed: ${JSON.stringify(response)}\n${pi.describe()}`);
			}
			this.uses++;
			try {
				return await body(pi);
			} catch (error) {
				await pi.kill();
				throw error;
			}
		});
	}

	/** Closes the Pi (stdin, Pi's orderly shutdown) if one runs. */
	async close(): Promise<void> {
		await this.current?.close();
	}
}

/** What an RPC test file shares; see {@link rpcSuite}. */
export interface RpcSuite {
	readonly homes: HomeRegistry;
	/** Runs `task` when one of the file's Pi slots is free. */
	limit<T>(task: () => Promise<T>): Promise<T>;
	/** A temp home, with Pi `settings` when given. */
	home(settings?: object): TempHome;
	/** A loopback URL that refuses connections: a Cursor backend no test may reach. */
	readonly refusedUrl: string;
	/** {@link startRpcPi}, killed after the file's last test if it still runs. */
	start(args: string[], options: RpcOptions): RpcPi;
	/** A {@link SharedRpcPi} of `pi --mode rpc <args>`, closed after the file's last test. */
	shared(args: string[], options: RpcOptions): SharedRpcPi;
}

/**
 * The setup of an RPC test file: temp homes, at most `concurrency` Pi processes at a time and a refused backend
 * URL; after the last test every Pi it started is gone.
 */
export function rpcSuite(concurrency = 3): RpcSuite {
	const homes = new HomeRegistry();
	const started: RpcPi[] = [];
	let refused: string | undefined;
	beforeAll(async () => {
		refused = await refusedBackendUrl();
	});
	afterAll(async () => {
		await Promise.all(started.map((pi) => pi.kill()));
		homes.removeAll();
		expect(liveRpcProcesses()).toBe(0);
	});
	return {
		homes,
		limit: pool(concurrency),
		home: (settings) => homes.create(settings),
		get refusedUrl() {
			if (!refused) throw new Error("the refused URL is set in beforeAll");
			return refused;
		},
		start(args, options) {
			const pi = startRpcPi(args, options);
			started.push(pi);
			return pi;
		},
		shared(args, options) {
			return new SharedRpcPi(() => this.start(args, options));
		},
	};
}
