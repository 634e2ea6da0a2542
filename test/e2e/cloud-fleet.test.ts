// Background Cursor Cloud agents: `/cursor-cloud launch` (several at once, the footer count, each outcome once),
// `/cursor-cloud list | show | wait | cancel`, and scripting with `--cursor-cloud-detach` + `/cursor-cloud wait`. The
// real `pi` CLI on the built bundle, the real @cursor/sdk against the cloud fake.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cloudFakeForFile, type Scenario } from "../support/cloud-fake/client.ts";
import type { FakeBackend } from "../support/fake-backend/client.ts";
import { runPi, type TempHome } from "../support/pi.ts";
import { HomeRegistry, jsonLines, leakedSecrets, NO_RETRY, startTurnBackend, withOutput } from "../support/pi-turn.ts";
import { notifications, SharedRpcPi, startRpcPi, statuses, withRpcOutput } from "../support/rpc.ts";
import { BUNDLE, REPO_ROOT } from "../support/toolchain.ts";

const FAUX_DELEGATOR = join(REPO_ROOT, "test", "fixtures", "faux-cloud-delegator-extension.ts");

const TIMEOUT_MS = 150_000;
const REPO = "https://github.com/acme/app";
const pr = (n: number) => ({ repoUrl: REPO, branch: `cursor/task-${n}`, prUrl: `${REPO}/pull/${n}` });

const SCENARIOS: Record<string, Scenario> = {
	"[[slow]]": {
		steps: [{ text: "Working. " }, { delay: 8000 }, { text: "Slow task done." }],
		result: { git: { branches: [pr(9)] } },
	},
	"[[files]]": {
		steps: [{ userMessage: true }, { text: "Wrote the report." }],
		result: { git: { branches: [pr(5)] }, artifacts: [{ path: "reports/summary.md", content: "# Summary\n" }] },
	},
	"[[delegated]]": { steps: [{ text: "Delegated fix done." }], result: { git: { branches: [pr(4)] } } },
	"[[more]]": {
		steps: [
			{ userMessage: true },
			{ text: "Running the tests. " },
			{
				tool: {
					callId: "c1",
					toolCall: {
						type: "shell",
						args: { command: "npm test" },
						result: {
							status: "success",
							value: { exitCode: 0, signal: "", stdout: "42 passing\n", stderr: "", executionTime: 5 },
						},
					},
				},
			},
			{ text: "Added the test too." },
		],
	},
	"[[fails]]": { steps: [{ text: "Trying." }], result: { status: "ERROR", error: { message: "tests failed" } } },
};
for (const n of [1, 2, 3]) {
	SCENARIOS[`[[task-${n}]]`] = {
		// The tasks go on only when the test has seen all three running (a clock would race a slow machine).
		steps: [{ text: `Task ${n} started. ` }, { gate: "tasks" }, { text: `Task ${n} done.` }],
		result: { git: { branches: [pr(n)] } },
	};
}

const cloud = cloudFakeForFile(SCENARIOS);
// The local fake answers the session's local turns: the cloud fake forwards to it what is not a cloud route (the SDK
// reaches both through one CURSOR_BACKEND_URL).
let local: FakeBackend | undefined;
beforeAll(async () => {
	local = await startTurnBackend({
		scenarioMap: { "[[local]]": [{ text: "Local answer: 4." }, { turnEnded: { inputTokens: 5, outputTokens: 2 } }] },
	});
}, 30_000);
afterAll(async () => {
	await local?.stop();
});
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

/**
 * One RPC Pi whose session's own turns run locally (the cloud fake forwards them to the local fake while a test asks it
 * to); the background-agent tests take turns on it, a new Pi session each. It outlives two of those tests.
 */
const sessionHome = homes.create(NO_RETRY);
const sessionPi = new SharedRpcPi(() =>
	startRpcPi(
		CLOUD_ARGS.map((arg) => (arg === "cloud" ? "local" : arg)),
		{ home: sessionHome, env: cloud.fake.piEnv(), lifetimeMs: 240_000 },
	),
);
afterAll(() => sessionPi.close());

