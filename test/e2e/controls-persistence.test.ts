// Issue 4 acceptance, persistence: /cursor-fast saves `fastDefaults` (0600); a session saved to disk (one real turn
// through the fake Cursor backend creates the file) and resumed in a NEW process restores model, thinking level,
// fast, mode and HTTP state. Checked in the session JSONL and in the status after resume. The user defaults are
// flipped before resuming, and a fresh control session shows them, so the resumed values can only come from the
// session entries.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeBackend, loadCapturedCatalog, startFakeBackend } from "../support/fake-backend/client.ts";
import { type PiHost, piHosts, TempHome } from "../support/pi.ts";
import { liveRpcProcesses, notifications, pool, type RpcPi, startRpcPi, statuses } from "../support/rpc.ts";

const TIMEOUT_MS = 180_000;
const KEY = "key_test_persist_p0o9i8";

const limit = pool(3);
const homes: TempHome[] = [];
const rpcs: RpcPi[] = [];
let backend: FakeBackend;

beforeAll(async () => {
	backend = await startFakeBackend({ rest: { models: loadCapturedCatalog() } });
});
afterAll(async () => {
	await Promise.all(rpcs.map((p) => p.kill()));
	await backend?.stop();
	for (const home of homes) home.remove();
	expect(liveRpcProcesses()).toBe(0);
});

function hostNamed(fragment: string): PiHost {
	const host = piHosts().find((h) => h.name.includes(fragment));
	if (!host) throw new Error(`no host ${fragment}`);
	return host;
}

/** Starts an RPC Pi, runs `body`, closes it (at most 3 processes at a time). */
function session<T>(
	h: TempHome,
	host: PiHost,
	args: string[],
	body: (pi: RpcPi, state: Record<string, unknown>) => Promise<T>,
): Promise<T> {
	return limit(async () => {
		const pi = startRpcPi(args, {
			home: h,
			host,
			env: { CURSOR_API_KEY: KEY, CURSOR_BACKEND_URL: backend.url },
			lifetimeMs: 150_000,
		});
		rpcs.push(pi);
		try {
			const state = await pi.ready(60_000);
			const result = await body(pi, state);
			const exit = await pi.close();
			expect(exit.code).toBe(0);
			return result;
		} catch (error) {
			if (error instanceof Error) error.message += `\n${pi.describe()}`;
			await pi.kill();
			throw error;
		}
	});
}

async function command(pi: RpcPi, message: string) {
	const { response, records } = await pi.prompt(message);
	expect(response.success).toBe(true);
	return { notes: notifications(records), status: statuses(records) };
}

type Entry = Record<string, unknown> & { type: string };

function readSession(dir: string): { file: string; entries: Entry[] } {
	const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
	expect(files).toHaveLength(1);
	const file = join(dir, files[0] ?? "");
	const entries = readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as Entry);
	return { file, entries };
}

const CONTRARY_DEFAULTS = `${JSON.stringify({ fastDefaults: { "grok-4.6": true }, local: { useHttp1ForAgent: false } }, null, "\t")}\n`;

