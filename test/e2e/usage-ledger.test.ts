// /cursor-usage as a user sees it: the real `pi --mode rpc` with the built bundle and the real @cursor/sdk against
// the loopback fake backend, which reports `turn_ended` usage per scenario and answers `GET /v1/agents/:id/usage`.
// Three turns are journaled, the view survives a restart (`-c`), a torn journal tail is skipped, and exports are
// private, exclusive and free of prompts and keys. The tests take turns on one Pi (a new Pi session each); only the
// restart starts a Pi of its own.
import { expect, test } from "bun:test";
import { appendFileSync, existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { journalPath } from "../../src/usage/journal.ts";
import { leakedSecrets, TURN_TEST_MS, turnSuite } from "../support/pi-turn.ts";
import { isNotify, type RpcPi, SharedRpcPi, startRpcPi } from "../support/rpc.ts";

const TIMEOUT_MS = TURN_TEST_MS;

/** Three turns with distinct raw usage: [input (incl. cache), output, cache read, cache write]. */
const TURNS = [
	{ marker: "[[usage:one]]", raw: [4232, 3, 4096, 0] },
	{ marker: "[[usage:two]]", raw: [5000, 250, 1200, 800] },
	{ marker: "[[usage:three]]", raw: [90, 7, 0, 0] },
] as const;

const BILLED = {
	totalUsage: {
		inputTokens: 9322,
		outputTokens: 260,
		cacheReadTokens: 5296,
		cacheWriteTokens: 800,
		totalTokens: 15678,
	},
	cost: { rawCostCents: 12.5, chargedCents: 3.25 },
	runs: [],
};

const PROMPT_WORDS = "secret-plans-in-the-prompt";

const scenarioMap: Record<string, object> = {};
for (const turn of TURNS) {
	const [inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens] = turn.raw;
	scenarioMap[turn.marker] = {
		name: turn.marker,
		steps: [{ text: "ok" }, { turnEnded: { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } }],
	};
}
const suite = turnSuite({ scenarioMap, rest: { usage: BILLED } });
/** The home of the shared Pi (and of the restart, which continues one of its sessions). */
let home: ReturnType<typeof suite.homes.create> | undefined;
const sharedHome = () => {
	home ??= suite.homes.create();
	return home;
};
/** One Pi for the tests' turns: a new Pi session (with its own journal) per test. */
const shared = new SharedRpcPi(() =>
	startRpcPi(["--model", "cursor/composer-2"], { home: sharedHome(), env: suite.env(), lifetimeMs: 4 * TIMEOUT_MS }),
);
/** Journals the tests saw; each must outlive the shared Pi's exit. */
const journals: string[] = [];

async function turn(pi: RpcPi, text: string): Promise<void> {
	const from = pi.mark();
	const { response } = await pi.prompt(text);
	if (!response.success) throw new Error(`prompt failed: ${JSON.stringify(response)}\n${pi.describe()}`);
	await pi.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 30_000 });
}

/** Runs a slash command and returns the text of the notification it produced. */
async function command(pi: RpcPi, text: string, match: RegExp | string = /./): Promise<string> {
	const from = pi.mark();
	const { response } = await pi.prompt(text, { timeoutMs: 30_000 });
	expect(response.success).toBe(true);
	const notice = await pi.waitFor(isNotify(match), { from, timeoutMs: 15_000 });
	return String(notice.message);
}

