// Issue 13 acceptance: configuring the local Cursor agent, as a user sees it. The real `pi` (RPC and print mode),
// the built bundle, the real @cursor/sdk and the loopback fake backend. Every run answers a request-context exec
// first, so the fake decodes what the SDK really set up for the agent: its custom subagents, whether the sandbox
// and auto-review are on, and the Cursor rules it loaded.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OWNER_FILE } from "../../src/session/cleanup.ts";
import { type PiHost, piHosts, runPi, type TempHome } from "../support/pi.ts";
import { TEST_KEY, TURN_TEST_MS, turnSuite } from "../support/pi-turn.ts";
import { isNotify, notifications, type RpcPi, type RpcRecord, SharedRpcPi, startRpcPi } from "../support/rpc.ts";

const TIMEOUT_MS = TURN_TEST_MS;
const suite = turnSuite({
	defaultScenario: {
		name: "context-then-answer",
		steps: [{ exec: { requestContext: true } }, { text: "ok" }, { turnEnded: { inputTokens: 10, outputTokens: 1 } }],
	},
});
const homes = suite.homes;
const rpcs: RpcPi[] = [];
afterAll(async () => {
	await Promise.all(rpcs.map((pi) => pi.kill()));
}, 30_000);

// ---------------------------------------------------------------------------------------------------------------
// Helpers

function rpc(
	home: TempHome,
	args: string[],
	options: { cwd?: string; env?: Record<string, string>; host?: PiHost; lifetimeMs?: number } = {},
): RpcPi {
	const pi = startRpcPi(["--model", "cursor/composer-2", ...args], {
		home,
		env: suite.env(options.env),
		lifetimeMs: options.lifetimeMs ?? TIMEOUT_MS,
		...(options.cwd ? { cwd: options.cwd } : {}),
		...(options.host ? { host: options.host } : {}),
	});
	rpcs.push(pi);
	return pi;
}

/** Sends a prompt that runs a turn and waits until Pi settles; returns that turn's records. */
async function turn(pi: RpcPi, text: string): Promise<RpcRecord[]> {
	const from = pi.mark();
	const { response } = await pi.prompt(text);
	if (!response.success) throw new Error(`prompt failed: ${JSON.stringify(response)}\n${pi.describe()}`);
	await pi.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 60_000 });
	const records = pi.records.slice(from);
	const error = turnError(records);
	if (error) throw new Error(`turn "${text}" failed: ${error}\n${pi.describe()}`);
	return records;
}

/** The assistant error of a turn's records, if it ended in one. */
function turnError(records: readonly RpcRecord[]): string | undefined {
	for (const r of records) {
		const message = r.type === "message_end" ? (r.message as { role?: string; errorMessage?: string }) : undefined;
		if (message?.role === "assistant" && message.errorMessage) return message.errorMessage;
	}
	return undefined;
}

interface SeenRun {
	conversationId: string | null;
	text: string;
	context: Record<string, unknown> | undefined;
}

/** The runs whose prompt contains `marker`, in order, each with the request context its agent reported. */
async function runsWith(marker: string): Promise<SeenRun[]> {
	const requests = (await suite.backend.runRequests()).filter((r) => r.text.includes(marker));
	const contexts = await suite.backend.requestContexts();
	return requests.map((r) => ({
		conversationId: r.conversationId,
		text: r.text,
		context: contexts.find((c) => c.requestId === r.requestId)?.context,
	}));
}

const env = (context: Record<string, unknown> | undefined) => (context?.env ?? {}) as Record<string, unknown>;
function subagents(context: Record<string, unknown> | undefined) {
	const list = (context?.custom_subagents ?? []) as Record<string, unknown>[];
	return list.map((s) => ({ name: s.name, description: s.description, prompt: s.prompt, model: s.model }));
}

function writeJson(path: string, value: unknown): void {
	mkdirSync(join(path, ".."), { recursive: true });
	writeFileSync(path, JSON.stringify(value, null, 2));
}

function warnings(pi: RpcPi): string[] {
	return notifications(pi.records)
		.filter((n) => n.type === "warning")
		.map((n) => n.message);
}

