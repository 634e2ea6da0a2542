// Test-side helper: runs sdk-probe.mjs (the REAL @cursor/sdk) under Node 24 in a child process, with a temporary
// HOME / TMPDIR / workspace, against a backend URL. Returns the parsed JSON-line events.

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonLineEvents, runCaptured } from "../processes.ts";
import { ServedProcess } from "../served-process.ts";
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
	/** More agents, created one after another after the first; their sends are numbered on from the first's. */
	agents?: { agent?: Record<string, unknown>; sends: ProbeSend[] }[];
	/** Each event gets `ms`: milliseconds since the probe started. */
	times?: boolean;
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
 * another (see {@link ServedProcess}). Each probe gets its own workspace, agent, key and model catalog (set in the
 * process's environment before it runs); a probe whose process died or hung gets `exitCode` null (with the
 * stderr), and the next starts a new process.
 */
export class SdkProbeProcess {
	private readonly served: ServedProcess<ProbeEvent>;
	private readonly workspaces = mkdtempSync(join(tmpdir(), "fake-backend-probe-workspaces-"));

	constructor(backendUrl: () => string) {
		this.served = new ServedProcess<ProbeEvent>({
			prefix: "fake-backend-probe-",
			command: () => [node24Path(), join(FAKE_BACKEND_DIR, "sdk-probe.mjs"), "--serve"],
			env: () => ({ CURSOR_BACKEND_URL: backendUrl() }),
			jobOf: (event) => event.probe,
		});
	}

	/** Runs `config` once the probes before it are done; resolves like {@link runSdkProbe}. */
	async run(config: ProbeConfig, options: SharedProbeOptions = {}): Promise<ProbeResult> {
		let cwd = "";
		const job = await this.served.run((id) => {
			cwd = config.cwd ?? join(this.workspaces, `workspace-${id}`);
			mkdirSync(cwd, { recursive: true });
			options.setup?.(cwd);
			const catalog = options.catalog === undefined ? [{ id: "fake-model" }, { id: "composer-2" }] : options.catalog;
			const env: Record<string, string | null> = {
				CURSOR_API_KEY: options.apiKey ?? "key_test_fake",
				CURSOR_SDK_LOCAL_MODEL_CATALOG_JSON: catalog ? JSON.stringify(catalog) : null,
				...(options.env ?? {}),
			};
			return { id, config: { ...config, cwd }, env };
		}, options.timeoutMs);
		const events = job.events.map(({ probe: _, ...own }) => own as ProbeEvent);
		return probeResult(events, job.exitCode, job.stderr, job.durationMs, cwd);
	}

	/** Ends the process and removes its temp folders. */
	async close(): Promise<void> {
		await this.served.close();
		rmSync(this.workspaces, { recursive: true, force: true });
	}
}