function expectSendFigures(view: string): void {
	// raw = what the fake reported; mapped = input − cache read − cache write, total = input + output
	expect(view).toContain("3 sends on 1 agent: 3 finished");
	expect(view).toContain(
		"raw input 4232 (cache read 4096, cache write 0) · output 3 → mapped input 136 · cache read 4096 · cache write 0 · output 3 · total 4235",
	);
	expect(view).toContain(
		"raw input 5000 (cache read 1200, cache write 800) · output 250 → mapped input 3000 · cache read 1200 · cache write 800 · output 250 · total 5250",
	);
	expect(view).toContain(
		"raw input 90 (cache read 0, cache write 0) · output 7 → mapped input 90 · cache read 0 · cache write 0 · output 7 · total 97",
	);
	expect(view).toContain("Total: raw input 9322 (cache read 5296, cache write 800) · output 260");
	expect(view).toContain("mapped input 3226 · cache read 5296 · cache write 800 · output 260 · total 9582");
	const sendLines = view.split("\n").filter((line) => /^ {2}#\d+ /.test(line));
	expect(sendLines).toHaveLength(3);
}

/** The journal beside a session file (named after a hash of the session id read from its header). */
function journalOf(sessionFile: string): string {
	const header = JSON.parse(readFileSync(sessionFile, "utf8").split("\n")[0] as string) as { id: string };
	const path = journalPath(dirname(sessionFile), header.id);
	expect(existsSync(path)).toBe(true);
	return path;
}

function customEntries(sessionFile: string, customType: string): Record<string, unknown>[] {
	return readFileSync(sessionFile, "utf8")
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as Record<string, unknown>)
		.filter((e) => e.type === "custom" && e.customType === customType);
}

test(
	"three turns: /cursor-usage shows each send's raw and mapped figures, billed totals after refresh, and the same view after a restart; lineage once per agent",
	async () => {
		// The first test: its session is the only one in the shared home, so `-c` below continues it.
		const { state, sessionFile } = await shared.use(async (first) => {
			const state = await first.ready();
			const sessionFile = String(state.sessionFile);
			for (const t of TURNS) await turn(first, `${t.marker} ${PROMPT_WORDS}`);

			const view = await command(first, "/cursor-usage", "Cursor usage for this session");
			expectSendFigures(view);
			expect(view).toContain("billed: not requested yet");

			const refreshed = await command(first, "/cursor-usage refresh", "Asked Cursor about 1 agent");
			expect(refreshed).toContain(
				"billed: 15678 tokens (input 9322, cache read 5296, cache write 800, output 260) · cost $0.1250, charged $0.0325",
			);
			expect(refreshed).toContain("pending settlement");
			const usageRequests = (await suite.backend.requests()).filter((r) => /^\/v1\/agents\/[^/]+\/usage$/.test(r.path));
			expect(usageRequests.length).toBeGreaterThanOrEqual(1);
			return { state, sessionFile };
		});

		const journal = journalOf(sessionFile);
		journals.push(journal);
		expect(statSync(journal).mode & 0o777).toBe(0o600);
		const journalText = readFileSync(journal, "utf8");
		expect(journalText).not.toContain(PROMPT_WORDS);
		expect(leakedSecrets(journalText)).toEqual([]);
		// one lineage entry for the one pooled agent of the three turns
		const lineage = customEntries(sessionFile, "cursor-sdk-agent-lineage");
		expect(lineage).toHaveLength(1);
		expect(lineage[0]?.data).toMatchObject({ sessionId: state.sessionId, model: "composer-2" });

		// A restart continues the session: the view is rebuilt from the journal.
		const second = startRpcPi(["--model", "cursor/composer-2", "-c"], {
			home: sharedHome(),
			env: suite.env(),
			lifetimeMs: TIMEOUT_MS,
		});
		try {
			const again = await second.ready();
			expect(again.sessionId).toBe(state.sessionId);
			const rebuilt = await command(second, "/cursor-usage", "Cursor usage for this session");
			expectSendFigures(rebuilt);
			expect(rebuilt).toContain("billed: 15678 tokens");
			const exit = await second.close();
			expect(exit.code).toBe(0);
			expect(exit.junk).toEqual([]);
		} catch (error) {
			if (error instanceof Error) error.message += `\n${second.describe()}`;
			throw error;
		} finally {
			await second.kill();
		}
	},
	TIMEOUT_MS,
);

