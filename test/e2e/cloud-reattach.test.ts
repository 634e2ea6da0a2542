// Cursor Cloud runs outlive the Pi that started them: the real `pi` CLI on the built bundle, the real @cursor/sdk
// against the cloud fake, whose runs go on on its own clock. Pi is SIGKILLed mid-run; `pi -c` with the same flags
// collects the run's outcome exactly once (waiting for it when it is still running), and the next prompt goes to the
// same agent without a busy failure.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cloudFakeForFile, type RequestLogEntry, type Scenario } from "../support/cloud-fake/client.ts";
import { filesUnder, runPi, type TempHome } from "../support/pi.ts";
import { HomeRegistry, jsonLines, leakedSecrets, NO_RETRY, sessionEntriesOf, withOutput } from "../support/pi-turn.ts";
import { startRpcPi, statuses } from "../support/rpc.ts";

const TIMEOUT_MS = 150_000;
const REPO = "https://github.com/acme/app";
const PR = { repoUrl: REPO, branch: "cursor/fix-login", prUrl: `${REPO}/pull/7` };
const LONG_ANSWER = "Done: the login works again.";

const SCENARIOS: Record<string, Scenario> = {
	"[[long]]": {
		steps: [
			{ text: "Working on it. " },
			{ delay: 4000 },
			{ text: LONG_ANSWER },
			{ turnEnded: { inputTokens: 30, outputTokens: 7 } },
		],
		result: { git: { branches: [PR] } },
	},
	"[[longer]]": {
		steps: [
			{ text: "Working on it. " },
			{ delay: 15_000 },
			{ text: LONG_ANSWER },
			{ turnEnded: { inputTokens: 30, outputTokens: 7 } },
		],
		result: { git: { branches: [PR] } },
	},
	"[[answer]]": {
		steps: [{ text: "Next answer." }, { turnEnded: { inputTokens: 5, outputTokens: 2 } }],
	},
};

const cloud = cloudFakeForFile(SCENARIOS);
const homes = new HomeRegistry();
const CLOUD_ARGS = [
	"--model",
	"cursor/composer-2.5",
	"--cursor-runtime",
	"cloud",
	"--cursor-cloud-ack",
	"--cursor-cloud-repo",
	REPO,
];

const piIn = (home: TempHome, args: string[]) => runPi(args, { home, env: cloud.fake.piEnv() });
const apiRequests = (log: RequestLogEntry[]) => log.filter((r) => r.path.startsWith("/v1/agents"));

const files = (home: TempHome) => filesUnder(join(home.agentDir, "sessions"));

const outcomeMessages = (home: TempHome) =>
	sessionEntriesOf(home).filter((e) => e.type === "custom_message" && e.customType === "pi-cursor-sdk:cloud-outcome");

/** Starts a cloud turn on `[[long]]` in RPC mode and SIGKILLs Pi once the run streams. */
async function killMidRun(home: TempHome, marker = "[[long]]"): Promise<void> {
	const rpc = startRpcPi(CLOUD_ARGS, { home, env: cloud.fake.piEnv() });
	try {
		rpc.write({ type: "prompt", message: `Fix the login ${marker}` });
		await rpc.waitFor((r) => r.type === "message_update" && JSON.stringify(r).includes("Working on it"));
	} finally {
		await rpc.kill();
	}
}

async function expectOneAgentNoBusy(): Promise<void> {
	const api = apiRequests(await cloud.fake.requests());
	expect(api.filter((r) => r.method === "POST" && r.path === "/v1/agents")).toHaveLength(1);
	expect(api.filter((r) => r.status === 409)).toEqual([]);
	const agents = await cloud.fake.agents();
	expect(agents).toHaveLength(1);
	// The interrupted run was never cancelled: it ran to its end on Cursor's side.
	expect(agents[0]?.runs[0]).toMatchObject({ status: "FINISHED" });
	expect(agents[0]?.runs[0]?.cancelledAt).toBeUndefined();
}

