// Test-side helper: runs sdk-probe.mjs (the REAL @cursor/sdk) under Node 24 in a child process, with a temporary
// HOME / TMPDIR / workspace, against a backend URL. Returns the parsed JSON-line events.

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonLineEvents, runCaptured } from "../processes.ts";
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

	const events = jsonLineEvents<ProbeEvent>(stdout);
	const forSend = (index: number) => events.filter((e) => e.send === index);
	return {
		events,
		exitCode,
		stderr,
		durationMs: Date.now() - started,
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
