// Cursor Cloud as a user runs it: the real `pi` CLI on the built bundle, the real @cursor/sdk against the cloud fake
// (REST + SSE). Choosing the runtime, the confirmation, the target, a turn, follow-ups on the same agent (RPC and a
// restart with `-c`), abort, a cut stream, 401/409, /cursor-cloud list|archive|delete, the journal, and no key or
// repository token anywhere.
import { afterAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cloudFakeForFile, type RequestLogEntry, type Scenario } from "../support/cloud-fake/client.ts";
import { filesUnder, runPi, type TempHome } from "../support/pi.ts";
import { HomeRegistry, leakedSecrets, NO_RETRY, type PiRecord, withOutput } from "../support/pi-turn.ts";
import { type RpcPi, type RpcRecord, SharedRpcPi, startRpcPi, withRpcOutput } from "../support/rpc.ts";

const TIMEOUT_MS = 120_000;
const REPO = "https://github.com/acme/app";
const MODEL = "cursor/composer-2.5";
const PR = { repoUrl: REPO, branch: "cursor/fix-login", prUrl: `${REPO}/pull/7` };
const SHELL_CALL = {
	type: "shell",
	args: { command: "npm test" },
	result: {
		status: "success",
		value: { exitCode: 0, signal: "", stdout: "42 passing\n", stderr: "", executionTime: 5 },
	},
};

const SCENARIOS: Record<string, Scenario> = {
	"[[answer]]": {
		steps: [
			{ thinking: "Reading the code." },
			{ text: "Fixed " },
			{ text: "the login." },
			{ turnEnded: { inputTokens: 120, outputTokens: 9, cacheReadTokens: 100, cacheWriteTokens: 4 } },
		],
		result: { git: { branches: [PR] } },
	},
	"[[tool]]": {
		steps: [
			{ thinking: "Running the tests." },
			{ text: "Tests first. " },
			{ tool: { callId: "call-1", toolCall: SHELL_CALL } },
			{ text: "All green." },
			{ turnEnded: { inputTokens: 50, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 } },
		],
		result: { git: { branches: [PR] } },
	},
	"[[result-only]]": { steps: [{ thinking: "Quietly." }], result: { result: "Only in the result." } },
	"[[quiet]]": { steps: [{ text: "Started. " }, { delay: 2500 }, { text: "Done after a quiet stretch." }] },
	"[[hang]]": { steps: [{ text: "Working on it" }, { hang: true }] },
	"[[cut]]": {
		steps: [{ thinking: "Hm." }, { text: "one " }, { delay: 1500 }, { text: "two " }, { text: "three" }],
		cutAfter: 4,
	},
};

const cloud = cloudFakeForFile(SCENARIOS);
const homes = new HomeRegistry();

/** The flags of a confirmed cloud turn on REPO. */
const CLOUD_ARGS = ["--model", MODEL, "--cursor-runtime", "cloud", "--cursor-cloud-ack", "--cursor-cloud-repo", REPO];

/**
 * Local deadlines far below a cloud run's quiet stretches: Cursor Cloud turns must outlive them (the quiet run shows
 * it, and every other turn of the shared Pi runs under them too).
 */
const SHORT_LOCAL_DEADLINES = { PI_CURSOR_FIRST_RESPONSE_TIMEOUT_MS: "500", PI_CURSOR_STREAM_IDLE_TIMEOUT_MS: "500" };

/**
 * One RPC Pi with the flags of a confirmed cloud turn (its own home) that the tests whose subject is a cloud turn, not
 * Pi's start, take turns on: a new Pi session (a new Cursor agent) per use.
 */
const cloudHome = homes.create(NO_RETRY);
const cloudPi = new SharedRpcPi(() =>
	startRpcPi(CLOUD_ARGS, { home: cloudHome, env: cloud.fake.piEnv(SHORT_LOCAL_DEADLINES) }),
);
afterAll(() => cloudPi.close());

