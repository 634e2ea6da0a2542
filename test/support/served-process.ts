// A long-lived helper process (an SDK probe) that runs a test file's jobs one after another, for tests whose subject
// is what the process does rather than its start: a Node or Bun start plus the SDK's import cost over a CPU-second
// each time. A job is one JSON line on the process's stdin; the process answers with JSON-line events tagged with the
// job's id and ends each job with a `done` event.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonLineEvents, killAtExit } from "./processes.ts";
import { REPO_ROOT } from "./toolchain.ts";

export interface ServedEvent {
	event: string;
}

export interface ServedJob<E> {
	events: E[];
	/** 0 when the job reported `done`; null when the process died or the job timed out (the next job starts anew). */
	exitCode: number | null;
	/** What the process wrote on stderr while the job ran. */
	stderr: string;
	durationMs: number;
}

export interface ServedProcessOptions<E> {
	/** Prefix of the temp folder that holds the process's HOME and TMPDIR. */
	prefix: string;
	/** `[program, ...args]` of the process. */
	command: () => string[];
	/** Variables on top of PATH, HOME and TMPDIR. */
	env: () => Record<string, string>;
	/** The id of the job an event belongs to; events of other jobs (a previous job's late ones) are dropped. */
	jobOf: (event: E) => unknown;
}

export class ServedProcess<E extends ServedEvent> {
	private child: ChildProcessWithoutNullStreams | undefined;
	private root: string | undefined;
	private buffer = "";
	/** What the process wrote on stderr during the current job (its last 64 KiB). */
	private jobStderr = "";
	private nextId = 1;
	private listener: ((event: E) => void) | undefined;
	private exitListener: (() => void) | undefined;
	private queue: Promise<unknown> = Promise.resolve();

	constructor(private readonly options: ServedProcessOptions<E>) {}

	/**
	 * Runs a job once the jobs before it are done: `line(id)` (called when the job's turn comes) is the JSON record
	 * written to the process. Events without a job (the process's own `stdout` notices) go to every job.
	 */
	run(line: (id: number) => unknown, timeoutMs = 60_000): Promise<ServedJob<E>> {
		const next = this.queue.then(() => this.runNow(line, timeoutMs));
		this.queue = next.catch(() => {});
		return next;
	}

	private start(): ChildProcessWithoutNullStreams {
		if (this.root) rmSync(this.root, { recursive: true, force: true });
		const root = mkdtempSync(join(tmpdir(), this.options.prefix));
		const home = join(root, "home");
		const tmp = join(root, "tmp");
		for (const dir of [home, tmp]) mkdirSync(dir, { recursive: true });
		const [program = "", ...args] = this.options.command();
		const child = spawn(program, args, {
			cwd: REPO_ROOT,
			env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TMPDIR: tmp, ...this.options.env() },
			stdio: ["pipe", "pipe", "pipe"],
		});
		killAtExit(child);
		this.root = root;
		this.buffer = "";
		child.stdout.setEncoding("utf8");
		child.stdout.on("data", (chunk: string) => {
			this.buffer += chunk;
			for (let newline = this.buffer.indexOf("\n"); newline >= 0; newline = this.buffer.indexOf("\n")) {
				const text = this.buffer.slice(0, newline);
				this.buffer = this.buffer.slice(newline + 1);
				for (const event of jsonLineEvents<E>(text)) this.listener?.(event);
			}
		});
		child.stderr.setEncoding("utf8");
		child.stderr.on("data", (chunk: string) => {
			this.jobStderr = (this.jobStderr + chunk).slice(-65536);
		});
		child.stdin.on("error", () => {});
		child.once("close", () => {
			if (this.child !== child) return;
			this.child = undefined;
			this.exitListener?.();
		});
		this.child = child;
		return child;
	}

	private runNow(line: (id: number) => unknown, timeoutMs: number): Promise<ServedJob<E>> {
		const id = this.nextId++;
		const record = line(id);
		const child = this.child ?? this.start();
		const events: E[] = [];
		this.jobStderr = "";
		const started = Date.now();
		return new Promise((resolve) => {
			const finish = (exitCode: number | null) => {
				clearTimeout(timer);
				this.listener = undefined;
				this.exitListener = undefined;
				resolve({ events, exitCode, stderr: this.jobStderr, durationMs: Date.now() - started });
			};
			const timer = setTimeout(() => {
				if (this.child === child) this.child = undefined;
				child.kill("SIGKILL");
				finish(null);
			}, timeoutMs);
			this.listener = (event) => {
				if (this.options.jobOf(event) !== id && event.event !== "stdout") return;
				events.push(event);
				if (event.event === "done") finish(0);
			};
			this.exitListener = () => finish(null);
			child.stdin.write(`${JSON.stringify(record)}\n`);
		});
	}

	/** Ends the process (stdin closed, then SIGKILL after 5 s) and removes its temp HOME. */
	async close(): Promise<void> {
		await this.queue;
		const child = this.child;
		if (child) {
			const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
			child.stdin.end();
			const kill = setTimeout(() => child.kill("SIGKILL"), 5000);
			await closed;
			clearTimeout(kill);
		}
		if (this.root) rmSync(this.root, { recursive: true, force: true });
	}
}
