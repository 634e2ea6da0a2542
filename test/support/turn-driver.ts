// Drives one provider turn (`streamCursorTurn`) without Pi or the SDK: a minimal TurnRuntime whose agent plays a
// scripted list of `onDelta` updates (any value, as the SDK would hand it over) and then settles the run. Returns every
// event Pi would receive and the final message.
import type { AssistantMessage, AssistantMessageEvent, TranscriptContext } from "@earendil-works/pi-ai";
import type { TurnEntry, TurnRuntime } from "../../src/runtime/types.ts";
import type { InteractionUpdate, Run, RunResult, SDKAgent, SendOptions } from "../../src/sdk/cursor-sdk.ts";
import type { LiveRun } from "../../src/turn/live-run.ts";
import { streamCursorTurn } from "../../src/turn/stream.ts";
import type { ToolDisplay } from "../../src/turn/tools.ts";
import type { AgentLease } from "../../src/turn/types.ts";

import { cursorModel } from "./messages.ts";
import { turnSetup } from "./pool-request.ts";

export const DRIVER_KEY = "key_turn_driver_0123456789abcdef";

/** How the scripted run ends: `wait()` resolves with a result, or rejects. */
export type RunEnd = { result: RunResult } | { rejects: unknown };

export interface DrivenTurn {
	events: AssistantMessageEvent[];
	message: AssistantMessage;
	/** Outcomes the lease was released with. */
	released: string[];
	/** Whether the turn cancelled the SDK run. */
	cancelled: boolean;
	/** Lines a print-mode turn wrote to stderr. */
	traces: string[];
}

export interface DriveOptions {
	/** Tool display (default: no replay cards, not print mode: tool activity becomes thinking lines). */
	display?: Partial<ToolDisplay>;
}

/** Plays `updates` through one provider turn, then ends the run with `end`. */
export async function driveTurn(
	updates: readonly unknown[],
	end: RunEnd,
	options: DriveOptions = {},
): Promise<DrivenTurn> {
	const released: string[] = [];
	const traces: string[] = [];
	let cancelled = false;
	let live: LiveRun | undefined;
	const setup = turnSetup({ apiKey: DRIVER_KEY });
	const agent = {
		agentId: "agent-driver",
		async send(_message: unknown, sendOptions?: SendOptions): Promise<Run> {
			let settle: (result: RunResult) => void = () => {};
			let fail: (error: unknown) => void = () => {};
			const done = new Promise<RunResult>((resolve, reject) => {
				settle = resolve;
				fail = reject;
			});
			const run = {
				id: "run-driver",
				wait: () => done,
				cancel: async () => {
					cancelled = true;
					settle({ id: "run-driver", status: "cancelled" } as RunResult);
				},
			};
			void (async () => {
				await Promise.resolve();
				for (const update of updates) {
					if (cancelled) return;
					try {
						await sendOptions?.onDelta?.({ update: update as InteractionUpdate });
					} catch {
						// the real SDK swallows callback errors
					}
				}
				if ("result" in end) settle(end.result);
				else fail(end.rejects);
			})();
			return run as unknown as Run;
		},
	} as unknown as SDKAgent;
	const runtime: TurnRuntime = {
		async acquire(_setup, _messages, watch) {
			watch.startSdkWork();
			const lease: AgentLease = {
				agent,
				prompt: { text: "hello", images: [] },
				kind: "bootstrap",
				release: (outcome) => void released.push(outcome),
			};
			return lease;
		},
		liveRun: () => live,
		keepLive: (run) => {
			if (live && live !== run) live.dispose();
			live = run;
		},
		dropLive: (run) => {
			if (live === run) live = undefined;
		},
		toolDisplay: (): ToolDisplay => ({
			replay: undefined,
			print: false,
			declared: undefined,
			context: { cwd: "/work", secrets: [DRIVER_KEY] },
			trace: (line) => void traces.push(line),
			...options.display,
		}),
	};
	const context = { messages: [{ role: "user", content: "hello", timestamp: 1 }] } as unknown as TranscriptContext;
	const entry: TurnEntry = { runtime, cloud: runtime, isSummary: () => false, setup: () => setup };
	const stream = streamCursorTurn(entry, cursorModel, context, { apiKey: DRIVER_KEY });
	const events: AssistantMessageEvent[] = [];
	for await (const event of stream) events.push(event);
	const message = await stream.result();
	return { events, message, released, cancelled, traces };
}