/** The messages of the `agent_end` among a turn's records. */
const endMessages = (records: RpcRecord[]) =>
	(records.findLast((r) => r.type === "agent_end")?.messages ?? []) as PiRecord[];

/** The last message of a turn: the assistant's answer, or its error (`stopReason: "error"`, `errorMessage`). */
const lastMessage = (records: RpcRecord[]) => endMessages(records).at(-1);

/** Everything an RPC Pi wrote (records and stderr), to look for secrets in. */
const everything = (rpc: RpcPi) => JSON.stringify(rpc.records) + rpc.stderr;

/** `pi <args>` in `home`, talking to the cloud fake (`extra` on top of its environment). */
function piIn(home: TempHome, args: string[], extra: Record<string, string | undefined> = {}) {
	return runPi(args, { home, env: cloud.fake.piEnv(extra) });
}

/** Sends a prompt and waits for the end of its agent run. */
async function promptAndSettle(rpc: RpcPi, message: string) {
	const from = rpc.mark();
	await rpc.prompt(message);
	return rpc.waitFor((r) => r.type === "agent_end", { from, timeoutMs: 60_000 });
}

/** Requests that reach Cursor's cloud API (the key exchange and Connect RPCs aside). */
const apiRequests = (log: RequestLogEntry[]) => log.filter((r) => r.path.startsWith("/v1/agents"));

function journalOf(home: TempHome): Record<string, unknown>[] {
	const files = sessionFiles(home).filter((f) => f.includes("cursor-cloud-"));
	expect(files).toHaveLength(1);
	const path = files[0] as string;
	expect(statSync(path).mode & 0o777).toBe(0o600);
	return readFileSync(path, "utf8")
		.trimEnd()
		.split("\n")
		.map((line) => JSON.parse(line));
}

const sessionFiles = (home: TempHome) => filesUnder(join(home.agentDir, "sessions"));

/** Every file of the home (sessions, config, journals) and the output hold neither the key nor `extra`. */
function expectNoSecrets(home: TempHome, output: string, extra: string[] = []): void {
	expect(leakedSecrets(output, extra)).toEqual([]);
	for (const file of sessionFiles(home)) expect(leakedSecrets(readFileSync(file, "utf8"), extra)).toEqual([]);
}

