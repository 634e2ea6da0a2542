// What the user sees of Cursor's tool activity: which card (or transcript line) a call becomes, which incomplete calls
// are shown, which get an "in progress" line, what print mode writes to stderr, and how shell output is attributed.
import { describe, expect, test } from "bun:test";
import { mapCompletedToolCall, mapIncompleteToolCall, type ReplayToolName } from "../../src/replay/mapping.ts";
import {
	incompleteReason,
	lifecycleLine,
	type RunOutcome,
	routeCard,
	showIncompleteTool,
} from "../../src/replay/policy.ts";
import { ShellTracker } from "../../src/replay/shell.ts";
import { ReplayStore } from "../../src/replay/store.ts";
import { formatPrintTrace } from "../../src/replay/trace.ts";

const ctx = { cwd: "/w", secrets: ["key_live_SECRET_1234567890"] };
const ok = (value: unknown) => ({ status: "success", value });
const shellCall = (command: string, exitCode = 0) => ({
	type: "shell",
	args: { command },
	result: ok({ exitCode, signal: "", stdout: "out", stderr: "", executionTime: 1 }),
});
const bash = mapCompletedToolCall("c1", shellCall("ls"), ctx);
const mcp = mapCompletedToolCall(
	"c2",
	{ type: "mcp", args: { toolName: "search" }, result: ok({ content: [], isError: false }) },
	ctx,
);
const all = new Set<ReplayToolName>(["read", "bash", "grep", "find", "ls", "edit", "write", "cursor"]);

describe("routeCard", () => {
	test("an owned, declared name shows its native card", () => {
		expect(routeCard(bash, all, new Set(["bash", "cursor"]))).toEqual({ kind: "card", card: bash });
		expect(routeCard(bash, all, undefined).kind).toBe("card");
	});

	test("an owned name the request does not declare (e.g. grep, off by default) falls back to the neutral card", () => {
		const route = routeCard(bash, all, new Set(["cursor"]));
		expect(route.kind).toBe("card");
		expect(route.card).toMatchObject({ id: bash.id, name: "cursor", arguments: { activityTitle: "Cursor shell" } });
	});

	test("a name another extension owns (or the opt-out) uses the transcript", () => {
		const notOurs = new Set<ReplayToolName>(["cursor", "read"]);
		expect(routeCard(bash, notOurs, new Set(["bash", "cursor"]))).toEqual({ kind: "transcript", card: bash });
	});

	test("neutral cards need the neutral tool, else the transcript", () => {
		expect(routeCard(mcp, all, new Set(["cursor"])).kind).toBe("card");
		expect(routeCard(mcp, all, new Set(["bash"])).kind).toBe("transcript");
		expect(routeCard(mcp, new Set<ReplayToolName>(["bash"]), undefined).kind).toBe("transcript");
	});
});

describe("incomplete tools", () => {
	const good: RunOutcome = { status: "finished", producedText: true };
	test.each([
		["read", good, false],
		["grep", good, false],
		["glob", good, false],
		["ls", good, false],
		["shell", good, true],
		["edit", good, true],
		["mcp", good, true],
		["task", good, true],
		["read", { status: "finished", producedText: false }, true],
		["read", { status: "error", producedText: true }, true],
		["read", { status: "cancelled", producedText: true }, true],
	] as const)("%s after %o → shown: %p", (type, outcome, shown) => {
		expect(showIncompleteTool({ type, args: {} }, outcome)).toBe(shown);
	});

	test("the reason follows the run's end", () => {
		expect(incompleteReason({ status: "cancelled", producedText: false })).toBe("aborted");
		expect(incompleteReason({ status: "error", producedText: false })).toBe("failed");
		expect(incompleteReason({ status: "finished", producedText: false })).toBe("ended");
	});
});

describe("lifecycle lines", () => {
	test.each([
		[{ type: "task", args: { description: "Audit deps", prompt: "x" } }, "Cursor subagent: Audit deps"],
		[{ type: "shell", args: { command: "npm   test\n--watch" } }, "Cursor shell: npm test --watch"],
		[{ type: "mcp", args: { providerIdentifier: "gh", toolName: "search" } }, "Cursor MCP: gh/search"],
		[{ type: "updateTodos", args: { todos: [] } }, "Cursor todos: 0 todos, 0 completed"],
		[{ type: "webSearch", args: {} }, "Cursor webSearch"],
	])("%o → %s", (call, expected) => {
		expect(lifecycleLine(call, ctx)).toBe(expected);
	});

	test.each(["read", "grep", "glob", "ls", "edit", "delete"])("no line for fast local %s", (type) => {
		expect(lifecycleLine({ type, args: { path: "a" } }, ctx)).toBeUndefined();
	});

	test("bounded and scrubbed", () => {
		const line = lifecycleLine(
			{ type: "shell", args: { command: `echo key_live_SECRET_1234567890 ${"x".repeat(500)}` } },
			ctx,
		);
		expect(line).not.toContain("SECRET");
		expect(line?.length).toBeLessThanOrEqual(200);
	});
});