// ---------------------------------------------------------------------------------------------------------------

// One Pi without flags (home: user config with subagents; cwd: a workspace without project config) that the tests
// whose subject is a turn or a command take turns on, a new Pi session each: custom subagents, the run without
// --cursor-sandbox/--cursor-auto-review, and /cursor-refresh-config (last: it closes the Pi). It lives across
// several tests, so its lifetime guard is the file's.
const mainHome = homes.create();
const mainWorkspace = join(mainHome.dir, "workspace");
mkdirSync(mainWorkspace);
const main = new SharedRpcPi(() => rpc(mainHome, [], { cwd: mainWorkspace, lifetimeMs: 10 * TIMEOUT_MS }));

describe("custom subagents from cursor-sdk.json", () => {
	test(
		"one warning names the invalid entry; the run carries the valid definition; editing it starts a new conversation",
		async () => {
			const home = mainHome;
			const config = join(home.agentDir, "cursor-sdk.json");
			const definitions = (prompt: string) => ({
				subagents: {
					reviewer: { description: "Reviews the diff", prompt, color: "ignored" },
					"bad name!": { description: "has no prompt" },
				},
			});
			writeJson(config, definitions("Review strictly (v1)."));
			// The shared Pi's first use: it starts now, with this config, and all its records are this test's.
			const pi = await main.use(async (pi) => {
				await turn(pi, "[[sub]] first");
				await turn(pi, "[[sub]] second");
				writeJson(config, definitions("Review gently (v2)."));
				await turn(pi, "[[sub]] third");
				return pi;
			});

			const [first, second, third] = await runsWith("[[sub]]");
			expect(subagents(first?.context)).toEqual([
				{ name: "reviewer", description: "Reviews the diff", prompt: "Review strictly (v1).", model: "inherit" },
			]);
			// Unchanged definitions: the same Cursor conversation, only the new message.
			expect(second?.conversationId).toBe(first?.conversationId as string);
			expect(second?.text).not.toContain("<pi_instructions>");
			// Edited prompt: a new agent, bootstrapped, with the new definition.
			expect(third?.conversationId).not.toBe(first?.conversationId as string);
			expect(third?.text).toContain("<pi_instructions>");
			expect(subagents(third?.context).map((s) => s.prompt)).toEqual(["Review gently (v2)."]);

			const found = warnings(pi);
			expect(found).toHaveLength(1); // reported once, not again at each turn
			expect(found[0]).toContain('"bad name!"');
			expect(found[0]).not.toContain('"reviewer"');
		},
		TIMEOUT_MS,
	);
});

describe("--cursor-sandbox and --cursor-auto-review", () => {
	test(
		"with the flags the SDK runs the agent sandboxed with auto-review and the footer says so; without, nothing",
		async () => {
			const withFlags = rpc(homes.create(), ["--cursor-sandbox", "--cursor-auto-review"]);
			await withFlags.ready();
			expect(withFlags.status()).toBe("cursor:local · fast:on · review · sandbox");
			await turn(withFlags, "[[safety-on]] go");
			await withFlags.close();

			await main.use(async (without) => {
				expect(without.status()).toBe("cursor:local · fast:on");
				await turn(without, "[[safety-off]] go");
			});

			const [on] = await runsWith("[[safety-on]]");
			expect(env(on?.context).sandbox_enabled).toBe(true);
			expect(env(on?.context).smart_mode_classifier_auto_mode_enabled).toBe(true);
			const [off] = await runsWith("[[safety-off]]");
			expect(off?.context).toBeDefined();
			expect(env(off?.context).sandbox_enabled ?? false).toBe(false);
			expect(env(off?.context).smart_mode_classifier_auto_mode_enabled ?? false).toBe(false);
		},
		TIMEOUT_MS,
	);
});