describe("a cloud turn in print mode", () => {
	test(
		"streams the answer and the branch; one POST /v1/agents with the repository, model and prompt; the journal records it",
		async () => {
			const { fake } = cloud;
			const home = homes.create(NO_RETRY);
			home.writeAgentFile("cursor-sdk.json", {
				subagents: { reviewer: { description: "Reviews the diff", prompt: "Review strictly." } },
			});
			const result = await piIn(home, [...CLOUD_ARGS, "-p", "Fix the login [[answer]]"]);
			withOutput(result, () => {
				expect(result.code).toBe(0);
				expect(result.stdout).toContain("Fixed the login.");
				expect(result.stdout).toContain(PR.branch);
				expect(result.stdout).toContain(PR.prUrl);
			});
			const api = apiRequests(await fake.requests());
			const creates = api.filter((r) => r.method === "POST" && r.path === "/v1/agents");
			expect(creates).toHaveLength(1);
			const body = JSON.stringify(creates[0]?.body);
			expect(body).toContain(REPO);
			expect(body).toContain("composer-2.5");
			expect(body).toContain("Fix the login [[answer]]");
			const agentId = (creates[0]?.body as { agentId?: string } | undefined)?.agentId as string;
			expect(agentId).toMatch(/^bc-/);
			expect(creates[0]?.body).toMatchObject({
				repos: [{ url: REPO }],
				customSubagents: [expect.objectContaining({ name: "reviewer", prompt: "Review strictly." })],
			});
			expect(Object.keys(creates[0]?.body as object)).not.toContain("tools");
			expect(Object.keys(creates[0]?.body as object)).not.toContain("systemPrompt");
			const journal = journalOf(home);
			expect(journal.map((r) => r.type)).toEqual(["agent", "run", "result"]);
			expect(journal[0]).toMatchObject({ agentId, model: "composer-2.5", repo: REPO });
			expect(journal[2]).toMatchObject({ agentId, status: "finished", git: [PR] });
			expectNoSecrets(home, result.stdout + result.stderr);
		},
		TIMEOUT_MS,
	);

	const BAD_URLS = [
		["http:", "http://github.com/acme/app"],
		["SSH", "git@github.com:acme/app.git"],
		["userinfo", "https://x-access-token:ghp_secretToken123@github.com/acme/app"],
		["query", "https://github.com/acme/app?token=ghp_secretToken123"],
		["fragment", "https://github.com/acme/app#ghp_secretToken123"],
	] as const;
	for (const [kind, url] of BAD_URLS) {
		test(
			`a repository URL with ${kind} fails before any request and is never repeated`,
			async () => {
				const { fake } = cloud;
				const home = homes.create(NO_RETRY);
				const args = [...CLOUD_ARGS.slice(0, -1), url, "-p", "hello [[answer]]"];
				const result = await piIn(home, args);
				withOutput(result, () => {
					expect(result.code).not.toBe(0);
					expect(result.stdout + result.stderr).toContain("--cursor-cloud-repo");
					expect(result.stdout + result.stderr).not.toContain(url);
					expect(result.stdout + result.stderr).not.toContain("ghp_secretToken123");
				});
				expect(await fake.requests()).toEqual([]); // not even the key exchange
				expectNoSecrets(home, result.stdout + result.stderr, ["ghp_secretToken123"]);
			},
			TIMEOUT_MS,
		);
	}

	test(
		"without confirmation, or with --no-session, nothing is sent and the message says what to do",
		async () => {
			const { fake } = cloud;
			const home = homes.create(NO_RETRY);
			const unconfirmed = CLOUD_ARGS.filter((arg) => arg !== "--cursor-cloud-ack");
			const noAck = await piIn(home, [...unconfirmed, "-p", "hello [[answer]]"]);
			withOutput(noAck, () => {
				expect(noAck.code).not.toBe(0);
				expect(noAck.stdout + noAck.stderr).toContain("--cursor-cloud-ack");
				expect(noAck.stdout + noAck.stderr).toContain("PI_CURSOR_CLOUD_ACK=1");
			});
			const noSession = await piIn(home, [...CLOUD_ARGS, "--no-session", "-p", "hello [[answer]]"]);
			withOutput(noSession, () => {
				expect(noSession.code).not.toBe(0);
				expect(noSession.stdout + noSession.stderr).toContain("--no-session");
			});
			expect(await fake.requests()).toEqual([]);
			const envAck = await piIn(home, [...unconfirmed, "-p", "hello [[answer]]"], {
				PI_CURSOR_CLOUD_ACK: "1",
				PI_CURSOR_RUNTIME: "bogus",
			});
			withOutput(envAck, () => {
				// The flag beats the environment's runtime, so the bogus PI_CURSOR_RUNTIME is not consulted.
				expect(envAck.code).toBe(0);
			});
			const badRuntime = await piIn(home, ["--model", MODEL, "--cursor-runtime", "remote", "-p", "hello [[answer]]"]);
			withOutput(badRuntime, () => {
				expect(badRuntime.code).not.toBe(0);
				expect(badRuntime.stdout + badRuntime.stderr).toContain("Valid values: local, cloud.");
			});
			expect(apiRequests(await fake.requests()).filter((r) => r.method === "POST")).toHaveLength(1);
		},
		TIMEOUT_MS,
	);
});

