// Test-side helper: runs probe-main.ts (the REAL @cursor/sdk through src/sdk/cursor-sdk.ts)
// in a Bun child process against the cloud fake, with a temporary HOME, and returns its JSON-line events.

import { join } from "node:path";
import type { CloudAgentSetup, ModelSelection } from "../../../src/sdk/cursor-sdk.ts";
import { bunPath } from "../fake-backend/toolchain.ts";
import { ServedProcess } from "../served-process.ts";
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
 * another (see {@link ServedProcess}). Each script gets its own agents and clock; a script whose process died or hung
 * gets `exitCode` null (with the stderr), and the next script starts a new process.
 */
export class CloudProbeProcess {
	private readonly served: ServedProcess<ProbeEvent>;

	constructor(private readonly fakeUrl: () => string) {
		this.served = new ServedProcess<ProbeEvent>({
			prefix: "cloud-probe-",
			command: () => [bunPath(), join(CLOUD_FAKE_DIR, "probe-main.ts"), "--serve"],
			env: () => ({ CURSOR_BACKEND_URL: fakeUrl() }),
			jobOf: (event) => event.script,
		});
	}

	/** Runs `steps` once the scripts before it are done: their events, `exitCode` 0 when the script reported done. */
	async run(steps: CloudProbeStep[], options: { apiKey?: string; timeoutMs?: number } = {}): Promise<ProbeResult> {
		const job = await this.served.run(
			(id): ProbeScript => ({ id, fakeUrl: this.fakeUrl(), apiKey: options.apiKey ?? PROBE_KEY, steps }),
			options.timeoutMs,
		);
		return probeResult(job.events, job.exitCode, job.stderr);
	}

	/** Ends the process and removes its temp HOME. */
	close(): Promise<void> {
		return this.served.close();
	}
}