test(
	"a torn journal tail still renders and exports; export refuses an existing file and writes private JSON without prompts or keys",
	async () => {
		await shared.use(async (pi) => {
			const state = await pi.ready();
			for (const t of TURNS) await turn(pi, `${t.marker} ${PROMPT_WORDS}`);
			const journal = journalOf(String(state.sessionFile));
			journals.push(journal);
			// a crash mid-append leaves half a record without its newline
			appendFileSync(journal, '{"v":1,"type":"send","sessionId":"');

			const view = await command(pi, "/cursor-usage", "Cursor usage for this session");
			expectSendFigures(view);
			expect(view).toContain("1 unreadable journal line(s) skipped");

			const target = join(sharedHome().dir, "usage-export.json");
			const exported = await command(pi, `/cursor-usage export ${target}`, "Cursor usage exported to");
			expect(exported).toContain(target);
			expect(statSync(target).mode & 0o777).toBe(0o600);
			const text = readFileSync(target, "utf8");
			const document = JSON.parse(text) as { sessionId: string; records: { type: string }[]; skippedLines: number };
			expect(document.sessionId).toBe(String(state.sessionId));
			expect(document.records.filter((r) => r.type === "send")).toHaveLength(3);
			expect(document.skippedLines).toBe(1);
			expect(text).not.toContain(PROMPT_WORDS);
			expect(leakedSecrets(text)).toEqual([]);

			const refused = await command(pi, `/cursor-usage export ${target}`, "already exists");
			expect(refused).toContain("never overwrites");
			expect(readFileSync(target, "utf8")).toBe(text);

			// the next send is journaled on a line of its own, after the torn one
			await turn(pi, `${TURNS[2].marker} once more`);
			const after = await command(pi, "/cursor-usage", "Cursor usage for this session");
			expect(after).toContain("4 sends on 1 agent: 4 finished");
			expect(after).toContain("1 unreadable journal line(s) skipped");

			const help = await command(pi, "/cursor-usage help", "/cursor-usage refresh");
			expect(help).toContain("Not counted");
		});
	},
	TIMEOUT_MS,
);

test(
	"a fork shows its donor's sends as inherited history, journals its own, and never writes the donor's journal",
	async () => {
		await shared.use(async (pi) => {
			const donor = await pi.ready();
			for (const t of TURNS) await turn(pi, `${t.marker} fork source`);
			const donorJournal = journalOf(String(donor.sessionFile));
			const donorText = readFileSync(donorJournal, "utf8");
			const { response } = await pi.send({ type: "get_entries" });
			const entries = (response.data as { entries: { id: string; type: string; message?: { role?: string } }[] })
				.entries;
			const lastUser = entries.filter((e) => e.type === "message" && e.message?.role === "user").at(-1);
			expect((await pi.send({ type: "fork", entryId: lastUser?.id })).response.success).toBe(true);
			const fork = await pi.ready();
			expect(fork.sessionId).not.toBe(donor.sessionId);

			const before = await command(pi, "/cursor-usage", "Cursor usage for this session");
			expect(before).toContain("No Cursor sends recorded in this session yet.");
			expect(before).toContain(`Inherited from session ${donor.sessionId}`);
			expect(before).toContain("3 sends on 1 agent");
			expect(before).toContain("raw input 9322 (cache read 5296, cache write 800) · output 260");

			await turn(pi, `${TURNS[2].marker} in the fork`);
			const after = await command(pi, "/cursor-usage", "Cursor usage for this session");
			expect(after).toContain("1 send on 1 agent: 1 finished");
			expect(after).toContain(`Inherited from session ${donor.sessionId}`);
			expect(readFileSync(donorJournal, "utf8")).toBe(donorText);
			const lineage = customEntries(String(fork.sessionFile), "cursor-sdk-agent-lineage").filter(
				(e) => (e.data as { sessionId?: string }).sessionId === fork.sessionId,
			);
			expect(lineage).toHaveLength(1);
			journals.push(journalOf(String(fork.sessionFile)));
		});
	},
	TIMEOUT_MS,
);

test(
	"the shared Pi exits cleanly (code 0, only JSON on stdout) and every session's journal outlives it",
	async () => {
		await shared.closeCleanly();
		expect(journals).toHaveLength(3);
		for (const journal of journals) expect(existsSync(journal)).toBe(true);
	},
	TIMEOUT_MS,
);

suite.nothingLeftBehind();