describe("print-mode trace", () => {
	test("one plain line per card", () => {
		expect(formatPrintTrace(bash)).toBe("[cursor] shell: ls → exit 0");
		expect(formatPrintTrace(mapCompletedToolCall("c", shellCall("false", 1), ctx))).toBe(
			"[cursor] shell: false → exit 1",
		);
		expect(formatPrintTrace(mcp)).toBe("[cursor] MCP: search → done");
		const failedRead = mapCompletedToolCall(
			"c",
			{
				type: "read",
				args: { path: "/w/x" },
				result: { status: "error", error: { message: "ENOENT: no such file\nmore" } },
			},
			ctx,
		);
		expect(formatPrintTrace(failedRead)).toBe("[cursor] read: x → failed: ENOENT: no such file");
		const incomplete = mapIncompleteToolCall(
			"c",
			{ type: "task", args: { description: "d", prompt: "p" } },
			ctx,
			"aborted",
		);
		expect(formatPrintTrace(incomplete)).toBe("[cursor] subagent: d → did not complete");
	});

	test("no ANSI, no control characters, no secrets, bounded", () => {
		const card = mapCompletedToolCall(
			"c",
			shellCall(`\u001b[31mecho\u001b[0m key_live_SECRET_1234567890\r\n${"y".repeat(1000)}`),
			ctx,
		);
		const line = formatPrintTrace(card);
		// biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence
		expect(line).not.toMatch(/[\u0000-\u001f\u007f]/);
		expect(line).not.toContain("SECRET");
		expect(line.length).toBeLessThanOrEqual(220);
	});
});

describe("shell correlation", () => {
	const started = (command: string) => ({ type: "shell", args: { command } });

	test("live deltas are progress for the one running shell, and its fallback output", () => {
		const shells = new ShellTracker();
		shells.started("s1", started("make"));
		expect(shells.delta({ case: "stdout", value: { data: "step 1\n" } })).toEqual({ callId: "s1", text: "step 1\n" });
		expect(shells.delta({ case: "stderr", value: { data: "warn\n" } })?.text).toBe("step 1\nwarn\n");
		expect(shells.delta({ case: "exit", value: { code: 0 } })).toBeUndefined();
		expect(shells.completed("s1", started("make"))).toEqual({ startedCallId: "s1", liveOutput: "step 1\nwarn\n" });
		expect(shells.running).toEqual([]);
	});

	test("deltas while two shells run are dropped (ambiguous)", () => {
		const shells = new ShellTracker();
		shells.started("s1", started("a"));
		shells.started("s2", started("b"));
		expect(shells.delta({ case: "stdout", value: { data: "?" } })).toBeUndefined();
		expect(shells.completed("s1", started("a"))?.liveOutput).toBe("");
	});

	test("no shell running: deltas are dropped", () => {
		expect(new ShellTracker().delta({ case: "stdout", value: { data: "x" } })).toBeUndefined();
	});

	test("progress is bounded to the last lines", () => {
		const shells = new ShellTracker();
		shells.started("s1", started("yes"));
		const progress = shells.delta({
			case: "stdout",
			value: { data: Array.from({ length: 500 }, (_, i) => `l${i}`).join("\n") },
		});
		expect(progress?.text.split("\n").length).toBeLessThan(45);
		expect(progress?.text).toContain("l499");
	});

	test("a completion under another id matches the unique pending shell with identical arguments", () => {
		const shells = new ShellTracker();
		shells.started("s1", started("npm test"));
		shells.started("s2", started("npm run lint"));
		expect(shells.completed("other-id", started("npm test"))?.startedCallId).toBe("s1");
		expect(shells.running).toEqual(["s2"]);
	});

	test("two pending shells with identical arguments: no guess", () => {
		const shells = new ShellTracker();
		shells.started("s1", started("npm test"));
		shells.started("s2", started("npm test"));
		expect(shells.completed("other-id", started("npm test"))).toBeUndefined();
		expect(shells.completed("s2", started("npm test"))?.startedCallId).toBe("s2");
	});

	test("non-shell calls are not tracked", () => {
		const shells = new ShellTracker();
		shells.started("r1", { type: "read", args: { path: "a" } });
		expect(shells.running).toEqual([]);
	});
});

describe("replay store", () => {
	test("a record is consumed once, by its own tool only", () => {
		const store = new ReplayStore();
		store.record(bash);
		expect(store.take(bash.id, "read")).toEqual({ kind: "wrong-tool", recordedName: "bash" });
		expect(store.has(bash.id)).toBe(true);
		expect(store.take(bash.id, "bash")).toEqual({ kind: "recorded", card: bash });
		expect(store.take(bash.id, "bash")).toEqual({ kind: "not-recorded" });
		expect(store.take("never", "bash")).toEqual({ kind: "not-recorded" });
	});

	test("bounded: the oldest unconsumed records go first", () => {
		const store = new ReplayStore(2);
		const cards = ["a", "b", "c"].map((id) => mapCompletedToolCall(id, shellCall(id), ctx));
		for (const card of cards) store.record(card);
		expect(store.size).toBe(2);
		expect(store.has(cards[0]?.id ?? "")).toBe(false);
		expect(store.has(cards[2]?.id ?? "")).toBe(true);
		store.clear();
		expect(store.size).toBe(0);
	});
});
