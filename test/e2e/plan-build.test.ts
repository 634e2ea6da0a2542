// Plan, then build, as a user meets it: the real `pi` CLI with the built bundle and the real @cursor/sdk against the
// loopback fake backend, which scripts Cursor's plan (its `createPlan` tool call) in a plan-mode run. RPC and print
// modes show no dialog and reach the plan through `/cursor-plan`; `/cursor-plan build` switches the session to
// agent mode and sends "Implement the plan above" as an incremental send to the same Cursor agent. (The TUI's
// Build it / Keep planning / Dismiss dialog is tested in plan-tui.test.ts.)
import { afterAll, expect, test } from "bun:test";
import { BUILD_PROMPT } from "../../src/plan/approval.ts";
import type { FakeBackend } from "../support/fake-backend/client.ts";
import { piHosts, runPi, type TempHome } from "../support/pi.ts";
import {
	cursorEnv,
	descendantProcesses,
	HomeRegistry,
	isAlive,
	leakedSecrets,
	NO_RETRY,
	type PiRecord,
	pool,
	sessionEntriesOf,
	startTurnBackend,
	waitNoProcesses,
	withOutput,
} from "../support/pi-turn.ts";
import { BUILD_ANSWER, BUILD_RUN, PLAN_MARKDOWN, PLAN_RUN } from "../support/plan-runs.ts";
import { notifications, type RpcPi, startRpcPi } from "../support/rpc.ts";

const TIMEOUT_MS = 150_000;
const MODEL = "cursor/composer-2";
const homes = new HomeRegistry();
const backends: FakeBackend[] = [];
const limit = pool(2);

/** A backend of its own: each test's run requests are exactly its own. */
async function backendFor(marker: string): Promise<FakeBackend> {
	const backend = await startTurnBackend({ scenarioMap: { [marker]: PLAN_RUN, [BUILD_PROMPT]: BUILD_RUN } });
	backends.push(backend);
	return backend;
}

afterAll(async () => {
	for (const backend of backends) await backend.stop();
	homes.removeAll();
}, 60_000);

/** The custom entries of the home's one session file. */
const sessionEntries = (home: TempHome) => sessionEntriesOf(home).filter((entry) => entry.type === "custom");

/** Sends a prompt and waits until Pi settles; the records of that turn. */
async function settle(pi: RpcPi, text: string): Promise<PiRecord[]> {
	const from = pi.mark();
	const { response } = await pi.prompt(text);
	expect(response.success).toBe(true);
	await pi.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 60_000 });
	return pi.records.slice(from);
}

const resultText = (record: PiRecord) =>
	(record.result?.content ?? []).map((c: { text?: string }) => c.text ?? "").join("");

test.concurrent.each(piHosts().map((host) => [host.name, host] as const))(
	"RPC (%s): the plan arrives as a readable card, /cursor-plan shows it, and /cursor-plan build implements it on the same Cursor agent in agent mode",
	async (_name, host) => {
		await limit(async () => {
			const marker = "[[plan:rpc]]";
			const backend = await backendFor(marker);
			const home = homes.create(NO_RETRY);
			const pi = startRpcPi(["--model", MODEL], { host, home, env: cursorEnv(backend), lifetimeMs: TIMEOUT_MS });
			try {
				await pi.ready();
				await pi.prompt("/cursor-mode plan");
				expect(pi.status()).toMatch(/ · plan$/);

				const planTurn = await settle(pi, `${marker} Plan a /hello command`);
				const card = planTurn.find((r) => r.type === "tool_execution_end" && r.toolName === "cursor");
				expect(card?.isError).toBe(false);
				expect(card?.result?.details?.activityTitle).toBe("Cursor plan");
				expect(card?.result?.details?.activitySummary).toBe("Add a /hello command");
				expect(resultText(card as PiRecord)).toBe(
					// Each step once: the plan below its title (the card's header), then the files it names.
					[
						"1. Create `src/hello.ts` with the handler",
						"2. Register it in `src/commands.ts`",
						"3. Cover it in `test/hello.test.ts`",
						"",
						"Files: src/hello.ts, src/commands.ts, test/hello.test.ts",
					].join("\n"),
				);
				// No dialog outside the TUI, and nothing sent without the user's choice.
				expect(pi.ui("select")).toEqual([]);
				expect(await backend.runRequests()).toHaveLength(1);

				const shown = notifications((await pi.prompt("/cursor-plan")).records);
				expect(shown).toHaveLength(1);
				expect(shown[0]?.message).toStartWith("Cursor's plan: Add a /hello command\n1. Create `src/hello.ts`");
				expect(shown[0]?.message).toContain("/cursor-plan build switches to agent mode");

				const buildTurn = await settle(pi, "/cursor-plan build");
				expect(pi.status()).not.toContain("plan");
				expect(notifications(buildTurn)).toContainEqual({
					message: "Cursor mode set to agent for this session: Cursor implements the plan.",
					type: "info",
				});
				const users = buildTurn.filter((r) => r.type === "message_end" && r.message?.role === "user");
				expect(users.map((r) => r.message.content)).toEqual([[{ type: "text", text: BUILD_PROMPT }]]);
				const answer = buildTurn.findLast((r) => r.type === "message_end" && r.message?.role === "assistant");
				expect(answer?.message?.content).toContainEqual({ type: "text", text: BUILD_ANSWER });

				const [plan, build, ...more] = await backend.runRequests();
				expect(more).toEqual([]);
				expect(plan?.mode).toBe("plan");
				expect(plan?.text).toContain("Plan a /hello command");
				expect(build?.mode).toBe("agent");
				expect(build?.conversationId).toBe(plan?.conversationId as string); // the same pooled Cursor agent
				expect(build?.text).toContain(BUILD_PROMPT);
				expect(build?.text).not.toContain("Plan a /hello command"); // incremental: not the first prompt again

				const exit = await pi.close();
				expect(exit.code).toBe(0);
				expect(leakedSecrets(pi.stderr)).toEqual([]);
				const entries = sessionEntries(home).map((e) => [e.customType, e.data]);
				expect(entries).toContainEqual(["pi-cursor-sdk:plan", { text: PLAN_MARKDOWN }]);
				const modes = entries.filter(([type]) => type === "pi-cursor-sdk:mode").map(([, data]) => data);
				expect(modes).toEqual([{ mode: "plan" }, { mode: "agent" }]);
			} finally {
				await pi.kill();
			}
		});
	},
	TIMEOUT_MS,
);