describe.concurrent("session persistence and resume", () => {
	for (const [hostName, resumeBy] of [
		["1.6.0", "--continue"],
		["0.87.1", "--session"],
	] as const) {
		test(
			`Pi ${hostName}: fast/mode/http/model/thinking survive a restart (${resumeBy})`,
			async () => {
				const host = hostNamed(hostName);
				const h = new TempHome();
				homes.push(h);
				const sessions = join(h.dir, "sessions");
				const controlSessions = join(h.dir, "control-sessions");
				const configPath = join(h.agentDir, "cursor-sdk.json");

				// 1. First process: change everything, then one turn so Pi writes the session file.
				await session(
					h,
					host,
					["--model", "cursor/grok-4.6", "--thinking", "low", "--session-dir", sessions],
					async (pi, state) => {
						expect(state.thinkingLevel).toBe("low");
						expect(statuses(pi.records)).toEqual(["cursor:local · fast:on"]);
						expect((await command(pi, "/cursor-fast")).status).toEqual(["cursor:local · fast:off"]);
						expect((await command(pi, "/cursor-mode plan")).status).toEqual(["cursor:local · fast:off · plan"]);
						expect((await command(pi, "/cursor-http on")).status).toEqual(["cursor:local · fast:off · http1 · plan"]);
						const from = pi.mark();
						const { response } = await pi.prompt("hello from the persistence test");
						expect(response.success).toBe(true);
						await pi.waitFor((r) => r.type === "agent_settled" || r.type === "agent_end", {
							from,
							timeoutMs: 90_000,
						});
						const assistant = pi.records
							.slice(from)
							.filter((r) => r.type === "message_end")
							.map((r) => r.message as { role: string; content: { type: string; text?: string }[] })
							.find((m) => m.role === "assistant");
						expect(assistant?.content.find((c) => c.type === "text")?.text).toBe("Hello from fake backend");
					},
				);

				// 2. The user defaults /cursor-fast and /cursor-http saved.
				expect(statSync(configPath).mode & 0o777).toBe(0o600);
				expect(JSON.parse(readFileSync(configPath, "utf8"))).toEqual({
					fastDefaults: { "grok-4.6": false },
					local: { useHttp1ForAgent: true },
				});

				// 3. The session file: native model/thinking entries and our custom entries, in order.
				const { file, entries } = readSession(sessions);
				const modelChanges = entries.filter((e) => e.type === "model_change");
				expect(modelChanges.at(-1)).toMatchObject({ provider: "cursor", modelId: "grok-4.6" });
				const thinking = entries.filter((e) => e.type === "thinking_level_change");
				expect(thinking.at(-1)).toMatchObject({ thinkingLevel: "low" });
				const custom = entries
					.filter((e) => e.type === "custom" && String(e.customType).match(/^pi-cursor-sdk:(fast|mode|http)$/))
					.map((e) => ({ customType: e.customType, data: e.data }));
				expect(custom).toEqual([
					{ customType: "pi-cursor-sdk:fast", data: { modelKey: "grok-4.6", fast: false } },
					{ customType: "pi-cursor-sdk:mode", data: { mode: "plan" } },
					{ customType: "pi-cursor-sdk:http", data: { useHttp1: true } },
				]);
				expect(readFileSync(file, "utf8")).not.toContain(KEY);

				// 4. Flip the user defaults, then resume (no --model, no --thinking) and start a fresh control session.
				writeFileSync(configPath, CONTRARY_DEFAULTS);
				const resumeArgs = resumeBy === "--continue" ? ["--continue", "--session-dir", sessions] : ["--session", file];
				const [resumed, control] = await Promise.all([
					session(h, host, resumeArgs, async (pi, state) => {
						const mode = await command(pi, "/cursor-mode");
						const http = await command(pi, "/cursor-http");
						// The footer as the user sees it by now (Pi may restore the model after a first, model-less start).
						return { state, status: statuses(pi.records).at(-1), mode: mode.notes, http: http.notes };
					}),
					session(h, host, ["--model", "cursor/grok-4.6", "--session-dir", controlSessions], async (pi, state) => ({
						state,
						status: statuses(pi.records).at(-1),
					})),
				]);

				const model = resumed.state.model as { provider: string; id: string };
				expect({ provider: model.provider, id: model.id }).toEqual({ provider: "cursor", id: "grok-4.6" });
				expect(resumed.state.thinkingLevel).toBe("low");
				expect(resumed.state.sessionFile).toBe(file);
				expect(resumed.status).toBe("cursor:local · fast:off · http1 · plan");
				expect(resumed.mode).toEqual([
					{ message: "Cursor mode: plan. Usage: /cursor-mode [agent|plan]", type: "info" },
				]);
				expect(resumed.http).toEqual([
					{ message: "Cursor HTTP/1.1 transport: on. Usage: /cursor-http [on|off|toggle]", type: "info" },
				]);

				// The control session sees the flipped user defaults and Pi's default thinking level.
				expect(control.status).toBe("cursor:local · fast:on");
				expect(control.state.thinkingLevel).not.toBe("low");
				expect(readFileSync(configPath, "utf8")).toBe(CONTRARY_DEFAULTS);
			},
			TIMEOUT_MS,
		);
	}
});