describe("choosing the runtime", () => {
	test(
		"/cursor-runtime reports and switches (footer follows, plan mode shows), --save-user saves the default; PI_CURSOR_RUNTIME; /cursor-doctor names the runtime and the target",
		async () => {
			const { fake } = cloud;
			const home = homes.create(NO_RETRY);
			const rpc = startRpcPi(["--model", MODEL], { home, env: fake.piEnv() });
			try {
				await rpc.ready();
				expect(rpc.status()).toBe("cursor:local · fast:on");
				const report = await rpc.prompt("/cursor-runtime");
				expect(JSON.stringify(report.records)).toContain("Cursor runtime: local (the default;");
				await rpc.prompt("/cursor-runtime cloud");
				expect(rpc.status()).toBe("cursor:cloud · fast:n/a");
				await rpc.prompt("/cursor-mode plan");
				expect(rpc.status()).toBe("cursor:cloud · fast:n/a · plan");
				await rpc.prompt("/cursor-runtime cloud --save-user");
				const invalid = await rpc.prompt("/cursor-runtime remote");
				expect(JSON.stringify(invalid.records)).toContain("Valid values: local, cloud.");
			} finally {
				await rpc.close();
			}
			const config = JSON.parse(readFileSync(join(home.agentDir, "cursor-sdk.json"), "utf8"));
			expect(config.runtime).toBe("cloud");
			// A restart reads the saved default; /cursor-doctor names it and the target (a flag of that restart).
			const restarted = startRpcPi(["--model", MODEL, "--cursor-cloud-repo", REPO], { home, env: fake.piEnv() });
			try {
				await withRpcOutput(restarted, async () => {
					await restarted.ready();
					const saved = await restarted.prompt("/cursor-runtime");
					expect(JSON.stringify(saved.records)).toContain("Cursor runtime: cloud (set by runtime in cursor-sdk.json;");
					const doctor = await restarted.prompt("/cursor-doctor");
					const text = JSON.stringify(doctor.records);
					expect(text).toContain("Runtime: cloud (set by runtime in cursor-sdk.json)");
					expect(text).toContain(`Cursor Cloud target: ${REPO}; Cursor Cloud not confirmed yet`);
				});
			} finally {
				await restarted.close();
			}
			const fromEnv = await piIn(home, ["--model", MODEL, "-p", "/cursor-runtime"], { PI_CURSOR_RUNTIME: "local" });
			expect(fromEnv.stdout + fromEnv.stderr).toContain("Cursor runtime: local (set by PI_CURSOR_RUNTIME;");
			expect(apiRequests(await fake.requests())).toEqual([]);
		},
		TIMEOUT_MS,
	);

	test(
		"the checkout's origin is the target in HTTPS form; uncommitted or unpushed work fails the turn with a list unless allowed",
		async () => {
			const { fake } = cloud;
			const home = homes.create(NO_RETRY);
			const repo = join(home.dir, "app");
			const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, stdio: "pipe" });
			mkdirSync(repo);
			git("init", "-q", "-b", "main");
			git("remote", "add", "origin", "git@github.com:acme/app.git");
			git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "Start the app");
			writeFileSync(join(repo, "notes.txt"), "not committed\n");
			const args = ["--model", MODEL, "--cursor-runtime", "cloud", "--cursor-cloud-ack"];
			const refused = await runPi([...args, "-p", "hello [[answer]]"], { home, cwd: repo, env: fake.piEnv() });
			withOutput(refused, () => {
				const text = refused.stdout + refused.stderr;
				expect(refused.code).not.toBe(0);
				expect(text).toContain("uncommitted: ?? notes.txt");
				expect(text).toContain("not pushed:");
				expect(text).toContain("Start the app");
				expect(text).toContain("--cursor-cloud-allow-local-state");
			});
			expect(apiRequests(await fake.requests())).toEqual([]);
			const allowed = await runPi([...args, "--cursor-cloud-allow-local-state", "-p", "hello [[answer]]"], {
				home,
				cwd: repo,
				env: fake.piEnv(),
			});
			withOutput(allowed, () => expect(allowed.code).toBe(0));
			const create = apiRequests(await fake.requests()).find((r) => r.method === "POST");
			expect(create?.body).toMatchObject({ repos: [{ url: REPO }] });
		},
		TIMEOUT_MS,
	);
});

