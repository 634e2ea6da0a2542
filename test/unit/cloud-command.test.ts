import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	type ApiStatus,
	decideMutation,
	parseCloudCommand,
	renderCloudList,
	statusQueries,
} from "../../src/cloud/command.ts";
import { CloudJournal } from "../../src/cloud/journal.ts";
import { cloudListText, type ManageDeps, mutateCloudAgent } from "../../src/cloud/manage.ts";
import { type CloudRecord, recordedAgents } from "../../src/cloud/records.ts";

const A = "bc-aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const B = "bc-bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
const STRANGER = "bc-99999999-9999-4999-8999-999999999999";
const REPO = "https://github.com/acme/app";
const KEY = "key_cloud_command_test_8c1f";

describe("parsing /cursor-cloud", () => {
	test.each([
		["list", { kind: "list" }],
		["  list ", { kind: "list" }],
		[`archive ${A}`, { kind: "archive", agentId: A }],
		[`delete ${A}`, { kind: "delete", agentId: A, confirmed: false }],
		[`delete ${A} --yes`, { kind: "delete", agentId: A, confirmed: true }],
		[`cancel ${A}`, { kind: "cancel", agentId: A }],
		[`wait ${A}`, { kind: "wait", agentId: A }],
		[`show ${A}`, { kind: "show", agentId: A }],
		["launch  Fix the flaky test --now ", { kind: "launch", task: "Fix the flaky test --now" }],
		[`follow ${A}`, { kind: "follow", agentId: A }],
		[`send ${A} Also add a test`, { kind: "send", agentId: A, message: "Also add a test" }],
		[`artifacts ${A}`, { kind: "artifacts", agentId: A }],
		[
			`artifacts ${A} download r/a.md --to out --force`,
			{ kind: "artifacts", agentId: A, download: { path: "r/a.md", to: "out", force: true } },
		],
	])("%s", (args, command) => {
		expect(parseCloudCommand(args)).toEqual(command as ReturnType<typeof parseCloudCommand>);
	});

	test.each([
		"",
		"help",
		"list all",
		"archive",
		"archive agent-1",
		`archive ${A} --yes`,
		`delete ${A} --force`,
		"launch",
		"wait",
		`send ${A}`,
		`artifacts ${A} download r/a.md`,
		`artifacts ${A} download r/a.md --to out --yes`,
		`wait ${A} now`,
		"cancel bc-",
		"remove x",
	])("%s explains the usage", (args) => {
		const command = parseCloudCommand(args);
		expect(command.kind).toBe("usage");
		if (command.kind === "usage")
			expect(command.message).toMatch(/\/cursor-cloud (list \| launch <task>|launch needs a task)/);
	});
});

const at = (n: number) => ({ v: 1 as const, at: Date.UTC(2026, 0, 1, 0, 0, n) });
const RECORDS: CloudRecord[] = [
	{ ...at(1), type: "agent", agentId: A, model: "composer-2", repo: REPO, startingRef: "main" },
	{ ...at(2), type: "run", agentId: A, runId: "run-1" },
	{
		...at(3),
		type: "result",
		agentId: A,
		runId: "run-1",
		status: "finished",
		git: [{ branch: "cursor/x", prUrl: `${REPO}/pull/3` }],
	},
	{ ...at(4), type: "agent", agentId: B, model: "gpt-5", repo: null },
];

describe("deciding a mutation", () => {
	const agents = recordedAgents(RECORDS);

	test("only agents this session recorded", () => {
		const decision = decideMutation(agents, { kind: "archive", agentId: STRANGER });
		expect(decision).toMatchObject({
			allowed: false,
			message: expect.stringContaining("was not created in this Pi session"),
		});
	});

	test("delete explains itself without --yes and goes ahead with it", () => {
		expect(decideMutation(agents, { kind: "delete", agentId: A, confirmed: false })).toMatchObject({
			allowed: false,
			message: expect.stringContaining(`/cursor-cloud delete ${A} --yes`),
		});
		expect(decideMutation(agents, { kind: "delete", agentId: A, confirmed: true })).toMatchObject({ allowed: true });
	});

	test("an unresolved earlier attempt blocks repeating that mutation and points to the dashboard", () => {
		const pending = recordedAgents([
			...RECORDS,
			{ ...at(5), type: "intent", op: "archive", agentId: A, intentId: "i" },
		]);
		const decision = decideMutation(pending, { kind: "archive", agentId: A });
		expect(decision).toMatchObject({ allowed: false, message: expect.stringContaining("https://cursor.com/agents") });
		expect(decideMutation(pending, { kind: "delete", agentId: A, confirmed: true })).toMatchObject({ allowed: true });
	});
});

describe("the list", () => {
	test("one block per agent: status from the API, repository, branch, PR, model, runs, created", () => {
		const agents = recordedAgents(RECORDS);
		const statuses = new Map<string, ApiStatus>([
			[A, { kind: "ok", archived: false, run: "finished" }],
			[B, { kind: "unavailable", reason: "no answer within 15 s" }],
		]);
		expect(renderCloudList(agents, statuses)).toBe(
			[
				"Cursor Cloud agents of this Pi session (2):",
				`${A} · finished`,
				`  repository: ${REPO} (from main)`,
				"  branch: cursor/x",
				`  pull request: ${REPO}/pull/3`,
				"  model: composer-2 · runs: 1 · created 2026-01-01T00:00:01.000Z",
				`${B} · unknown (no answer within 15 s)`,
				"  repository: no repository",
				"  model: gpt-5 · runs: 0 · created 2026-01-01T00:00:04.000Z",
			].join("\n"),
		);
		expect(renderCloudList([], new Map())).toBe("No Cursor Cloud agents recorded in this Pi session.");
		expect(statusQueries(agents)).toEqual([
			{ agentId: A, runId: "run-1" },
			{ agentId: B, runId: undefined },
		]);
	});
});