describe("project .pi/cursor-sdk.json", () => {
	const projectConfig = {
		local: { sandboxOptions: { enabled: true } },
		subagents: { "project-helper": { description: "Knows this repo", prompt: "Use the repo conventions." } },
	};
	function project(home: TempHome, content: string | object): { dir: string; file: string } {
		const dir = join(home.dir, "project");
		const file = join(dir, ".pi", "cursor-sdk.json");
		mkdirSync(join(dir, ".pi"), { recursive: true });
		writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
		return { dir, file };
	}

	test(
		"ignored without trust, applied with --approve or a decision saved in Pi's trust store (/trust)",
		async () => {
			const untrustedHome = homes.create();
			const untrusted = rpc(untrustedHome, [], { cwd: project(untrustedHome, projectConfig).dir });
			await untrusted.ready();
			expect(untrusted.status()).toBe("cursor:local · fast:on");
			await turn(untrusted, "[[project-untrusted]] go");
			await untrusted.close();

			const approvedHome = homes.create();
			const approved = rpc(approvedHome, ["--approve"], { cwd: project(approvedHome, projectConfig).dir });
			await approved.ready();
			expect(approved.status()).toBe("cursor:local · fast:on · sandbox");
			await turn(approved, "[[project-approved]] go");
			await approved.close();

			// No --approve: Pi's own saved decision for the folder (what /trust writes) is the approval.
			const savedHome = homes.create();
			const saved = project(savedHome, projectConfig);
			savedHome.writeAgentFile("trust.json", { [saved.dir]: true });
			const savedPi = rpc(savedHome, [], { cwd: saved.dir });
			await savedPi.ready();
			expect(savedPi.status()).toBe("cursor:local · fast:on · sandbox");
			await savedPi.close();

			const [ignored] = await runsWith("[[project-untrusted]]");
			expect(subagents(ignored?.context)).toEqual([]);
			expect(env(ignored?.context).sandbox_enabled ?? false).toBe(false);
			const [applied] = await runsWith("[[project-approved]]");
			expect(subagents(applied?.context).map((s) => s.name)).toEqual(["project-helper"]);
			expect(env(applied?.context).sandbox_enabled).toBe(true);
		},
		TIMEOUT_MS,
	);

	test(
		"Pi's own trust flow decides when the project has protected resources: applied when trusted, else ignored",
		async () => {
			for (const [policy, expected] of [
				["always", "cursor:local · fast:on · sandbox"],
				["never", "cursor:local · fast:on"],
			] as const) {
				const home = homes.create({ defaultProjectTrust: policy });
				const { dir } = project(home, projectConfig);
				writeFileSync(join(dir, ".pi", "settings.json"), "{}"); // a resource Pi guards with its trust flow
				const pi = rpc(home, [], { cwd: dir });
				await pi.ready();
				expect(pi.status()).toBe(expected);
				await pi.close();
			}
		},
		TIMEOUT_MS,
	);

	test(
		"Pi 0.87.1 and compiled Pi 1.6.0 give the extension the same trust facts",
		async () => {
			for (const host of piHosts().filter((h) => !h.name.startsWith("npm pi 1.6.0"))) {
				const cases = [
					{ args: [], policy: "ask", guarded: false, expected: "cursor:local · fast:on" },
					{ args: ["--approve"], policy: "ask", guarded: false, expected: "cursor:local · fast:on · sandbox" },
					{ args: [], policy: "always", guarded: true, expected: "cursor:local · fast:on · sandbox" },
				];
				for (const c of cases) {
					const home = homes.create({ defaultProjectTrust: c.policy });
					const { dir } = project(home, projectConfig);
					if (c.guarded) writeFileSync(join(dir, ".pi", "settings.json"), "{}");
					const pi = rpc(home, c.args, { cwd: dir, host });
					await pi.ready();
					expect({ host: host.name, ...c, status: pi.status() }).toEqual({ host: host.name, ...c, status: c.expected });
					await pi.close();
				}
			}
		},
		TIMEOUT_MS,
	);

	test(
		"a malformed project file is reported and left byte-identical",
		async () => {
			const home = homes.create();
			const text = '{ "local": { "sandboxOptions": { "enabled": true } },, }\n';
			const { dir, file } = project(home, text);
			const pi = rpc(home, ["--approve"], { cwd: dir });
			await pi.ready();
			await pi.waitFor(isNotify(file, "warning"));
			expect(pi.status()).toBe("cursor:local · fast:on");
			await turn(pi, "[[project-malformed]] go");
			await pi.prompt("/cursor-fast"); // saves a user default: the project file is not touched
			await pi.close();
			expect(readFileSync(file, "utf8")).toBe(text);
			expect(readdirSync(join(dir, ".pi"))).toEqual(["cursor-sdk.json"]);
			expect(JSON.parse(readFileSync(join(home.agentDir, "cursor-sdk.json"), "utf8"))).toEqual({
				fastDefaults: { "composer-2": false },
			});
			const warning = warnings(pi).filter((w) => w.includes(file));
			expect(warning).toHaveLength(1);
			expect(warning[0]).toContain("not valid JSON");
		},
		TIMEOUT_MS,
	);
});

