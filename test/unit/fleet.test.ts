import { afterAll, describe, expect, test } from "bun:test";
import type { CloudRecord } from "../../src/cloud/records.ts";
import { artifactTarget } from "../../src/fleet/artifacts.ts";
import { CloudFleet, type FleetSession } from "../../src/fleet/fleet.ts";
import { liveLine } from "../../src/fleet/live.ts";
import { CLOUD_OUTCOME_MESSAGE, deliveredRuns, openRuns, outcomeText, type RunEnd } from "../../src/fleet/outcomes.ts";
import type { CloudRunState } from "../../src/sdk/cursor-sdk.ts";
import { fc, nastyString, PropertyTarget } from "../support/property.ts";

const A = "bc-aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const B = "bc-bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
const at = 1;
const agent = (agentId: string): CloudRecord => ({ v: 1, at, type: "agent", agentId, model: "m", repo: null });
const run = (agentId: string, runId: string): CloudRecord => ({ v: 1, at, type: "run", agentId, runId });
const result = (agentId: string, runId: string | null): CloudRecord => ({
	v: 1,
	at,
	type: "result",
	agentId,
	runId,
	status: "finished",
});

describe("which runs a session still owes an outcome for", () => {
	test("a run without a result of its own id; results of other runs or of failed sends do not close it", () => {
		const records = [
			agent(A),
			run(A, "r1"),
			result(A, "r1"),
			run(A, "r2"),
			result(A, null),
			agent(B),
			run(B, "r3"),
			run("bc-unknown" as string, "r4"),
		];
		expect(openRuns(records).map((r) => r.runId)).toEqual(["r2", "r3"]);
	});

	const property = new PropertyTarget("fleet-open-runs");
	afterAll(() => property.report());
	test("property: an open run has a run record and no result record after its latest one", async () => {
		const step = fc.record({
			kind: fc.constantFrom("run", "result"),
			agent: fc.constantFrom(A, B),
			runId: fc.constantFrom("r1", "r2", "r3"),
		});
		await property.check(
			fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
				const records = [
					agent(A),
					agent(B),
					...steps.map((s) => (s.kind === "run" ? run(s.agent, s.runId) : result(s.agent, s.runId))),
				];
				for (const open of openRuns(records)) {
					const index = records.findLastIndex((r) => r.type === "run" && r.runId === open.runId);
					expect(index).toBeGreaterThanOrEqual(0);
					const later = records.slice(index).some((r) => r.type === "result" && r.runId === open.runId);
					expect(later).toBe(false);
				}
				return true;
			}),
			300,
		);
	});

	test("the branch's outcome messages name the runs already delivered", () => {
		const branch = [
			{ type: "message", message: { role: "user" } },
			{ type: "custom_message", customType: CLOUD_OUTCOME_MESSAGE, details: { runId: "r1", status: "cancelled" } },
			{ type: "custom_message", customType: "other", details: { runId: "r2" } },
			null,
		];
		expect([...deliveredRuns(branch)]).toEqual([["r1", "cancelled"]]);
	});
});

describe("the outcome card", () => {
	test("status, duration, usage, branch, pull request and the answer", () => {
		const text = outcomeText(A, {
			status: "finished",
			result: "Fixed it.\nAll green.",
			branches: [{ repoUrl: "r", branch: "cursor/fix", prUrl: "https://github.com/acme/app/pull/7" }],
			durationMs: 95_000,
			usage: { inputTokens: 10, outputTokens: 3 },
		});
		expect(text).toBe(
			[
				`Cursor Cloud agent ${A} finished (1 min 35 s, 10 in / 3 out tokens).`,
				"Branch: cursor/fix",
				"Pull request: https://github.com/acme/app/pull/7",
				"",
				"Fixed it.\nAll green.",
			].join("\n"),
		);
		expect(outcomeText(A, { status: "error", error: "boom" })).toBe(`Cursor Cloud agent ${A} failed.\nError: boom`);
	});

	test("property: no control character from Cursor reaches the card, except the answer's line breaks and tabs", async () => {
		const target = new PropertyTarget("fleet-outcome-card");
		await target.check(
			fc.property(nastyString, nastyString, nastyString, (answer, branch, error) => {
				const text = outcomeText(A, { status: "error", result: answer, error, branches: [{ branch, prUrl: branch }] });
				expect(/[^\P{Cc}\n\t]/u.test(text)).toBe(false);
				return true;
			}),
			300,
		);
		target.report();
	});
});

