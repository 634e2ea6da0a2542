// Test-side helper: runs sdk-probe.mjs (the REAL @cursor/sdk) under Node 24 in a child process, with a temporary
// HOME / TMPDIR / workspace, against a backend URL. Returns the parsed JSON-line events.

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonLineEvents, killAtExit, runCaptured } from "../processes.ts";
import { FAKE_BACKEND_DIR, node24Path, REPO_ROOT } from "./toolchain.ts";

export interface ProbeSend {
	message: string | { text: string; images?: ({ data: string; mimeType: string } | { url: string })[] };
	mode?: "agent" | "plan";
	model?: { id: string; params?: { id: string; value: string }[] };
	cancelAfterMs?: number;
	/** Cancel the run when the first delta of this type arrives (e.g. "text-delta"). */
	cancelOnDelta?: string;
}

export interface ProbeConfig {
	apiKey?: string;
	model?: { id: string; params?: { id: string; value: string }[] };
	/** Workspace directory (default: a fresh temp directory). */
	cwd?: string;
	local?: Record<string, unknown>;
	agent?: Record<string, unknown>;
	sends?: ProbeSend[];
	/** In-process custom tools (local.customTools): each answers `<reply><JSON args>` or throws `throws`. */
	customTools?: Record<
		string,
		{ description?: string; inputSchema?: Record<string, unknown>; reply?: string; throws?: string }
	>;
	getUsage?: boolean;
	me?: boolean;
	/** Absolute paths of modules the probe imports before the SDK (Node 24 strips types from `.ts`). */
	preload?: string[];
	listModels?: boolean;
	hardTimeoutMs?: number;
}

export interface ProbeEvent {
	event: string;
	send?: number;
	[key: string]: unknown;
}

export interface ProbeResult {
	events: ProbeEvent[];
	exitCode: number | null;
	stderr: string;
	durationMs: number;
	/** Workspace directory used as the agent's cwd. */
	cwd: string;
	/** Events of one send, in order. */
	forSend(index: number): ProbeEvent[];
	/** `update` objects of the delta events of one send. */
	deltas(index?: number): Record<string, unknown>[];
	/** The RunResult of one send (undefined if wait() did not resolve). */
	result(index?: number): Record<string, unknown> | undefined;
	errors(): ProbeEvent[];
}

export interface ProbeOptions {
	/** CURSOR_API_KEY (default "key_test_fake"). */
	apiKey?: string;
	/** Model catalog for CURSOR_SDK_LOCAL_MODEL_CATALOG_JSON; null to make the SDK call GET /v1/models. */
	catalog?: { id: string; aliases?: string[] }[] | null;
	env?: Record<string, string>;
	/** Prepare the workspace (write files) before the SDK starts. */
	setup?: (cwd: string) => void;
	/** Kill the probe after this long (default 60000 ms). */
	timeoutMs?: number;
	/** Look at the probe's temp root (HOME, TMPDIR, workspace) after the SDK exits, before it is removed. */
	inspect?: (root: string) => void;
}

export async function runSdkProbe(
	backendUrl: string,
	config: ProbeConfig,
	options: ProbeOptions = {},
): Promise<ProbeResult> {
	const root = mkdtempSync(join(tmpdir(), "fake-backend-probe-"));
	const home = join(root, "home");
	const tmp = join(root, "tmp");
	const cwd = config.cwd ?? join(root, "workspace");
	for (const dir of [home, tmp, cwd]) mkdirSync(dir, { recursive: true });
	options.setup?.(cwd);
	const catalog = options.catalog === undefined ? [{ id: "fake-model" }, { id: "composer-2" }] : options.catalog;
	const env: Record<string, string> = {
		PATH: process.env.PATH ?? "/usr/bin:/bin",
		HOME: home,
		TMPDIR: tmp,
		CURSOR_BACKEND_URL: backendUrl,
		CURSOR_API_KEY: options.apiKey ?? "key_test_fake",
		...(catalog ? { CURSOR_SDK_LOCAL_MODEL_CATALOG_JSON: JSON.stringify(catalog) } : {}),
		...(options.env ?? {}),
	};
	const started = Date.now();
	const { stdout, stderr, exitCode } = await runCaptured(
		node24Path(),
		[join(FAKE_BACKEND_DIR, "sdk-probe.mjs"), JSON.stringify({ ...config, cwd })],
		{ cwd: REPO_ROOT, env, timeoutMs: options.timeoutMs ?? 60000 },
	);
	try {
		options.inspect?.(root);
	} finally {
		rmSync(root, { recursive: true, force: true });
	}

	return probeResult(jsonLineEvents<ProbeEvent>(stdout), exitCode, stderr, Date.now() - started, cwd);
}

function probeResult(
	events: ProbeEvent[],
	exitCode: number | null,
	stderr: string,
	durationMs: number,
	cwd: string,
): ProbeResult {
	const forSend = (index: number) => events.filter((e) => e.send === index);
	return {
		events,
		exitCode,
		stderr,
		durationMs,
		cwd,
		forSend,
		deltas: (index = 0) =>
			forSend(index)
				.filter((e) => e.event === "delta")
				.map((e) => e.update as Record<string, unknown>),
		result: (index = 0) =>
			forSend(index).find((e) => e.event === "result")?.result as Record<string, unknown> | undefined,
		errors: () => events.filter((e) => e.event === "error"),
	};
}