describe("/cursor-refresh-config", () => {
	test(
		"says when there is no agent yet; with one, reloads rules into it and the next turn stays incremental",
		async () => {
			const workspace = mainWorkspace;
			// A new Pi session in the shared Pi: no Cursor agent yet. The last use: it closes the Pi.
			await main.use(async (pi) => {
				const before = await pi.prompt("/cursor-refresh-config");
				expect(notifications(before.records).map((n) => n.message)).toEqual([
					expect.stringContaining("No Cursor agent in this session yet"),
				]);
				await turn(pi, "[[refresh]] first");
				mkdirSync(join(workspace, ".cursor", "rules"), { recursive: true });
				writeFileSync(
					join(workspace, ".cursor", "rules", "fruit.mdc"),
					"---\nalwaysApply: true\n---\nAlways mention a banana.\n",
				);
				const reloaded = await pi.prompt("/cursor-refresh-config");
				expect(notifications(reloaded.records).map((n) => n.message)).toEqual([
					expect.stringContaining("Cursor config reloaded"),
				]);
				await turn(pi, "[[refresh]] second");
				await pi.close();
			});

			const [first, second] = await runsWith("[[refresh]]");
			expect(JSON.stringify(first?.context)).not.toContain("Always mention a banana.");
			expect(JSON.stringify(second?.context)).toContain("Always mention a banana.");
			expect(second?.conversationId).toBe(first?.conversationId as string);
			expect(second?.text).not.toContain("<pi_instructions>");
		},
		TIMEOUT_MS,
	);
});