function session(records: CloudRecord[], branch: unknown[] = [], mode: FleetSession["mode"] = "rpc") {
	const written: unknown[] = [];
	return {
		written,
		session: {
			journal: {
				read: () => ({ records, error: undefined, skipped: 0 }) as never,
				record: (e: unknown) => void written.push(e),
			},
			branch: () => branch,
			mode,
			turnAgents: () => [A],
			apiKey: async () => "key_unit",
		} satisfies FleetSession,
	};
}

function fleet(states: Record<string, CloudRunState>, follow?: Promise<CloudRunState>, streamed: string[] = []) {
	const sent: { content: string; details: { runId: string } }[] = [];
	const calls: string[] = [];
	const statuses: (string | undefined)[] = [];
	const lines: (string[] | undefined)[] = [];
	const f = new CloudFleet({
		sdk: {
			getRun: async (_agentId, runId) => {
				calls.push(`getRun ${runId}`);
				const state = states[runId];
				if (!state) throw Object.assign(new Error("[not_found] run"), { status: 404 });
				return state;
			},
			followRun: async (_a, runId) => {
				calls.push(`follow ${runId}`);
				return (await follow) as CloudRunState;
			},
			cancelRun: async (_a, runId) => void calls.push(`cancel ${runId}`),
			streamRunText: async (_a, runId, _key, onText) => {
				calls.push(`stream ${runId}`);
				for (const text of streamed) onText(text);
			},
		},
		sendOutcome: (message) => {
			lines.push(["(card)"]);
			sent.push(message);
		},
		notify: () => {},
		report: () => {},
		setStatus: (text) => void statuses.push(text),
		setLines: (shown) => void lines.push(shown),
	});
	return { f, sent, calls, statuses, lines };
}

describe("a run's line", () => {
	test("agent, task and the tail of its text on one line", () => {
		expect(liveLine(A, "", "Fix the login")).toBe(`☁ ${A} (Fix the login): working…`);
		const line = liveLine(A, `${"x".repeat(300)}\nlast words`);
		expect(line.endsWith("x last words")).toBe(true);
		expect(line.length).toBeLessThan(A.length + 110);
	});

	test("property: nothing Cursor streams puts a control or format character on the line", async () => {
		const target = new PropertyTarget("fleet-live-line");
		await target.check(
			fc.property(nastyString, nastyString, (text, task) => {
				const line = liveLine(A, text, task);
				expect(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(line)).toBe(false);
				return true;
			}),
			300,
		);
		target.report();
	});
});

