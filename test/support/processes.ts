// Child processes of the tests: commands run to completion, loopback test servers (the fake Cursor backend, the
// cloud fake) in their own Bun process, and probes (the real SDK in a child) whose JSON-line output is captured.

import { type ChildProcess, spawn } from "node:child_process";
import { fstatSync } from "node:fs";
import { bunPath, REPO_ROOT } from "./fake-backend/toolchain.ts";

export interface ServerProcess {
	readonly url: string;
	readonly pid: number;
	/** A control API call: `GET`/`POST`/`PUT` `/__fake/<path>` with a JSON body; resolves the JSON answer. */
	control<T>(method: string, path: string, body?: unknown): Promise<T>;
	/** Kills the process (idempotent). */
	stop(): Promise<void>;
	/** Last lines the process wrote to stderr (diagnostics). */
	stderr(): string;
}

export interface ProcessResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs `program args` to completion with `input` on stdin; rejects (and SIGKILLs it) after `timeoutMs`. */
export function runProcess(
	program: string,
	args: string[],
	options: { cwd: string; env: Record<string, string>; input?: string; timeoutMs: number },
): Promise<ProcessResult> {
	const child = spawn(program, args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
	let stdout = "";
	let stderr = "";
	child.stdout.on("data", (chunk) => {
		stdout += chunk;
	});
	child.stderr.on("data", (chunk) => {
		stderr += chunk;
	});
	child.stdin.end(options.input ?? "");
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			child.kill("SIGKILL");
			reject(new Error(`${program} ${args.join(" ")} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
		}, options.timeoutMs);
		child.on("error", reject);
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ code, stdout, stderr });
		});
	});
}

const children = new Set<ChildProcess>();
let exitHookInstalled = false;

/** SIGKILLs `child` if it still runs when the test process exits. */
export function killAtExit(child: ChildProcess): void {
	if (!exitHookInstalled) {
		exitHookInstalled = true;
		process.on("exit", () => {
			for (const running of children) running.kill("SIGKILL");
		});
	}
	children.add(child);
	child.once("exit", () => children.delete(child));
}

/**
 * Starts a test server script: it prints one JSON line {"url","pid"} when ready and serves a JSON control API under
 * /__fake/ (see {@link stopWithParent}). The process is killed when the test process exits.
 */
export async function startServerProcess(
	/** What the errors call it, e.g. "fake backend". */
	label: string,
	script: string,
	options: { env?: Record<string, string>; startTimeoutMs?: number } = {},
): Promise<ServerProcess> {
	const child = spawn(bunPath(), [script], {
		cwd: REPO_ROOT,
		stdio: ["pipe", "pipe", "pipe"],
		env: { ...process.env, ...(options.env ?? {}) },
	});
	killAtExit(child);
	let stderrText = "";
	child.stderr?.on("data", (chunk: Buffer) => {
		stderrText = (stderrText + chunk.toString()).slice(-16384);
	});
	const exited = new Promise<void>((resolve) => {
		child.once("exit", () => resolve());
	});

	const ready = await new Promise<{ url: string; pid: number }>((resolve, reject) => {
		let buffer = "";
		const timer = setTimeout(() => {
			child.kill("SIGKILL");
			reject(new Error(`${label} did not start in time; stderr: ${stderrText}`));
		}, options.startTimeoutMs ?? 15000);
		child.stdout?.on("data", (chunk: Buffer) => {
			buffer += chunk.toString();
			const newline = buffer.indexOf("\n");
			if (newline < 0) return;
			clearTimeout(timer);
			try {
				resolve(JSON.parse(buffer.slice(0, newline)) as { url: string; pid: number });
			} catch (error) {
				reject(error);
			}
		});
		child.once("exit", (code) => {
			clearTimeout(timer);
			reject(new Error(`${label} exited with ${code}; stderr: ${stderrText}`));
		});
	});

	let stopped: Promise<void> | undefined;
	return {
		url: ready.url,
		pid: ready.pid,
		control: async <T>(method: string, path: string, body?: unknown): Promise<T> => {
			const response = await fetch(`${ready.url}/__fake/${path}`, {
				method,
				headers: { "content-type": "application/json" },
				...(body === undefined ? {} : { body: JSON.stringify(body) }),
			});
			const text = await response.text();
			if (!response.ok) throw new Error(`${label} control ${method} ${path}: ${response.status} ${text}`);
			return JSON.parse(text) as T;
		},
		stop: () => {
			stopped ??= (async () => {
				if (child.exitCode === null && child.signalCode === null) {
					child.stdin?.end();
					child.kill("SIGTERM");
					const timer = setTimeout(() => child.kill("SIGKILL"), 2000);
					await exited;
					clearTimeout(timer);
				}
				children.delete(child);
			})();
			return stopped;
		},
		stderr: () => stderrText,
	};
}

/**
 * In a server script: calls `stop` on SIGTERM / SIGINT and when the parent goes away (stdin, when it is a pipe or a
 * socket, closes; /dev/null, a file or a TTY would end at once or never).
 */
export function stopWithParent(stop: () => void): void {
	process.on("SIGTERM", stop);
	process.on("SIGINT", stop);
	let stdinIsPipe = false;
	try {
		const stat = fstatSync(0);
		stdinIsPipe = stat.isFIFO() || stat.isSocket();
	} catch {
		// no stdin
	}
	if (!stdinIsPipe) return;
	for (const event of ["end", "close", "error"]) process.stdin.on(event, stop);
	process.stdin.resume();
}

export interface Captured {
	stdout: string;
	/** The last 64 KiB. */
	stderr: string;
	exitCode: number | null;
}

/** Runs a probe to its end (killed after `timeoutMs`), capturing its output. */
export async function runCaptured(
	program: string,
	args: string[],
	options: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<Captured> {
	const child = spawn(program, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
	let stdout = "";
	let stderr = "";
	child.stdout.on("data", (chunk: Buffer) => {
		stdout += chunk.toString();
	});
	child.stderr.on("data", (chunk: Buffer) => {
		stderr = (stderr + chunk.toString()).slice(-65536);
	});
	const killTimer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
	const exitCode = await new Promise<number | null>((resolve) => child.once("close", resolve));
	clearTimeout(killTimer);
	return { stdout, stderr, exitCode };
}

/** One JSON value per line of `stdout`; a line that is not JSON becomes `{event: "stdout", line}`. */
export function jsonLineEvents<T extends { event: string }>(stdout: string): T[] {
	return stdout
		.split("\n")
		.filter((line) => line.trim())
		.map((line) => {
			try {
				return JSON.parse(line) as T;
			} catch {
				return { event: "stdout", line } as unknown as T;
			}
		});
}