test.concurrent(
	'print mode: `pi -p --cursor-mode plan` prints the plan and changes nothing else; a later `pi -p -c --cursor-mode plan /cursor-plan "/cursor-plan build"` shows it and builds it in agent mode',
	async () => {
		await limit(async () => {
			const marker = "[[plan:print]]";
			const backend = await backendFor(marker);
			const home = homes.create(NO_RETRY);
			const env = cursorEnv(backend);
			const planned = await runPi(["--model", MODEL, "--cursor-mode", "plan", "-p", `${marker} Plan it`], {
				home,
				env,
			});
			withOutput(planned, () => {
				expect(planned.code).toBe(0);
				expect(planned.stdout).toBe(`${PLAN_MARKDOWN}\n\nThe plan is ready.\n`);
				expect(planned.stderr).toContain("[cursor] plan: Add a /hello command → done");
				// The flag is a one-run override: no mode entry; the plan is recorded for /cursor-plan.
				const types = sessionEntries(home).map((e) => e.customType);
				expect(types).toContain("pi-cursor-sdk:plan");
				expect(types).not.toContain("pi-cursor-sdk:mode");
			});

			// A later run on the session shows the plan, then (the flag sets where a run starts) /cursor-plan build
			// switches this run to agent mode and builds.
			const built = await runPi(
				["--model", MODEL, "--cursor-mode", "plan", "-c", "-p", "/cursor-plan", "/cursor-plan build"],
				{ home, env },
			);
			withOutput(built, () => {
				expect(built.code).toBe(0);
				expect(built.stderr).toContain("Cursor's plan: Add a /hello command\n1. Create `src/hello.ts`");
			});

			const requests = await backend.runRequests();
			withOutput(built, () => {
				expect(built.code).toBe(0);
				expect(built.stdout).toBe(`${BUILD_ANSWER}\n`);
				expect(requests).toHaveLength(2);
				expect(requests[1]?.mode).toBe("agent");
				expect(requests[1]?.text).toContain(BUILD_PROMPT);
				// The command records agent mode for the session (the next run starts there); the flag never wrote one.
				const modes = sessionEntries(home).filter((e) => e.customType === "pi-cursor-sdk:mode");
				expect(modes.map((e) => e.data)).toEqual([{ mode: "agent" }]);
				expect(leakedSecrets(planned.stderr + built.stdout + built.stderr)).toEqual([]);
			});
		});
	},
	TIMEOUT_MS,
);

test("no Pi, SDK or backend process is left behind", async () => {
	for (const backend of backends) await backend.stop();
	expect(backends.map((backend) => isAlive(backend.pid))).toEqual(backends.map(() => false));
	expect(await waitNoProcesses(homes.homes)).toEqual([]);
	expect(descendantProcesses()).toEqual([]);
});