describe("list, archive and delete against the API (stub SDK, real journal)", () => {
	const dirs: string[] = [];
	afterEach(() => {
		for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
	});

	function setup(behaviour: { archive?: () => Promise<void>; delete?: () => Promise<void> } = {}) {
		const dir = mkdtempSync(join(tmpdir(), "cloud-command-"));
		dirs.push(dir);
		const journal = new CloudJournal(join(dir, "cloud.journal"));
		for (const { v: _v, at: _at, ...entry } of RECORDS) journal.record(entry);
		const calls: { call: string; journalAtCall: string[] }[] = [];
		const seen = (call: string) => calls.push({ call, journalAtCall: journal.read().records.map((r) => r.type) });
		const deps: ManageDeps = {
			apiKey: KEY,
			journal,
			timeoutMs: 200,
			sdk: {
				getAgent: async (id) => {
					seen(`get ${id}`);
					if (id === B) throw Object.assign(new Error("[not_found] agent not found"), { status: 404 });
					return { agentId: id, name: "", summary: "", lastModified: 0, archived: true };
				},
				getRun: async (id, runId) => {
					seen(`getRun ${id} ${runId}`);
					return { id: runId, status: "finished" };
				},
				archiveAgent: async (id) => {
					seen(`archive ${id}`);
					await behaviour.archive?.();
				},
				deleteAgent: async (id) => {
					seen(`delete ${id}`);
					await behaviour.delete?.();
				},
				cancelRun: async (id, runId) => {
					seen(`cancel ${id} ${runId}`);
				},
			},
		};
		return { deps, journal, calls };
	}

	test("list asks the API about each recorded agent's latest run", async () => {
		const { deps, calls } = setup();
		const text = await cloudListText(deps);
		expect(text).toContain(`${A} · archived`);
		expect(text).toContain(`${B} · not found (deleted?)`);
		expect(calls.map((c) => c.call).sort()).toEqual([`get ${A}`, `get ${B}`, `getRun ${A} run-1`]);
	});

	test("archive: the intent is durable before the request, the outcome after; a repeat is not sent", async () => {
		const { deps, journal, calls } = setup();
		expect(await mutateCloudAgent(deps, { kind: "archive", agentId: A })).toEqual({
			ok: true,
			message: `${A} archived.`,
		});
		expect(calls).toEqual([{ call: `archive ${A}`, journalAtCall: ["agent", "run", "result", "agent", "intent"] }]);
		expect(journal.read().records.slice(-2)).toMatchObject([
			{ type: "intent", op: "archive", agentId: A },
			{ type: "mutation", op: "archive", agentId: A, outcome: "done" },
		]);
		expect(await mutateCloudAgent(deps, { kind: "archive", agentId: A })).toMatchObject({
			message: `${A} is already archived.`,
		});
		expect(calls).toHaveLength(1);
	});

	test("an API refusal (4xx) is recorded as such and may be retried; an unknown outcome blocks the retry", async () => {
		const refusing = setup({
			delete: () => Promise.reject(Object.assign(new Error("[forbidden] not yours"), { status: 403 })),
		});
		const refused = await mutateCloudAgent(refusing.deps, { kind: "delete", agentId: A, confirmed: true });
		expect(refused).toEqual({ ok: false, message: `Cursor refused to delete ${A}: [forbidden] not yours` });
		expect(refusing.journal.read().records.at(-1)).toMatchObject({ type: "mutation", outcome: "rejected" });
		await mutateCloudAgent(refusing.deps, { kind: "delete", agentId: A, confirmed: true });
		expect(refusing.calls).toHaveLength(2);

		const hanging = setup({ archive: () => new Promise(() => {}) });
		const unknown = await mutateCloudAgent(hanging.deps, { kind: "archive", agentId: A });
		expect(unknown.ok).toBe(false);
		expect(unknown.message).toContain("did not report an outcome (no answer within 0.2 s)");
		expect(hanging.journal.read().records.at(-1)).toMatchObject({ type: "intent" });
		const blocked = await mutateCloudAgent(hanging.deps, { kind: "archive", agentId: A });
		expect(blocked.message).toContain("never reported its outcome");
		expect(hanging.calls).toHaveLength(1);
	});

	test("a delete of an agent that is already gone (404) counts as done; ids not recorded here are never sent", async () => {
		const { deps, journal, calls } = setup({
			delete: () => Promise.reject(Object.assign(new Error("[not_found] agent not found"), { status: 404 })),
		});
		expect(await mutateCloudAgent(deps, { kind: "delete", agentId: A, confirmed: true })).toEqual({
			ok: true,
			message: `${A} was already gone.`,
		});
		expect(recordedAgents(journal.read().records)[0]?.deleted).toBe(true);
		expect(await mutateCloudAgent(deps, { kind: "archive", agentId: STRANGER })).toMatchObject({ ok: false });
		expect(calls.map((c) => c.call)).toEqual([`delete ${A}`]);
	});

	test("no request when the intent cannot be recorded", async () => {
		const { deps, calls } = setup();
		const broken: ManageDeps = {
			...deps,
			journal: {
				read: deps.journal.read.bind(deps.journal),
				record: () => {
					throw new Error("EROFS: read-only file system");
				},
			},
		};
		expect(await mutateCloudAgent(broken, { kind: "archive", agentId: A })).toEqual({
			ok: false,
			message: "Nothing was sent: the cloud journal could not record the archive (EROFS: read-only file system).",
		});
		expect(calls).toEqual([]);
	});
});
