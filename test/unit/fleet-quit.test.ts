// Quitting Pi with Cursor Cloud runs in flight: which keys quit, the one question the TUI asks, what each answer does
// (leave the runs going, or stop them first), and the line that names what goes on.
import { describe, expect, test } from "bun:test";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
	type InFlightRun,
	leftRunningMessage,
	QUIT_LEAVE,
	QUIT_STOP,
	QuitGuard,
	type QuitKeys,
	quitsPi,
	quitTitle,
} from "../../src/fleet/quit.ts";
import { LeaveOnShutdown } from "../../src/runtime/cloud-leave.ts";

const KEYS: QuitKeys = { exit: (data) => data === "\x04", submit: (data) => data === "\r" };
const RUN: InFlightRun = { agentId: "bc-one", runId: "run-1" };

/** A guard over one run in flight whose leave and stop only record that they were called. */
function recordingGuard(): { events: string[]; guard: QuitGuard } {
	const events: string[] = [];
	const guard = new QuitGuard({
		runs: () => [RUN],
		leave: () => events.push("leave"),
		stop: async () => {
			events.push("stop");
			return [];
		},
		keys: KEYS,
	});
	return { events, guard };
}

describe("quitsPi", () => {
	test("Pi's exit key quits only on an empty editor; Enter quits only on /quit", () => {
		expect(quitsPi("\x04", "", KEYS)).toBe(true);
		expect(quitsPi("\x04", "draft", KEYS)).toBe(false); // ctrl+d deletes a character there
		expect(quitsPi("\r", "/quit", KEYS)).toBe(true);
		expect(quitsPi("\r", "  /quit ", KEYS)).toBe(true);
		expect(quitsPi("\r", "/quitting", KEYS)).toBe(false);
		expect(quitsPi("\r", "", KEYS)).toBe(false);
		expect(quitsPi("q", "/quit", KEYS)).toBe(false);
	});
});

describe("the quit wording", () => {
	test("names the agents and how to collect them", () => {
		expect(quitTitle([RUN])).toBe("Quit Pi: 1 Cursor Cloud run still in flight (bc-one).");
		const many = ["bc-a", "bc-b", "bc-c", "bc-d", "bc-e"].map((agentId, i) => ({ agentId, runId: `r${i}` }));
		expect(quitTitle(many)).toContain("5 Cursor Cloud runs still in flight (bc-a, bc-b, bc-c and 2 more)");
		const line = leftRunningMessage([RUN]);
		expect(line).toContain("go on on Cursor's machines (bc-one)");
		expect(line).toContain('pi -c -p "/cursor-cloud wait bc-one"');
	});
});

