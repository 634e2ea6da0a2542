// Issue 29, item 3: a start flag sets where a run starts; a command typed later changes it for the rest of the run.
// The real `pi --mode rpc` with the built bundle and the real SDK against the fake backend: for each flag, the
// command's notice, the footer (`setStatus("cursor", …)`) and the next request on the wire agree. Flags never write
// the session; the command writes its session entry, and a later run without the flag starts there.
import { expect } from "bun:test";
import type { TempHome } from "../support/pi.ts";
import { sessionEntriesOf, turnSuite } from "../support/pi-turn.ts";
import { notifications, type RpcPi, startRpcPi } from "../support/rpc.ts";

const suite = turnSuite();
const TIMEOUT_MS = 180_000;

/** An RPC Pi of `home` with `args`, closed cleanly after `body`. */
async function withRpc(home: TempHome, args: string[], body: (pi: RpcPi) => Promise<void>): Promise<void> {
	const pi = startRpcPi(args, { home, env: suite.env(), lifetimeMs: TIMEOUT_MS });
	try {
		await pi.ready(60_000);
		await body(pi);
		expect((await pi.close()).code).toBe(0);
	} catch (error) {
		if (error instanceof Error) error.message += `\n${pi.describe()}`;
		throw error;
	} finally {
		await pi.kill();
	}
}

/** Runs a command: its notices. */
async function command(pi: RpcPi, text: string) {
	const { response, records } = await pi.prompt(text);
	expect(response.success).toBe(true);
	return notifications(records);
}

/** Sends a prompt, waits for Pi to settle: the run request the backend received for it. */
async function turn(pi: RpcPi, text: string) {
	const from = pi.mark();
	const { response } = await pi.prompt(text);
	expect(response.success).toBe(true);
	await pi.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 90_000 });
	const requests = (await suite.backend.runRequests()).filter((r) => r.text.includes(text));
	expect(requests).toHaveLength(1);
	return requests[0] as (typeof requests)[number];
}

const fastParam = (request: { params: { id: string; value: string }[] }) =>
	request.params.find((p) => p.id === "fast")?.value;

/** The Cursor entries of the home's one session file. */
function cursorEntries(home: TempHome): [string, unknown][] {
	return sessionEntriesOf(home)
		.filter((e) => e.type === "custom" && String(e.customType).match(/^pi-cursor-sdk:(mode|fast|runtime|http)$/))
		.map((e) => [e.customType, e.data]);
}

const info = (message: string) => [{ message, type: "info" }];

suite.test(
	"--cursor-mode plan starts in plan mode; /cursor-mode agent switches the run (notice, footer, request); the next run without the flag starts in agent mode, with it in plan mode",
	async () => {
		const home = suite.home();
		await withRpc(home, ["--model", "cursor/composer-2", "--cursor-mode", "plan"], async (pi) => {
			expect(pi.status()).toBe("cursor:local · fast:on · plan");
			expect((await turn(pi, "[[flags:mode]] first, as started")).mode).toBe("plan");
			expect(await command(pi, "/cursor-mode agent")).toEqual(info("Cursor mode set to agent for this session."));
			expect(pi.status()).toBe("cursor:local · fast:on");
			expect(await command(pi, "/cursor-mode")).toEqual(info("Cursor mode: agent. Usage: /cursor-mode [agent|plan]"));
			expect((await turn(pi, "[[flags:mode]] then as told")).mode).toBe("agent");
		});
		// Only the command wrote the session.
		expect(cursorEntries(home)).toEqual([["pi-cursor-sdk:mode", { mode: "agent" }]]);
		await withRpc(home, ["--model", "cursor/composer-2", "-c"], async (pi) => {
			expect(pi.status()).toBe("cursor:local · fast:on");
		});
		// A flag sets the start again: the entry the earlier run's command wrote does not outrank it.
		await withRpc(home, ["--model", "cursor/composer-2", "-c", "--cursor-mode", "plan"], async (pi) => {
			expect(pi.status()).toBe("cursor:local · fast:on · plan");
			expect((await turn(pi, "[[flags:mode]] reopened with the flag")).mode).toBe("plan");
		});
		expect(cursorEntries(home)).toEqual([["pi-cursor-sdk:mode", { mode: "agent" }]]);
	},
	TIMEOUT_MS,
);

suite.test(
	"--cursor-no-fast starts with fast off; /cursor-fast on turns it on for the run (notice, footer, request)",
	async () => {
		const home = suite.home();
		await withRpc(home, ["--model", "cursor/composer-2", "--cursor-no-fast"], async (pi) => {
			// composer-2's catalog default is fast on: the flag starts the run with it off.
			expect(pi.status()).toBe("cursor:local · fast:off");
			expect(fastParam(await turn(pi, "[[flags:no-fast]] as started"))).toBe("false");
			expect(await command(pi, "/cursor-fast on")).toEqual(info("Cursor fast on for composer-2."));
			expect(pi.status()).toBe("cursor:local · fast:on");
			expect(fastParam(await turn(pi, "[[flags:no-fast]] as told"))).toBe("true");
		});
		expect(cursorEntries(home)).toEqual([["pi-cursor-sdk:fast", { modelKey: "composer-2", fast: true }]]);
	},
	TIMEOUT_MS,
);

suite.test(
	"--cursor-fast starts with fast on; /cursor-fast toggles it off for the run (notice, footer, request)",
	async () => {
		const home = suite.home();
		home.writeAgentFile("cursor-sdk.json", `${JSON.stringify({ fastDefaults: { "composer-2": false } })}\n`);
		await withRpc(home, ["--model", "cursor/composer-2", "--cursor-fast"], async (pi) => {
			expect(pi.status()).toBe("cursor:local · fast:on");
			expect(await command(pi, "/cursor-fast")).toEqual(info("Cursor fast off for composer-2."));
			expect(pi.status()).toBe("cursor:local · fast:off");
			expect(fastParam(await turn(pi, "[[flags:fast]] as told"))).toBe("false");
			expect(await command(pi, "/cursor-fast maybe")).toEqual([
				{ message: 'Unknown value "maybe". Usage: /cursor-fast [on|off|toggle]', type: "warning" },
			]);
			expect(pi.status()).toBe("cursor:local · fast:off");
		});
	},
	TIMEOUT_MS,
);

suite.test(
	"--cursor-runtime cloud starts on Cursor Cloud; /cursor-runtime local moves the run to this machine (notice, footer, request)",
	async () => {
		const home = suite.home();
		await withRpc(home, ["--model", "cursor/composer-2", "--cursor-runtime", "cloud"], async (pi) => {
			expect(pi.status()).toBe("cursor:cloud · fast:n/a");
			expect(await command(pi, "/cursor-runtime local")).toEqual(info("Cursor runtime set to local for this session."));
			expect(pi.status()).toBe("cursor:local · fast:on");
			// The local fake backend is the local runtime's: the turn reaching it ran on this machine.
			expect((await turn(pi, "[[flags:runtime]] here")).mode).toBe("agent");
		});
		expect(cursorEntries(home)).toEqual([["pi-cursor-sdk:runtime", { runtime: "local" }]]);
	},
	TIMEOUT_MS,
);

suite.nothingLeftBehind();
