// Pi's start-up race does not cost a Cursor user the model. Pi (0.87.1 through 1.6.0) starts a model refresh it does
// not await when our provider registers; when that refresh finishes last, Pi picks the session's model from a stale
// availability check and starts with no model at all (seen as a rare `--continue` failure in CI). A preload
// (test/fixtures/pi-refresh-race.mjs) forces that order on every start here, so each Pi below loses the race, and
// the extension must select what Pi would have: a resumed session's recorded model and thinking level, a new
// session's default or first Cursor model, and the `--thinking` of the command line over either level. An explicit
// `--model` is the user's choice and stays. Only the npm hosts: the preload needs Node's --import.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { type FakeBackend, loadCapturedCatalog, REPO_ROOT, startFakeBackend } from "../support/fake-backend/client.ts";
import { piHosts, runPi } from "../support/pi.ts";
import { notifications, rpcSuite } from "../support/rpc.ts";

const KEY = "key_test_restore_5t6y7u";
const RACE_PRELOAD = join(REPO_ROOT, "test", "fixtures", "pi-refresh-race.mjs");
const selected = (model: string) =>
	`Pi started without a model (a start-up race in Pi); selected cursor/${model}, as Pi would have.`;

const suite = rpcSuite();
let backend: FakeBackend;

beforeAll(async () => {
	backend = await startFakeBackend({ rest: { models: loadCapturedCatalog() } });
});
afterAll(() => backend?.stop());

/** The environment of a Pi that reaches the fake; `raced` forces Pi's start-up race. */
function cursorEnv(raced = false): Record<string, string> {
	const env = { CURSOR_API_KEY: KEY, CURSOR_BACKEND_URL: backend.url };
	return raced ? { ...env, NODE_OPTIONS: `--import ${RACE_PRELOAD}` } : env;
}

/** The Cursor runs whose latest user request was `prompt`. */
async function runsFor(prompt: string) {
	const requests = await backend.runRequests();
	return requests.filter((r) => r.text.includes(`<latest_user_request>\n${prompt}\n`));
}

/** The model of each Cursor run whose latest user request was `prompt`. */
async function modelsFor(prompt: string): Promise<(string | null)[]> {
	return (await runsFor(prompt)).map((r) => r.modelId);
}

/** The model and its parameters (the thinking level's effort among them) of each Cursor run for `prompt`. */
async function selectionsFor(prompt: string): Promise<{ model: string | null; params: string[] }[]> {
	return (await runsFor(prompt)).map((r) => ({
		model: r.modelId,
		params: r.params.map((p) => `${p.id}=${p.value}`).sort(),
	}));
}

const npmHosts = piHosts().filter((h) => h.name.startsWith("npm"));