/** A TUI context whose raw input the test types and whose question the test answers. */
function tui(answer: (title: string, options: string[]) => Promise<string | undefined>, idle = true) {
	const calls: string[] = [];
	let listener: ((data: string) => { consume?: boolean } | undefined) | undefined;
	let editor = "";
	const ctx = {
		mode: "tui",
		hasUI: true,
		isIdle: () => idle,
		abort: () => calls.push("abort"),
		shutdown: () => calls.push("shutdown"),
		ui: {
			onTerminalInput: (handler: typeof listener) => {
				listener = handler;
				return () => {
					listener = undefined;
				};
			},
			getEditorText: () => editor,
			setEditorText: (text: string) => {
				editor = text;
			},
			select: (title: string, options: string[]) => {
				calls.push(`select ${title}`);
				return answer(title, options);
			},
			notify: (message: string) => calls.push(`notify ${message}`),
		},
	} as unknown as ExtensionContext;
	return {
		ctx,
		calls,
		type: (data: string, text = editor) => {
			editor = text;
			return listener?.(data);
		},
		get listening() {
			return listener !== undefined;
		},
	};
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("QuitGuard", () => {
	test("no run in flight: the quit key goes to Pi untouched", () => {
		const guard = new QuitGuard({ runs: () => [], leave: () => {}, stop: async () => [], keys: KEYS });
		const term = tui(async () => QUIT_LEAVE);
		guard.bind(term.ctx);
		expect(term.type("\x04", "")).toBeUndefined();
		expect(term.calls).toEqual([]);
	});

	test("leave (the default): asked once, the runs go on, the busy turn is aborted, then Pi quits", async () => {
		const { events, guard } = recordingGuard();
		let answer: (choice: string | undefined) => void = () => {};
		const term = tui((_title, options) => {
			expect(options[0]).toBe(QUIT_LEAVE);
			return new Promise((resolve) => {
				answer = resolve;
			});
		}, false);
		guard.bind(term.ctx);
		expect(term.type("\x04", "")).toEqual({ consume: true });
		expect(term.type("\x04", "")).toBeUndefined(); // a second ctrl+d while asking: no second question
		expect(term.calls.filter((c) => c.startsWith("select"))).toHaveLength(1);
		answer(QUIT_LEAVE);
		await settle();
		expect(events).toEqual(["leave"]);
		expect(term.calls.slice(-2)).toEqual(["abort", "shutdown"]);
		expect(guard.left()).toEqual([RUN]);
	});

	test("stop: the runs are stopped before Pi quits, and are not reported as going on", async () => {
		const { events, guard } = recordingGuard();
		const term = tui(async () => QUIT_STOP);
		guard.bind(term.ctx);
		expect(term.type("\r", "/quit")).toEqual({ consume: true });
		await settle();
		expect(events).toEqual(["stop", "leave"]);
		expect(term.calls.at(-1)).toBe("shutdown");
		expect(term.calls).not.toContain("abort"); // idle: nothing to abort
		expect(guard.left()).toEqual([]);
	});

	test("while the runs are being stopped a quit key waits for them; once Pi is quitting, it goes to Pi", async () => {
		let stopped: () => void = () => {};
		const guard = new QuitGuard({
			runs: () => [RUN],
			leave: () => {},
			stop: () =>
				new Promise((resolve) => {
					stopped = () => resolve([]);
				}),
			keys: KEYS,
		});
		const term = tui(async () => QUIT_STOP);
		guard.bind(term.ctx);
		term.type("\x04", "");
		await settle();
		expect(term.type("\x04", "")).toEqual({ consume: true }); // not quit before Cursor was told
		expect(term.calls).not.toContain("shutdown");
		stopped();
		await settle();
		expect(term.calls.at(-1)).toBe("shutdown");
		expect(term.type("\x04", "")).toBeUndefined();
	});

	test("a run that could not be stopped is said, and still reported as going on", async () => {
		const guard = new QuitGuard({
			runs: () => [RUN],
			leave: () => {},
			stop: async () => [{ run: RUN, reason: "no answer within 15 s" }],
			keys: KEYS,
		});
		const term = tui(async () => QUIT_STOP);
		guard.bind(term.ctx);
		term.type("\x04", "");
		await settle();
		expect(term.calls.some((c) => c.includes("Could not stop bc-one (no answer within 15 s)"))).toBe(true);
		expect(guard.left()).toEqual([RUN]);
	});

	test("dismissed: Pi stays open, nothing is stopped, and the next quit asks again", async () => {
		const guard = new QuitGuard({ runs: () => [RUN], leave: () => {}, stop: async () => [], keys: KEYS });
		const term = tui(async () => undefined);
		guard.bind(term.ctx);
		term.type("\x04", "");
		await settle();
		expect(term.calls).not.toContain("shutdown");
		expect(term.type("\x04", "")).toEqual({ consume: true });
	});

	test("no TUI (RPC): nothing is watched", () => {
		const guard = new QuitGuard({ runs: () => [RUN], leave: () => {}, stop: async () => [], keys: KEYS });
		const term = tui(async () => QUIT_LEAVE);
		guard.bind({ ...term.ctx, mode: "rpc" } as ExtensionContext);
		expect(term.listening).toBe(false);
	});
});

describe("LeaveOnShutdown's turn runs", () => {
	test("a run is listed from its start to its end; a quit leaves it listed; stop cancels it", async () => {
		const leave = new LeaveOnShutdown();
		const cancelled: string[] = [];
		leave.started({ agentId: "bc-a", runId: "r1" }, async () => {
			cancelled.push("r1");
		});
		leave.started({ agentId: "bc-b", runId: "r2" }, async () => {
			throw new Error("offline");
		});
		expect(leave.inFlight()).toEqual([
			{ agentId: "bc-a", runId: "r1" },
			{ agentId: "bc-b", runId: "r2" },
		]);
		const failed = await leave.stop();
		expect(cancelled).toEqual(["r1"]);
		expect(failed.map((f) => f.runId)).toEqual(["r2"]);
		expect(leave.inFlight()).toEqual([{ agentId: "bc-b", runId: "r2" }]);
		leave.ended("r2");
		expect(leave.inFlight()).toEqual([]);
	});
});