describe("state root and /cursor-cleanup", () => {
	test(
		"a group-writable PI_CURSOR_SDK_STATE_ROOT fails the turn with a message naming the problem",
		async () => {
			const home = homes.create();
			const root = join(home.dir, "shared-state");
			mkdirSync(root);
			chmodSync(root, 0o775);
			const result = await runPi(["--model", "cursor/composer-2", "-p", "[[unsafe-root]] hi"], {
				home,
				env: suite.env({ PI_CURSOR_SDK_STATE_ROOT: root }),
				timeoutMs: 60_000,
			});
			expect(result.code).not.toBe(0);
			const output = result.stdout + result.stderr;
			expect(output).toContain(`Unsafe Cursor state root PI_CURSOR_SDK_STATE_ROOT="${root}"`);
			expect(output).toContain(`${root} is writable by its group`);
			expect(output).not.toContain(TEST_KEY);
			expect(existsSync(join(root, "pi-sessions"))).toBe(false);
			expect(await runsWith("[[unsafe-root]]")).toEqual([]);
		},
		TIMEOUT_MS,
	);

	test(
		"--dry-run lists exactly the stores of deleted sessions; /cursor-cleanup removes those, claims stores from before owner records, and removes unowned ones only with --unowned",
		async () => {
			const home = homes.create();
			const root = join(home.dir, "state");
			const stateEnv = { PI_CURSOR_SDK_STATE_ROOT: root };
			// One Pi makes the five stores, one Pi session each (a new session releases the previous one's store).
			// Its last session stays open: a running Pi whose session file disappears still holds its store.
			const holder = rpc(home, [], { env: stateEnv });
			await holder.ready();
			for (const [i, name] of ["kept", "deleted-a", "deleted-b", "legacy", "held"].entries()) {
				if (i > 0) expect((await holder.send({ type: "new_session" })).response.success).toBe(true);
				await turn(holder, `[[cleanup:${name}]] hi`);
			}

			const sessionsDir = join(root, "pi-sessions");
			expect(statSync(root).mode & 0o777).toBe(0o700);
			const owners = new Map(
				readdirSync(sessionsDir).map((name) => {
					const owner = JSON.parse(readFileSync(join(sessionsDir, name, OWNER_FILE), "utf8")) as {
						sessionFile: string;
					};
					const prompt = readFileSync(owner.sessionFile, "utf8");
					const tag = /\[\[cleanup:([a-z-]+)\]\]/.exec(prompt)?.[1] ?? "?";
					return [tag, { dir: join(sessionsDir, name), sessionFile: owner.sessionFile }] as const;
				}),
			);
			expect([...owners.keys()].sort()).toEqual(["deleted-a", "deleted-b", "held", "kept", "legacy"]);
			for (const tag of ["deleted-a", "deleted-b", "held"]) rmSync(owners.get(tag)?.sessionFile as string);
			// A store as versions before owner records left it: its session exists, but the store does not say whose it is.
			const legacy = owners.get("legacy")?.dir as string;
			rmSync(join(legacy, OWNER_FILE));
			// Things cleanup must never touch: a store-like folder without an owner record, and files beside it.
			const stranger = join(sessionsDir, "0".repeat(24));
			mkdirSync(stranger);
			writeFileSync(join(root, "workspace-store.db"), "shared");

			const orphans = [owners.get("deleted-a")?.dir, owners.get("deleted-b")?.dir].sort();
			const cleaner = rpc(home, [], { env: stateEnv });
			await cleaner.ready();
			const dry = await cleaner.prompt("/cursor-cleanup --dry-run");
			const [report] = notifications(dry.records).map((n) => n.message);
			const listed = [...(report ?? "").matchAll(/^ {2}(\S+) \(session /gm)].map((m) => m[1]).sort();
			expect(listed).toEqual(orphans as string[]);
			expect(report).toContain("Would remove 2");
			for (const dir of orphans) expect(existsSync(dir as string)).toBe(true);

			expect(report).toContain("Would record the owner of 1 store(s) made before ownership records");
			expect(report).toContain(
				`match no session Pi lists (one may live in another session folder); left alone:\n  ${stranger}`,
			);
			expect(existsSync(join(legacy, OWNER_FILE))).toBe(false); // a dry run writes nothing

			const real = await cleaner.prompt("/cursor-cleanup");
			const [realReport] = notifications(real.records).map((n) => n.message);
			expect(realReport).toContain("Removed 2");
			expect(realReport).toContain("Recorded the owner of 1 store(s)");
			expect(JSON.parse(readFileSync(join(legacy, OWNER_FILE), "utf8")).sessionFile).toBe(
				owners.get("legacy")?.sessionFile,
			);
			expect(existsSync(stranger)).toBe(true);
			const unowned = await cleaner.prompt("/cursor-cleanup --unowned");
			expect(notifications(unowned.records).map((n) => n.message)[0]).toContain(
				`Removed 1 Cursor session store(s):\n  ${stranger}`,
			);
			await cleaner.close();
			await holder.close();
			for (const dir of orphans) expect(existsSync(dir as string)).toBe(false);
			expect(existsSync(owners.get("kept")?.dir as string)).toBe(true);
			expect(existsSync(owners.get("held")?.dir as string)).toBe(true);
			expect(existsSync(legacy)).toBe(true);
			expect(existsSync(stranger)).toBe(false);
			expect(readFileSync(join(root, "workspace-store.db"), "utf8")).toBe("shared");
			expect(existsSync(owners.get("kept")?.sessionFile as string)).toBe(true);
		},
		TIMEOUT_MS,
	);
});

suite.nothingLeftBehind();