describe("a cloud session", () => {
	test(
		"RPC: the second prompt adds a run to the same agent, the footer says cursor:cloud · fast:n/a; after a restart with -c a third prompt does too; /cursor-cloud manages only recorded agents",
		async () => {
			const { fake } = cloud;
			const home = homes.create(NO_RETRY);
			const rpc = startRpcPi(CLOUD_ARGS, { home, env: fake.piEnv() });
			try {
				await rpc.ready();
				expect(rpc.status()).toBe("cursor:cloud · fast:n/a");
				await promptAndSettle(rpc, "First [[answer]]");
				await promptAndSettle(rpc, "Second [[answer]]");
			} finally {
				await rpc.close();
			}
			const api = apiRequests(await fake.requests()).filter((r) => r.method === "POST");
			expect(api.map((r) => r.path.replace(/bc-[\w-]+/, "<id>"))).toEqual(["/v1/agents", "/v1/agents/<id>/runs"]);
			const agentId = (api[0]?.body as { agentId?: string } | undefined)?.agentId as string;
			expect(agentId).toMatch(/^bc-/);
			expect(api[1]?.agentId).toBe(agentId);

			const stranger = "bc-00000000-0000-4000-8000-000000000000";
			// A restart with -c: the third prompt goes to the same agent, and /cursor-cloud manages only recorded agents.
			const restarted = startRpcPi([...CLOUD_ARGS, "-c"], { home, env: fake.piEnv() });
			const shown = (records: RpcRecord[]) => JSON.stringify(records);
			try {
				await withRpcOutput(restarted, async () => {
					await restarted.ready();
					const third = lastMessage(await restarted.turn("Third [[answer]]"));
					expect(third?.stopReason).toBe("stop");
					expect(JSON.stringify(third?.content)).toContain("Fixed the login.");
					const afterRestart = apiRequests(await fake.requests()).filter((r) => r.method === "POST");
					expect(afterRestart.at(-1)).toMatchObject({ path: `/v1/agents/${agentId}/runs`, agentId });

					const listed = await restarted.prompt("/cursor-cloud list");
					const list = listed.records;
					expect(listed.response.success).toBe(true);
					expect(shown(list)).toContain(agentId);
					expect(shown(list)).toContain(PR.prUrl);
					const refused = await restarted.prompt(`/cursor-cloud archive ${stranger}`);
					expect(shown(refused.records)).toContain("was not created in this Pi session");
					const archive = await restarted.prompt(`/cursor-cloud archive ${agentId}`);
					expect(shown(archive.records)).toContain(`${agentId} archived.`);
					const unconfirmed = await restarted.prompt(`/cursor-cloud delete ${agentId}`);
					expect(shown(unconfirmed.records)).toContain("--yes");
					const del = await restarted.prompt(`/cursor-cloud delete ${agentId} --yes`);
					expect(shown(del.records)).toContain(`${agentId} deleted.`);
				});
			} finally {
				await restarted.close();
			}
			const mutations = apiRequests(await fake.requests()).filter((r) => r.method !== "GET" && r.agentId !== undefined);
			expect(mutations.map((r) => `${r.method} ${r.path}`).filter((p) => !p.includes("/runs"))).toEqual([
				`POST /v1/agents/${agentId}/archive`,
				`DELETE /v1/agents/${agentId}`,
			]);
			expect((await fake.requests()).some((r) => r.path.includes(stranger))).toBe(false);
			const journal = journalOf(home);
			const ops = journal.filter((r) => r.type === "intent" || r.type === "mutation");
			expect(ops).toMatchObject([
				{ type: "intent", op: "archive", agentId },
				{ type: "mutation", op: "archive", agentId, outcome: "done" },
				{ type: "intent", op: "delete", agentId },
				{ type: "mutation", op: "delete", agentId, outcome: "done" },
			]);
			expectNoSecrets(home, everything(restarted));
		},
		TIMEOUT_MS,
	);
});