describe("scripting", () => {
	test(
		"--cursor-cloud-detach prints the ids and returns while the run goes on; `/cursor-cloud wait` exits 0 when it finished, 1 when it failed; `show` prints the outcome and conversation",
		async () => {
			const home = homes.create(NO_RETRY);
			// What a Pi start costs on this machine right now: Pi, our bundle and the SDK's static import, no request.
			// Taken before and after the detach (the load of a busy machine changes within seconds); the larger counts.
			const bareStart = async () => {
				const bare = Date.now();
				withOutput(await piIn(home, ["--list-models", "cursor"]), () => undefined);
				return Date.now() - bare;
			};
			const before = await bareStart();
			expect(await cloud.fake.requests()).toEqual([]);
			const started = Date.now();
			const detached = await piIn(home, [...CLOUD_ARGS, "--cursor-cloud-detach", "-p", "Slow task [[slow]]"]);
			const elapsed = Date.now() - started;
			withOutput(detached, () => {
				expect(detached.code).toBe(0);
				expect(detached.stdout.trim()).toMatch(/^bc-[0-9a-f-]+ run-[0-9a-f-]+$/);
			});
			const [agentId, runId] = detached.stdout.trim().split(" ");
			const agents = await cloud.fake.agents();
			expect(agents.map((a) => a.id)).toEqual([agentId as string]);
			// Pi was gone before the run ended: it goes on on the fake's clock.
			expect(agents[0]?.runs.map((r) => [r.id, r.status])).toEqual([[runId as string, "RUNNING"]]);
			const baseline = Math.max(before, await bareStart());

			const waited = await piIn(home, [...CLOUD_ARGS, "-c", "-p", `/cursor-cloud wait ${agentId}`]);
			withOutput(waited, () => {
				expect(waited.code).toBe(0);
				expect(waited.stderr).toContain("Slow task done.");
				expect(waited.stderr).toContain(`${REPO}/pull/9`);
			});
			// show, scripted: the outcome and the conversation, and Pi exits (a replayed stream does not hold it).
			const shown = await piIn(home, [...CLOUD_ARGS, "-c", "-p", `/cursor-cloud show ${agentId}`]);
			withOutput(shown, () => {
				expect(shown.code).toBe(0);
				expect(shown.stderr).toContain(`Cursor Cloud agent ${agentId} finished`);
				expect(shown.stderr).toContain("Conversation (1 run):");
				expect(shown.stderr).toContain("Cursor: Working. Slow task done.");
			});

			const jsonStarted = Date.now();
			const json = await piIn(home, [...CLOUD_ARGS, "--cursor-cloud-detach", "--mode", "json", "Doomed [[fails]]"]);
			const jsonElapsed = Date.now() - jsonStarted;
			console.log(
				`--cursor-cloud-detach returned in ${elapsed} ms (print) and ${jsonElapsed} ms (JSON); a bare Pi start: ${baseline} ms`,
			);
			// Under 3 s, as the issue asks (~1.7 s on 2 shared cores at load 5: Pi's start is ~1.3 s of it, the create,
			// journal and exit the rest). When the machine is so loaded that a Pi start that does nothing takes over
			// 1.5 s (the whole suite runs 4 files × 3 Pis on 2 cores), the bound scales with it: at most twice that start.
			// The faster of the two detaches (the same launch, printed two ways) counts: a busy machine's load changes
			// within seconds. That a detach does not wait for its run is checked above (the run still RUNNING).
			expect(Math.min(elapsed, jsonElapsed)).toBeLessThan(Math.max(3000, 2 * baseline));
			withOutput(json, () => expect(json.code).toBe(0));
			const record = jsonLines(json.stdout).find(
				(r) => r.type === "message_end" && r.message?.customType === "pi-cursor-sdk:cloud-launch",
			)?.message?.details;
			const failing = String(record?.agentId);
			expect(failing).toMatch(/^bc-/);
			expect(String(record?.runId)).toMatch(/^run-/);
			const failed = await piIn(home, [...CLOUD_ARGS, "-c", "-p", `/cursor-cloud wait ${failing}`]);
			withOutput(failed, () => {
				expect(failed.code).not.toBe(0);
				expect(failed.stderr).toContain("tests failed");
			});
			const creates = (await cloud.fake.requests()).filter((r) => r.method === "POST" && r.path === "/v1/agents");
			expect(creates).toHaveLength(2);
			const output = [detached, waited, shown, json, failed].map((r) => r.stdout + r.stderr).join("\n");
			expect(leakedSecrets(output)).toEqual([]);
		},
		TIMEOUT_MS,
	);
});

