// Test-side helper: runs probe-main.ts (the REAL @cursor/sdk through src/sdk/cursor-sdk.ts)
// in a Bun child process against the cloud fake, with a temporary HOME, and returns its JSON-line events.

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CloudAgentSetup, ModelSelection } from "../../../src/sdk/cursor-sdk.ts";
import { bunPath, REPO_ROOT } from "../fake-backend/toolchain.ts";
import { jsonLineEvents, killAtExit, runCaptured } from "../processes.ts";
import { CLOUD_FAKE_DIR } from "./client.ts";

type AgentRef = { slot: string; agentId?: undefined } | { agentId: string; slot?: undefined };

export type CloudProbeStep =
	| { op: "create"; slot: string; setup?: Partial<CloudAgentSetup> }
	| { op: "resume"; slot: string; agentId?: string; fromSlot?: string; setup?: Partial<CloudAgentSetup> }
	| {
			op: "send";
			slot: string;
			text: string;
			model?: ModelSelection;
			/** Consume `run.stream()` too (its messages come back as `messages`). */
			stream?: boolean;
			/** Go on with the next step while the run goes on. */
			noWait?: boolean;
			cancelAfterMs?: number;
			/** Cancel when the first `onDelta` update of this type arrives. */
			cancelOnDelta?: string;
	  }
	/** The fake's request log at this point. */
	| { op: "requests" }
	| { op: "list"; options?: { limit?: number; cursor?: string; includeArchived?: boolean } }
	| ({ op: "get" } & AgentRef)
	| ({ op: "getRun"; runId: string } & AgentRef)
	/** `runId` "last": the run of the latest `sent` event. */
	| ({ op: "followRun"; runId: string; abortAfterMs?: number } & AgentRef)
	/** `cloudSdk.streamRunText`: the run's text chunks (`texts`), until it ends or `abortAfterMs` passes. */
	| ({ op: "streamRunText"; runId: string; abortAfterMs?: number } & AgentRef)
	| ({ op: "listRuns" } & AgentRef)
	| ({ op: "cancelRun"; runId: string } & AgentRef)
	| ({ op: "artifacts"; download?: string } & AgentRef)
	| ({ op: "archive" } & AgentRef)
	| ({ op: "delete" } & AgentRef)
	| { op: "sleep"; ms: number };

export interface ProbeScript {
	/** Set by {@link CloudProbeProcess}: every event of the script carries it as `script`. */
	id?: number;
	fakeUrl: string;
	apiKey: string;
	steps: CloudProbeStep[];
}

export interface ProbeEvent {
	event: string;
	/** Milliseconds since the probe started. */
	t: number;
	/** `Date.now()` when it happened (the cloud fake's request log uses the same clock). */
	at: number;
	step?: number;
	// biome-ignore lint/suspicious/noExplicitAny: JSON from the child, read by tests
	[key: string]: any;
}

export interface ProbeResult {
	events: ProbeEvent[];
	exitCode: number | null;
	stderr: string;
	/** Events of one step. */
	of(step: number): ProbeEvent[];
	/** The first event of this kind of one step (throws when there is none: the failure names what happened). */
	one(step: number, event: string): ProbeEvent;
}

export const PROBE_KEY = "key_cloud_probe_4b7d9e2a61";