describe("what a cloud turn shows", () => {
	test(
		"JSON events: Cursor's cloud tool call is a display-only bash card between the text, then the answer and the branch; print mode traces it on stderr and keeps the answer one block",
		async () => {
			const { fake } = cloud;
			await cloudPi.use((rpc) =>
				withRpcOutput(rpc, async () => {
					const turn = await rpc.turn("Run the tests [[tool]]");
					const messages = endMessages(turn);
					const calls = messages
						.flatMap((m) => (m.role === "assistant" ? m.content : []))
						.filter((c: PiRecord) => c.type === "toolCall");
					expect(calls).toHaveLength(1);
					expect(calls[0]).toMatchObject({ name: "bash", arguments: { command: "npm test" } });
					const result = messages.find((m) => m.role === "toolResult");
					expect(JSON.stringify(result?.content)).toContain("42 passing");
					const last = messages.at(-1);
					expect(last?.role).toBe("assistant");
					expect(last?.stopReason).toBe("stop");
					expect(JSON.stringify(last?.content)).toContain("All green.");
					expect(JSON.stringify(last?.content)).toContain(PR.prUrl);
					// Nothing ran here: one send, one run, and the workspace has no trace of npm.
					const api = apiRequests(await fake.requests()).filter((r) => r.method === "POST");
					expect(api).toHaveLength(1);
				}),
			);

			const home = homes.create(NO_RETRY);
			const print = await piIn(home, [...CLOUD_ARGS, "-p", "Run the tests [[tool]]"]);
			withOutput(print, () => {
				expect(print.code).toBe(0);
				expect(print.stdout).toContain("Tests first. All green.");
				expect(print.stdout).toContain(PR.branch);
				expect(print.stdout).not.toContain("npm test");
				expect(print.stderr).toContain("npm test");
			});
		},
		TIMEOUT_MS,
	);

	test(
		"an answer only the run's result carries is shown; an estimated usage without turn-ended; a quiet run outlives the local deadlines",
		async () => {
			await cloudPi.use((rpc) =>
				withRpcOutput(rpc, async () => {
					const last = lastMessage(await rpc.turn("Answer [[result-only]]"));
					expect(last?.stopReason).toBe("stop");
					expect(JSON.stringify(last?.content)).toContain("Only in the result.");
					// No turn-ended usage: Pi gets an estimate from the prompt (never zeros, which would blind its context meter).
					expect(last?.usage?.input).toBeGreaterThan(100);
					expect(last?.usage).toMatchObject({ cacheRead: 0, totalTokens: last?.usage?.input + last?.usage?.output });
				}),
			);
			// The shared Pi runs with 500 ms first-response and idle deadlines; the run is quiet for 2.5 s.
			await cloudPi.use((rpc) =>
				withRpcOutput(rpc, async () => {
					const quiet = lastMessage(await rpc.turn("Slow [[quiet]]"));
					expect(quiet?.stopReason).toBe("stop");
					expect(JSON.stringify(quiet?.content)).toContain("Started. Done after a quiet stretch.");
				}),
			);
		},
		TIMEOUT_MS,
	);
});