describe.concurrent("a resumed Cursor session whose model Pi's start-up race lost", () => {
	for (const host of npmHosts) {
		test(`${host.name}: the recorded model and thinking level come back; an explicit --model stays`, async () => {
			const home = suite.home();
			const sessions = join(home.dir, "sessions");
			const [env, raced] = [cursorEnv(), cursorEnv(true)];
			const tag = host.name.replaceAll(" ", "-");

			const first = await runPi(
				["-p", "--model", "cursor/grok-4.6", "--thinking", "low", "--session-dir", sessions, `first ${tag}`],
				{ home, host, env },
			);
			expect(first.code).toBe(0);
			const file = join(sessions, readdirSync(sessions).find((f) => f.endsWith(".jsonl")) ?? "");

			// RPC: the model, its thinking level and one notice explaining it; the next prompt goes to that model.
			const pi = suite.start(["--session", file], { home, host, env: raced, lifetimeMs: 90_000 });
			const state = await pi.ready(60_000);
			expect(pi.stderr).toContain("[[race]] held");
			const model = state.model as { provider: string; id: string };
			expect({ provider: model.provider, id: model.id, thinking: state.thinkingLevel }).toEqual({
				provider: "cursor",
				id: "grok-4.6",
				thinking: "low",
			});
			expect(notifications(pi.records)).toEqual([{ message: selected("grok-4.6"), type: "info" }]);
			const from = pi.mark();
			expect((await pi.prompt(`second ${tag}`)).response.success).toBe(true);
			await pi.waitFor((r) => r.type === "agent_end", { from, timeoutMs: 60_000 });
			expect((await pi.close()).code).toBe(0);
			expect(await modelsFor(`second ${tag}`)).toEqual(["grok-4.6"]);

			// Print mode: the prompt is answered instead of failing for want of a model; a `--thinking` given on
			// resume wins over the recorded level, as without the race.
			const printed = await runPi(["-p", "--session", file, "--thinking", "high", `third ${tag}`], {
				home,
				host,
				env: raced,
			});
			expect(printed.stderr).toContain("[[race]] held");
			expect({ code: printed.code, stdout: printed.stdout.trim() }).toEqual({
				code: 0,
				stdout: "Hello from fake backend",
			});
			expect(await modelsFor(`third ${tag}`)).toEqual(["grok-4.6"]);
			expect((await selectionsFor(`third ${tag}`))[0]?.params).toContain("effort=high");

			// The user's explicit --model on resume wins over the recorded one, without a notice.
			const chosen = suite.start(["--session", file, "--model", "cursor/gpt-5.5"], {
				home,
				host,
				env: raced,
				lifetimeMs: 90_000,
			});
			expect((await chosen.ready(60_000)).model).toMatchObject({
				provider: "cursor",
				id: expect.stringMatching(/^gpt-5\.5/),
			});
			expect(chosen.stderr).toContain("[[race]] held");
			expect(notifications(chosen.records)).toEqual([]);
			const next = chosen.mark();
			expect((await chosen.prompt(`fourth ${tag}`)).response.success).toBe(true);
			await chosen.waitFor((r) => r.type === "agent_end", { from: next, timeoutMs: 60_000 });
			expect((await chosen.close()).code).toBe(0);
			expect(await modelsFor(`fourth ${tag}`)).toEqual(["gpt-5.5"]);
		}, 180_000);
	}
});

describe.concurrent("a new session that Pi's start-up race left without a model", () => {
	for (const host of npmHosts) {
		for (const [name, settings, flags] of [
			["the settings' default Cursor model", { defaultProvider: "cursor", defaultModel: "grok-4.6" }, []],
			["no default: the first Cursor model", {}, []],
			[
				"the settings' default Cursor model and --thinking low",
				{ defaultProvider: "cursor", defaultModel: "grok-4.6" },
				["--thinking", "low"],
			],
		] as const) {
			test(`${host.name}, ${name}: the same model and thinking level as without the race`, async () => {
				const home = suite.home(settings);
				const tag = `${host.name} ${name}`.replaceAll(" ", "-");
				const calm = await runPi(["-p", ...flags, `calm ${tag}`], { home, host, env: cursorEnv() });
				const raced = await runPi(["-p", ...flags, `raced ${tag}`], { home, host, env: cursorEnv(true) });
				expect(raced.stderr).toContain("[[race]] held");
				expect([calm.code, calm.stdout.trim(), raced.code, raced.stdout.trim()]).toEqual([
					0,
					"Hello from fake backend",
					0,
					"Hello from fake backend",
				]);
				const [model] = await modelsFor(`calm ${tag}`);
				if ("defaultModel" in settings) expect(model).toBe(settings.defaultModel);
				expect(await modelsFor(`raced ${tag}`)).toEqual([model ?? "none"]);
				// The thinking level too: the same Cursor parameters (the level's effort) as without the race.
				const [selection] = await selectionsFor(`calm ${tag}`);
				if (flags.length > 0) expect(selection?.params).toContain(`effort=${flags[1]}`);
				expect(await selectionsFor(`raced ${tag}`)).toEqual([selection ?? { model: "none", params: [] }]);
			}, 120_000);
		}
	}
});