export async function runCloudProbe(
	fakeUrl: string,
	steps: CloudProbeStep[],
	options: { apiKey?: string; timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<ProbeResult> {
	const root = mkdtempSync(join(tmpdir(), "cloud-probe-"));
	const home = join(root, "home");
	const tmp = join(root, "tmp");
	for (const dir of [home, tmp]) mkdirSync(dir, { recursive: true });
	const script: ProbeScript = { fakeUrl, apiKey: options.apiKey ?? PROBE_KEY, steps };
	const { stdout, stderr, exitCode } = await runCaptured(
		bunPath(),
		[join(CLOUD_FAKE_DIR, "probe-main.ts"), JSON.stringify(script)],
		{
			cwd: REPO_ROOT,
			env: {
				PATH: process.env.PATH ?? "/usr/bin:/bin",
				HOME: home,
				TMPDIR: tmp,
				CURSOR_BACKEND_URL: fakeUrl,
				...options.env,
			},
			timeoutMs: options.timeoutMs ?? 60_000,
		},
	);
	rmSync(root, { recursive: true, force: true });
	return probeResult(jsonLineEvents<ProbeEvent>(stdout), exitCode, stderr);
}

function probeResult(events: ProbeEvent[], exitCode: number | null, stderr: string): ProbeResult {
	const of = (step: number) => events.filter((e) => e.step === step);
	return {
		events,
		exitCode,
		stderr,
		of,
		one: (step, event) => {
			const found = of(step).find((e) => e.event === event);
			if (!found) {
				throw new Error(`probe step ${step}: no ${event} event; got ${JSON.stringify(of(step))}\nstderr: ${stderr}`);
			}
			return found;
		},
	};
}

/**
 * One probe process (`probe-main.ts --serve`, one temp HOME) that runs the scripts of a file's tests one after
 * another, for tests whose subject is the SDK's protocol rather than its process start (a Bun start and the SDK's
 * import cost about a CPU-second each time). Each script gets its own agents and clock; its events are told apart
 * from a previous script's late ones by the script's id. A script whose process died or hung gets `exitCode` null
 * (with the stderr), and the next script starts a new process.
 */
export class CloudProbeProcess {
	private child: ChildProcessWithoutNullStreams | undefined;
	private root: string | undefined;
	private buffer = "";
	private stderr = "";
	private nextId = 1;
	private listener: ((event: ProbeEvent) => void) | undefined;
	private exitListener: (() => void) | undefined;
	private queue: Promise<unknown> = Promise.resolve();

	constructor(private readonly fakeUrl: () => string) {}

	/** Runs `steps` once the scripts before it are done; resolves like {@link runCloudProbe}. */
	run(steps: CloudProbeStep[], options: { apiKey?: string; timeoutMs?: number } = {}): Promise<ProbeResult> {
		const next = this.queue.then(() => this.runNow(steps, options));
		this.queue = next.catch(() => {});
		return next;
	}

	private start(): ChildProcessWithoutNullStreams {
		if (this.root) rmSync(this.root, { recursive: true, force: true });
		const root = mkdtempSync(join(tmpdir(), "cloud-probe-"));
		const home = join(root, "home");
		const tmp = join(root, "tmp");
		for (const dir of [home, tmp]) mkdirSync(dir, { recursive: true });
		const child = spawn(bunPath(), [join(CLOUD_FAKE_DIR, "probe-main.ts"), "--serve"], {
			cwd: REPO_ROOT,
			env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TMPDIR: tmp, CURSOR_BACKEND_URL: this.fakeUrl() },
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

	private runNow(steps: CloudProbeStep[], options: { apiKey?: string; timeoutMs?: number }): Promise<ProbeResult> {
		const child = this.child ?? this.start();
		const id = this.nextId++;
		const script: ProbeScript = { id, fakeUrl: this.fakeUrl(), apiKey: options.apiKey ?? PROBE_KEY, steps };
		const events: ProbeEvent[] = [];
		const stderrFrom = this.stderr.length;
		return new Promise((resolve) => {
			const finish = (exitCode: number | null) => {
				clearTimeout(timer);
				this.listener = undefined;
				this.exitListener = undefined;
				resolve(probeResult(events, exitCode, this.stderr.slice(stderrFrom)));
			};
			const timer = setTimeout(() => {
				if (this.child === child) this.child = undefined;
				child.kill("SIGKILL");
				finish(null);
			}, options.timeoutMs ?? 60_000);
			this.listener = (event) => {
				if (event.script !== id && event.event !== "stdout") return;
				events.push(event);
				if (event.event === "done") finish(0);
			};
			this.exitListener = () => finish(null);
			child.stdin.write(`${JSON.stringify(script)}\n`);
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