describe("faults", () => {
	test(
		"abort mid-stream: the fake gets the cancel within a second and the turn ends aborted",
		async () => {
			const { fake } = cloud;
			await cloudPi.use((rpc) =>
				withRpcOutput(rpc, async () => {
					const from = rpc.mark();
					rpc.write({ type: "prompt", message: "Long job [[hang]]" });
					await rpc.waitFor((r) => r.type === "message_update" && JSON.stringify(r).includes("Working on it"), {
						from,
					});
					const abortedAt = Date.now();
					rpc.write({ type: "abort" });
					const log = await fake.waitForRequests((l) => l.some((r) => r.path.endsWith("/cancel")), 5_000);
					const cancel = log.find((r) => r.path.endsWith("/cancel"));
					expect((cancel?.at ?? Number.POSITIVE_INFINITY) - abortedAt).toBeLessThan(1_000);
					const end = await rpc.waitFor((r) => r.type === "agent_end", { from });
					expect(JSON.stringify(end)).toContain('"stopReason":"aborted"');
				}),
			);
		},
		TIMEOUT_MS,
	);

	test(
		"a stream cut after a few events: the answer is complete and no text appears twice",
		async () => {
			const { fake } = cloud;
			await cloudPi.use((rpc) =>
				withRpcOutput(rpc, async () => {
					const last = lastMessage(await rpc.turn("Count [[cut]]"));
					expect(last?.stopReason).toBe("stop");
					const text = JSON.stringify(last?.content);
					expect(text).toContain("one two three");
					expect(text.split("one ").length).toBe(2);
				}),
			);
			const streams = (await fake.requests()).filter((r) => r.path.endsWith("/stream"));
			expect(streams.length).toBeGreaterThanOrEqual(2);
			expect(streams.at(-1)?.lastEventId).toBeDefined();
		},
		TIMEOUT_MS,
	);

	test(
		"401, 409, 429 and 5xx end the turn with Cursor's reason, classified like local errors; the key appears nowhere",
		async () => {
			const { fake } = cloud;
			/** A turn that ends in an error whose message matches `pattern` (print mode's non-zero exit). */
			const failedTurn = async (rpc: RpcPi, message: string, pattern: RegExp) => {
				const last = lastMessage(await rpc.turn(message));
				expect(last?.stopReason).toBe("error");
				expect(String(last?.errorMessage)).toMatch(pattern);
			};
			const newSession = async (rpc: RpcPi) => {
				const { response } = await rpc.send({ type: "new_session" });
				expect(response.success).toBe(true);
			};
			await cloudPi.use((rpc) =>
				withRpcOutput(rpc, async () => {
					await fake.setFaults({ create: { status: 401, code: "unauthorized", message: "bad key", times: 1 } });
					await failedTurn(rpc, "hello [[answer]]", /API key/i);
					await newSession(rpc);
					const first = lastMessage(await rpc.turn("hello [[answer]]"));
					expect(first?.stopReason).toBe("stop");
					// A follow-up on the same agent (same Pi session) while Cursor says it is busy.
					await fake.setFaults({ followup: { status: 409, code: "agent_busy", message: "Agent is busy", times: 1 } });
					await failedTurn(rpc, "again [[answer]]", /still busy/i);
					for (const [status, code, pattern] of [
						[429, "rate_limited", /rate limit/i],
						[503, "unavailable", /network error/i],
					] as const) {
						await newSession(rpc);
						await fake.setFaults({ create: { status, code, message: "try later", times: 1 } });
						await failedTurn(rpc, "hello [[answer]]", pattern);
					}
					expectNoSecrets(cloudHome, everything(rpc));
				}),
			);
		},
		TIMEOUT_MS,
	);

	// Last in the file: its stdin case ends the shared Pi (a Pi that has run cloud turns in several sessions).
	test(
		"closing stdin or SIGTERM during a cloud run still ends Pi at once",
		async () => {
			const { fake } = cloud;
			const endsAtOnce = async (rpc: RpcPi, how: "stdin" | "SIGTERM") => {
				await rpc.ready();
				const from = rpc.mark();
				rpc.write({ type: "prompt", message: "Long job [[hang]]" });
				await rpc.waitFor((r) => r.type === "message_update" && JSON.stringify(r).includes("Working on it"), { from });
				const started = Date.now();
				if (how === "SIGTERM") process.kill(rpc.pid as number, "SIGTERM");
				const exit = await rpc.close(10_000);
				expect({ how, fast: Date.now() - started < 5_000 }).toEqual({ how, fast: true });
				expect(exit.signal).toBeNull();
			};
			await cloudPi.use((rpc) => endsAtOnce(rpc, "stdin"));
			await endsAtOnce(startRpcPi(CLOUD_ARGS, { home: homes.create(NO_RETRY), env: fake.piEnv() }), "SIGTERM");
		},
		TIMEOUT_MS,
	);
});