describe("background agents in a session", () => {
	test(
		"three launches run at once while a local turn is answered; the footer counts them down; each outcome lands once; list shows them finished with branch and pull request; cancel stops one",
		async () => {
			await cloud.fake.forwardTo((local as FakeBackend).url);
			// The session's own turns run locally; the launches go to Cursor Cloud all the same.
			await sessionPi.use((rpc) =>
				withRpcOutput(rpc, async () => {
					const start = rpc.mark();
					const records = () => rpc.records.slice(start);
					for (const n of [1, 2, 3]) {
						const from = rpc.mark();
						await rpc.prompt(`/cursor-cloud launch Task ${n} [[task-${n}]]`);
						await rpc.waitFor((r) => JSON.stringify(r).includes("Launched Cursor Cloud agent"), { from });
					}
					const running = (await cloud.fake.agents()).filter((a) => a.runs.some((r) => r.status === "RUNNING"));
					expect(running).toHaveLength(3);
					await rpc.waitFor(() => statuses(records(), "cursor-cloud-fleet").includes("☁ 3 cloud runs"), {
						from: start,
					});
					// Meanwhile, a local turn in the same session is answered (the three wait at the gate until after it).
					const turn = rpc.mark();
					await rpc.prompt("What is 2 + 2? [[local]]");
					const answered = await rpc.waitFor((r) => r.type === "agent_end", { from: turn, timeoutMs: 60_000 });
					expect(JSON.stringify(answered)).toContain("Local answer: 4.");
					expect((await local?.runs())?.filter((r) => r.userText?.includes("[[local]]"))).toHaveLength(1);
					const stillRunning = (await cloud.fake.agents()).filter((a) => a.runs.some((r) => r.status === "RUNNING"));
					expect(stillRunning).toHaveLength(3);
					await cloud.fake.openGate("tasks");
					const cards = () =>
						records().filter(
							(r) =>
								r.type === "message_end" &&
								(r.message as { customType?: string } | undefined)?.customType === "pi-cursor-sdk:cloud-outcome",
						);
					await rpc.waitFor(() => cards().length === 3, { from: start, timeoutMs: 30_000 });
					for (const n of [1, 2, 3]) {
						const mine = cards().filter((r) => JSON.stringify(r).includes(`Task ${n} done.`));
						expect(mine).toHaveLength(1);
						expect(JSON.stringify(mine[0])).toContain(`${REPO}/pull/${n}`);
					}
					const counts = statuses(records(), "cursor-cloud-fleet");
					expect(counts).toContain("☁ 3 cloud runs");
					expect(counts.at(-1)).toBeUndefined();

					const from = rpc.mark();
					await rpc.prompt("/cursor-cloud list");
					const list = await rpc.waitFor((r) => JSON.stringify(r).includes("Cursor Cloud agents of this Pi session"), {
						from,
					});
					const text = String(list.message);
					expect(text.match(/ · finished/g)).toHaveLength(3);
					for (const n of [1, 2, 3]) expect(text).toContain(`${REPO}/pull/${n}`);

					const hang = rpc.mark();
					await rpc.prompt("/cursor-cloud launch Slow [[slow]]");
					const launched = await rpc.waitFor((r) => JSON.stringify(r).includes("Launched Cursor Cloud agent"), {
						from: hang,
					});
					const agentId = /bc-[0-9a-f-]+/.exec(String(launched.message))?.[0];
					await rpc.prompt(`/cursor-cloud cancel ${agentId}`);
					await rpc.waitFor(() => cards().length === 4, { from: start, timeoutMs: 30_000 });
					expect(JSON.stringify(cards().at(-1))).toContain("was cancelled");
					const cancels = (await cloud.fake.requests()).filter((r) => r.route === "cancel");
					expect(cancels.map((r) => r.agentId)).toEqual([agentId as string]);
					expect(notifications(records()).filter((n) => /dashboard/i.test(n.message))).toEqual([]);
				}),
			);
		},
		TIMEOUT_MS,
	);

	test(
		"wait, artifacts (listed, downloaded inside the named folder, never overwritten without --force), send to a background agent, and show its outcome and conversation",
		async () => {
			await sessionPi.use((rpc) =>
				withRpcOutput(rpc, async () => {
					const start = rpc.mark();
					const command = async (text: string, expected: string) => {
						const from = rpc.mark();
						await rpc.prompt(text);
						const record = await rpc.waitFor((r) => JSON.stringify(r).includes(expected), { from, timeoutMs: 30_000 });
						return String(record.message ?? JSON.stringify(record));
					};
					const launched = await command(
						"/cursor-cloud launch Write the report [[files]]",
						"Launched Cursor Cloud agent",
					);
					const agentId = /bc-[0-9a-f-]+/.exec(launched)?.[0] as string;
					await command(`/cursor-cloud wait ${agentId}`, "Wrote the report.");
					expect(await command(`/cursor-cloud artifacts ${agentId}`, "Artifacts of")).toContain(
						"reports/summary.md · 10 B",
					);
					const out = join(sessionHome.dir, "artifacts-out");
					await command(`/cursor-cloud artifacts ${agentId} download reports/summary.md --to ${out}`, "Downloaded");
					expect(readFileSync(join(out, "reports", "summary.md"), "utf8")).toBe("# Summary\n");
					writeFileSync(join(out, "reports", "summary.md"), "mine");
					expect(
						await command(
							`/cursor-cloud artifacts ${agentId} download reports/summary.md --to ${out}`,
							"Not downloaded",
						),
					).toContain("--force");
					expect(readFileSync(join(out, "reports", "summary.md"), "utf8")).toBe("mine");
					await command(
						`/cursor-cloud artifacts ${agentId} download reports/summary.md --to ${out} --force`,
						"Downloaded",
					);
					expect(readFileSync(join(out, "reports", "summary.md"), "utf8")).toBe("# Summary\n");
					expect(
						await command(`/cursor-cloud artifacts ${agentId} download ../escape.md --to ${out}`, "Not downloaded"),
					).toContain("would leave the folder");

					await command(`/cursor-cloud send ${agentId} Add a test as well [[more]]`, "Sent to");
					await rpc.waitFor((r) => r.type === "message_end" && JSON.stringify(r).includes("Added the test too."), {
						from: start,
						timeoutMs: 30_000,
					});
					const agent = (await cloud.fake.agents()).find((a) => a.id === agentId);
					expect(agent?.runs.map((r) => r.status)).toEqual(["FINISHED", "FINISHED"]);

					// show: the latest outcome, then the conversation of both runs (what was asked, what Cursor answered).
					const shown = await command(`/cursor-cloud show ${agentId}`, "Conversation (2 runs)");
					expect(shown).toContain(`Cursor Cloud agent ${agentId} finished`);
					const asked = shown.indexOf("You: Write the report [[files]]");
					const answered = shown.indexOf("Cursor: Wrote the report.");
					const followUp = shown.indexOf("You: Add a test as well [[more]]");
					expect(asked).toBeGreaterThan(-1);
					expect(answered).toBeGreaterThan(asked);
					expect(followUp).toBeGreaterThan(answered);
					expect(shown).toContain("[shell] npm test");
					expect(shown.indexOf("Added the test too.")).toBeGreaterThan(followUp);
					// The final answer is the conversation's last message, not repeated above it.
					expect(shown.match(/Added the test too\./g)).toHaveLength(1);
					expect(leakedSecrets(shown)).toEqual([]);
					const creates = (await cloud.fake.requests()).filter((r) => r.method === "POST" && r.path === "/v1/agents");
					expect(creates).toHaveLength(1);
				}),
			);
		},
		TIMEOUT_MS,
	);

	test(
		"cursor_cloud_task: a non-Cursor model starts a cloud agent and reads its outcome; without the acknowledgement it refuses without any request; off by default",
		async () => {
			const fauxArgs = ["--model", "faux/faux-1", "--cursor-cloud-repo", REPO, "--cursor-cloud-tool"];
			const extensions = [BUNDLE, FAUX_DELEGATOR];
			// Without --cursor-cloud-ack (print/RPC): the tool refuses, and nothing reaches Cursor.
			const refusing = startRpcPi(fauxArgs, { home: homes.create(NO_RETRY), env: cloud.fake.piEnv(), extensions });
			try {
				await refusing.ready();
				const from = refusing.mark();
				await refusing.prompt("Delegate the login fix");
				const end = await refusing.waitFor((r) => r.type === "agent_end", { from, timeoutMs: 60_000 });
				expect(JSON.stringify(end)).toContain("--cursor-cloud-ack");
			} finally {
				await refusing.close();
			}
			expect((await cloud.fake.requests()).filter((r) => r.path.startsWith("/v1/agents"))).toEqual([]);

			const home = homes.create(NO_RETRY);
			const rpc = startRpcPi([...fauxArgs, "--cursor-cloud-ack"], { home, env: cloud.fake.piEnv(), extensions });
			try {
				await rpc.ready();
				let from = rpc.mark();
				await rpc.prompt("Delegate the login fix");
				const started = await rpc.waitFor((r) => r.type === "agent_end", { from, timeoutMs: 60_000 });
				expect(JSON.stringify(started)).toContain("Started Cursor Cloud agent bc-");
				expect(JSON.stringify(started)).toContain('"toolName":"cursor_cloud_task"');
				await rpc.waitFor((r) => JSON.stringify(r).includes("pi-cursor-sdk:cloud-outcome"), { timeoutMs: 30_000 });
				from = rpc.mark();
				await rpc.prompt("Read the result");
				const collected = await rpc.waitFor((r) => r.type === "agent_end", { from, timeoutMs: 60_000 });
				expect(JSON.stringify(collected)).toContain("collected: Cursor Cloud agent bc-");
				expect(JSON.stringify(collected)).toContain("Delegated fix done.");
				expect(JSON.stringify(collected)).toContain(`${REPO}/pull/4`);
			} finally {
				await rpc.close();
			}
			// Off by default: without --cursor-cloud-tool the model's call finds no such tool and nothing is started.
			const before = (await cloud.fake.agents()).length;
			const off = startRpcPi(["--model", "faux/faux-1", "--cursor-cloud-ack"], {
				home: homes.create(NO_RETRY),
				env: cloud.fake.piEnv(),
				extensions,
			});
			try {
				await off.ready();
				const from = off.mark();
				await off.prompt("Delegate the login fix");
				const end = await off.waitFor((r) => r.type === "agent_end", { from, timeoutMs: 60_000 });
				expect(JSON.stringify(end)).not.toContain("Started Cursor Cloud agent");
			} finally {
				await off.close();
			}
			expect(await cloud.fake.agents()).toHaveLength(before);
		},
		TIMEOUT_MS,
	);
});