describe("the fleet at session start", () => {
	test("no open run: no request at all", async () => {
		const { f, calls } = fleet({});
		await f.start(session([agent(A), run(A, "r1"), result(A, "r1")]).session, 1000);
		expect(calls).toEqual([]);
	});

	test("a finished run: its card once, its result journaled; a run the branch already shows is only journaled", async () => {
		const { f, sent, calls } = fleet({
			r1: { id: "r1", status: "finished", result: "Done." },
			r2: { id: "r2", status: "finished" },
		});
		const branch = [
			{ type: "custom_message", customType: CLOUD_OUTCOME_MESSAGE, details: { runId: "r2", status: "finished" } },
		];
		const s = session([agent(A), run(A, "r1"), run(A, "r2")], branch);
		await f.start(s.session, 1000);
		expect(calls).toEqual(["getRun r1"]);
		expect(sent.map((m) => [m.details.runId, m.content.includes("Done.")])).toEqual([["r1", true]]);
		expect(s.written).toEqual([
			{ type: "result", agentId: A, runId: "r2", status: "finished" },
			{ type: "result", agentId: A, runId: "r1", status: "finished" },
		]);
	});

	test("a running run is followed: footer count 1 → none, its card when it ends; a send to its agent can wait for it", async () => {
		let finish: (state: CloudRunState) => void = () => {};
		const follow = new Promise<CloudRunState>((resolve) => {
			finish = resolve;
		});
		const { f, sent, statuses } = fleet({ r1: { id: "r1", status: "running" } }, follow);
		await f.start(session([agent(A), run(A, "r1")]).session, 1000);
		expect(f.inFlight).toBe(1);
		const active = f.activeRunOf(A);
		expect(active?.runId).toBe("r1");
		expect(f.activeRunOf(B)).toBeUndefined();
		finish({ id: "r1", status: "cancelled" });
		expect(await active?.ended).toMatchObject({ status: "cancelled" });
		expect(sent).toHaveLength(1);
		expect(statuses).toEqual(["☁ 1 cloud run", undefined]);
		expect(f.inFlight).toBe(0);
	});

	test("RPC and TUI: a followed run's streamed text shows on its line, the last of it before its card; then the line goes", async () => {
		let finish: (state: CloudRunState) => void = () => {};
		const follow = new Promise<CloudRunState>((resolve) => {
			finish = resolve;
		});
		const { f, calls, lines } = fleet({ r1: { id: "r1", status: "running" } }, follow, [
			"Working. ",
			"Done \x1b[2Jnow.",
		]);
		await f.start(session([agent(A), run(A, "r1")]).session, 1000);
		finish({ id: "r1", status: "finished", result: "Done now." });
		await f.activeRunOf(A)?.ended;
		expect(calls).toContain("stream r1");
		const card = lines.findIndex((l) => l?.[0] === "(card)");
		const text = lines.findIndex((l) => l?.[0]?.includes("Working. Done [2Jnow."));
		expect(text).toBeGreaterThanOrEqual(0);
		expect(text).toBeLessThan(card);
		expect(lines[card - 1]).toBeUndefined(); // the line went before the card landed
		expect(lines.join("\n")).not.toContain("\x1b");
	});

	test("print and JSON: nothing is streamed, no line is shown (only the outcome)", async () => {
		const { f, calls, lines, sent } = fleet(
			{ r1: { id: "r1", status: "running" } },
			Promise.resolve({ id: "r1", status: "finished" }),
			["text"],
		);
		await f.start(session([agent(A), run(A, "r1")], [], "print").session, 1000);
		expect(calls).not.toContain("stream r1");
		expect(lines.filter((l) => l?.[0] !== "(card)")).toEqual([]);
		expect(sent).toHaveLength(1);
	});

	test("a run Cursor no longer knows (404) is closed in the journal without a card", async () => {
		const { f, sent } = fleet({});
		const s = session([agent(A), run(A, "gone")]);
		await f.start(s.session, 1000);
		expect(sent).toEqual([]);
		expect(s.written).toMatchObject([{ type: "result", runId: "gone", status: "error" }]);
	});

	test("an end that arrives after the session changed is not delivered to the new one", async () => {
		let finish: (state: CloudRunState) => void = () => {};
		const follow = new Promise<CloudRunState>((resolve) => {
			finish = resolve;
		});
		const { f, sent } = fleet({ r1: { id: "r1", status: "running" } }, follow);
		await f.start(session([agent(A), run(A, "r1")]).session, 1000);
		await f.start(session([]).session, 1000);
		finish({ id: "r1", status: "finished" } satisfies RunEnd & { id: string });
		await new Promise((resolve) => setTimeout(resolve, 10));
		expect(sent).toEqual([]);
	});
});

describe("where an artifact is downloaded", () => {
	test("inside the named folder; a path that leaves it is refused", () => {
		expect(artifactTarget("out", "reports/a.md", "/home/u/project")).toEqual({
			ok: true,
			path: "/home/u/project/out/reports/a.md",
		});
		expect(artifactTarget("/tmp/x", "/abs/b.txt", "/home/u/project")).toEqual({ ok: true, path: "/tmp/x/abs/b.txt" });
		for (const bad of ["../etc/passwd", "a/../../b", "", ".", "x\0y"]) {
			expect(artifactTarget("out", bad, "/home/u/project").ok).toBe(false);
		}
	});

	test("property: whatever path Cursor names, the target stays inside the folder", async () => {
		const target = new PropertyTarget("fleet-artifact-target");
		const segment = fc.oneof(fc.constantFrom("..", ".", "", "a", "/", "\\\\"), nastyString);
		await target.check(
			fc.property(fc.array(segment, { maxLength: 6 }), (parts) => {
				const result = artifactTarget("out", parts.join("/"), "/home/u/project");
				if (result.ok) expect(result.path.startsWith("/home/u/project/out/")).toBe(true);
				return true;
			}),
			500,
		);
		target.report();
	});
});