/** Options of one probe of a {@link SdkProbeProcess}: those of {@link runSdkProbe} but `inspect` (the HOME is shared). */
export type SharedProbeOptions = Omit<ProbeOptions, "inspect">;

/**
 * One SDK probe process (`sdk-probe.mjs --serve`, one temp HOME and TMPDIR) that runs the probes of a file one after
 * another, for tests whose subject is the SDK against the fake rather than the SDK's start (a Node start and the
 * SDK's import cost over a CPU-second each time). Each probe gets its own workspace, agent, key and model catalog
 * (set in the process's environment before it runs); its events are told apart from a previous probe's late ones by
 * its id. A probe whose process died or hung gets `exitCode` null (with the stderr); the next starts a new process.
 */
export class SdkProbeProcess {
	private child: ChildProcessWithoutNullStreams | undefined;
	private root: string | undefined;
	private readonly workspaces: string;
	private buffer = "";
	private stderr = "";
	private nextId = 1;
	private listener: ((event: ProbeEvent) => void) | undefined;
	private exitListener: (() => void) | undefined;
	private queue: Promise<unknown> = Promise.resolve();

	constructor(private readonly backendUrl: () => string) {
		this.workspaces = mkdtempSync(join(tmpdir(), "fake-backend-probe-workspaces-"));
	}

	/** Runs `config` once the probes before it are done; resolves like {@link runSdkProbe}. */
	run(config: ProbeConfig, options: SharedProbeOptions = {}): Promise<ProbeResult> {
		const next = this.queue.then(() => this.runNow(config, options));
		this.queue = next.catch(() => {});
		return next;
	}

	private start(): ChildProcessWithoutNullStreams {
		if (this.root) rmSync(this.root, { recursive: true, force: true });
		const root = mkdtempSync(join(tmpdir(), "fake-backend-probe-"));
		const home = join(root, "home");
		const tmp = join(root, "tmp");
		for (const dir of [home, tmp]) mkdirSync(dir, { recursive: true });
		const child = spawn(node24Path(), [join(FAKE_BACKEND_DIR, "sdk-probe.mjs"), "--serve"], {
			cwd: REPO_ROOT,
			env: {
				PATH: process.env.PATH ?? "/usr/bin:/bin",
				HOME: home,
				TMPDIR: tmp,
				CURSOR_BACKEND_URL: this.backendUrl(),
			},
			stdio: ["pipe", "pipe", "pipe"],
		});
		killAtExit(child);
		this.root = root;
		this.buffer = "";
		this.stderr = "";
		child.stdout.setEncoding("utf8");
		child.stdout.on("data", (chunk: string) => {
			this.buffer += chunk;
			for (let newline = this.buffer.indexOf("\n"); newline >= 0; newline = this.buffer.indexOf("\n")) {
				const line = this.buffer.slice(0, newline);
				this.buffer = this.buffer.slice(newline + 1);
				for (const event of jsonLineEvents<ProbeEvent>(line)) this.listener?.(event);
			}
		});
		child.stderr.setEncoding("utf8");
		child.stderr.on("data", (chunk: string) => {
			this.stderr = (this.stderr + chunk).slice(-65536);
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

	private runNow(config: ProbeConfig, options: SharedProbeOptions): Promise<ProbeResult> {
		const id = this.nextId++;
		const cwd = config.cwd ?? join(this.workspaces, `workspace-${id}`);
		mkdirSync(cwd, { recursive: true });
		options.setup?.(cwd);
		const catalog = options.catalog === undefined ? [{ id: "fake-model" }, { id: "composer-2" }] : options.catalog;
		const env: Record<string, string | null> = {
			CURSOR_API_KEY: options.apiKey ?? "key_test_fake",
			CURSOR_SDK_LOCAL_MODEL_CATALOG_JSON: catalog ? JSON.stringify(catalog) : null,
			...(options.env ?? {}),
		};
		const child = this.child ?? this.start();
		const events: ProbeEvent[] = [];
		const stderrFrom = this.stderr.length;
		const started = Date.now();
		return new Promise((resolve) => {
			const finish = (exitCode: number | null) => {
				clearTimeout(timer);
				this.listener = undefined;
				this.exitListener = undefined;
				resolve(probeResult(events, exitCode, this.stderr.slice(stderrFrom), Date.now() - started, cwd));
			};
			const timer = setTimeout(() => {
				if (this.child === child) this.child = undefined;
				child.kill("SIGKILL");
				finish(null);
			}, options.timeoutMs ?? 60_000);
			this.listener = (event) => {
				if (event.probe !== id && event.event !== "stdout") return;
				const { probe: _, ...own } = event;
				events.push(own as ProbeEvent);
				if (event.event === "done") finish(0);
			};
			this.exitListener = () => finish(null);
			child.stdin.write(`${JSON.stringify({ id, config: { ...config, cwd }, env })}\n`);
		});
	}

	/** Ends the process (stdin closed, then SIGKILL after 5 s) and removes its temp folders. */
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
		for (const dir of [this.root, this.workspaces]) if (dir) rmSync(dir, { recursive: true, force: true });
	}
}