describe("a cloud run Pi did not see end", () => {
	test(
		"SIGKILL mid-run, then `pi -c -p`: waits for the run, shows its answer once, answers the next prompt on the same agent",
		async () => {
			const home = homes.create(NO_RETRY);
			await killMidRun(home);
			const next = await piIn(home, [...CLOUD_ARGS, "-c", "-p", "And now? [[answer]]"]);
			withOutput(next, () => {
				expect(next.code).toBe(0);
				expect(next.stdout).toContain("Next answer.");
				expect(next.stderr.split(LONG_ANSWER)).toHaveLength(2);
				expect(next.stderr).toContain(PR.prUrl);
				expect(next.stdout + next.stderr).not.toMatch(/busy|dashboard/i);
			});
			await expectOneAgentNoBusy();
			const followups = apiRequests(await cloud.fake.requests()).filter((r) => r.route === "followup");
			expect(followups).toHaveLength(1);
			expect(outcomeMessages(home)).toHaveLength(1);
			expect(outcomeMessages(home)[0]?.content).toContain(LONG_ANSWER);
			// Twice in a row: nothing is added twice, and nothing is looked up again.
			const before = (await cloud.fake.requests()).length;
			const again = await piIn(home, [...CLOUD_ARGS, "-c", "-p", "/cursor-cloud list"]);
			withOutput(again, () => {
				expect(again.code).toBe(0);
				expect(again.stderr).not.toContain(LONG_ANSWER);
			});
			expect(outcomeMessages(home)).toHaveLength(1);
			const lookups = (await cloud.fake.requests()).slice(before).filter((r) => r.route === "stream");
			expect(lookups).toEqual([]);
			for (const file of files(home)) expect(leakedSecrets(readFileSync(file, "utf8"))).toEqual([]);
			expect(leakedSecrets(next.stdout + next.stderr + again.stdout + again.stderr)).toEqual([]);
		},
		TIMEOUT_MS,
	);

	test(
		"the run finished while Pi was closed: `pi -c --mode json` adds its outcome once, where the interrupted turn was",
		async () => {
			const home = homes.create(NO_RETRY);
			await killMidRun(home);
			const deadline = Date.now() + 20_000;
			while ((await cloud.fake.agents())[0]?.runs[0]?.status !== "FINISHED" && Date.now() < deadline) {
				await new Promise((resolve) => setTimeout(resolve, 100));
			}
			const next = await piIn(home, [...CLOUD_ARGS, "-c", "--mode", "json", "And now? [[answer]]"]);
			withOutput(next, () => expect(next.code).toBe(0));
			const records = jsonLines(next.stdout);
			const outcome = records.findIndex(
				(r) => r.type === "message_end" && r.message?.customType === "pi-cursor-sdk:cloud-outcome",
			);
			const prompt = records.findIndex((r) => r.type === "message_end" && r.message?.role === "user");
			expect(outcome).toBeGreaterThanOrEqual(0);
			expect(outcome).toBeLessThan(prompt);
			expect(JSON.stringify(records[outcome])).toContain(LONG_ANSWER);
			await expectOneAgentNoBusy();
			for (let round = 0; round < 2; round++) {
				const more = await piIn(home, [...CLOUD_ARGS, "-c", "-p", `Round ${round} [[answer]]`]);
				withOutput(more, () => expect(more.code).toBe(0));
			}
			expect(outcomeMessages(home)).toHaveLength(1);
			const entries = sessionEntriesOf(home);
			const interrupted = entries.findIndex((e) => e.type === "message" && e.message?.role === "user");
			const card = entries.findIndex((e) => e.customType === "pi-cursor-sdk:cloud-outcome");
			const nextPrompt = entries.findIndex(
				(e, i) => i > interrupted && e.type === "message" && e.message?.role === "user",
			);
			expect(interrupted).toBeLessThan(card);
			expect(card).toBeLessThan(nextPrompt);
		},
		TIMEOUT_MS,
	);

	test(
		"RPC: `pi -c` shows the run as running; a prompt meanwhile waits for it, then goes to the same agent (no 409)",
		async () => {
			const home = homes.create(NO_RETRY);
			await killMidRun(home, "[[longer]]");
			const rpc = startRpcPi([...CLOUD_ARGS, "-c"], { home, env: cloud.fake.piEnv() });
			try {
				await rpc.waitFor(() => statuses(rpc.records, "cursor-cloud-fleet").includes("☁ 1 cloud run"));
				const from = rpc.mark();
				await rpc.prompt("And now? [[answer]]");
				await rpc.waitFor((r) => r.type === "agent_end", { from, timeoutMs: 60_000 });
				await rpc.waitFor(
					(r) => JSON.stringify(r).includes("pi-cursor-sdk:cloud-outcome") && JSON.stringify(r).includes(LONG_ANSWER),
				);
				// The run's text streams into its line as it comes: what it wrote after Pi attached is shown before its card.
				const lines = (r: (typeof rpc.records)[number]) =>
					r.type === "extension_ui_request" && r.method === "setWidget" && r.widgetKey === "cursor-cloud-runs"
						? ((r.widgetLines as string[] | undefined) ?? [])
						: undefined;
				const shown = rpc.records.findIndex((r) => lines(r)?.some((line) => line.includes(LONG_ANSWER)));
				const card = rpc.records.findIndex((r) => JSON.stringify(r).includes("pi-cursor-sdk:cloud-outcome"));
				expect(shown).toBeGreaterThanOrEqual(0);
				expect(shown).toBeLessThan(card);
				expect(lines(rpc.records.findLast((r) => lines(r) !== undefined) ?? {})).toEqual([]); // the line went
				const log = apiRequests(await cloud.fake.requests());
				const followup = log.find((r) => r.route === "followup");
				expect(followup?.status).toBe(200);
				expect(log.filter((r) => r.status === 409)).toEqual([]);
				const end = JSON.stringify(rpc.records.filter((r) => r.type === "agent_end").at(-1));
				expect(end).toContain("Next answer.");
				expect(end).not.toMatch(/busy/i);
			} finally {
				await rpc.close();
			}
			await expectOneAgentNoBusy();
			expect(outcomeMessages(home)).toHaveLength(1);
		},
		TIMEOUT_MS,
	);

	test(
		"quitting Pi mid-run (stdin closed, an orderly shutdown) leaves the run going; `pi -c` collects it once",
		async () => {
			const home = homes.create(NO_RETRY);
			const rpc = startRpcPi(CLOUD_ARGS, { home, env: cloud.fake.piEnv() });
			rpc.write({ type: "prompt", message: "Fix the login [[long]]" });
			await rpc.waitFor((r) => r.type === "message_update" && JSON.stringify(r).includes("Working on it"));
			const exit = await rpc.close(10_000);
			expect(exit.stderr).toContain("go on on Cursor's machines");
			const agentId = (await cloud.fake.agents())[0]?.id;
			expect(exit.stderr).toContain(`pi -c -p "/cursor-cloud wait ${agentId}"`); // names it, and how to collect it
			const deadline = Date.now() + 20_000;
			while ((await cloud.fake.agents())[0]?.runs[0]?.status !== "FINISHED" && Date.now() < deadline) {
				await new Promise((resolve) => setTimeout(resolve, 100));
			}
			expect((await cloud.fake.requests()).filter((r) => r.route === "cancel")).toEqual([]);
			const next = await piIn(home, [...CLOUD_ARGS, "-c", "-p", "And now? [[answer]]"]);
			withOutput(next, () => {
				expect(next.code).toBe(0);
				expect(next.stdout).toContain("Next answer.");
				expect(next.stderr.split(LONG_ANSWER)).toHaveLength(2);
			});
			await expectOneAgentNoBusy();
			expect(outcomeMessages(home)).toHaveLength(1);
		},
		TIMEOUT_MS,
	);
});
