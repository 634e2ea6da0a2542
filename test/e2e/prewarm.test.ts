// The first-send prewarm end to end: the real `pi --mode rpc` with our bundle and the real @cursor/sdk against the
// loopback fake backend, Pi not offline (as users run it). Started with a Cursor model and a key, Pi has the SDK
// build the session's executor before any prompt (key exchange, server config, team settings, plugins, skills), and
// the first turn then finds it ready: its own requests repeat none of that. `PI_CURSOR_PREWARM=0` leaves it all to
// the first turn, and `--list-models` never prewarms.
import { expect, test } from "bun:test";
import type { RequestLogEntry } from "../support/fake-backend/client.ts";
import { type PiHost, piHosts, runPi } from "../support/pi.ts";
import { turnSuite } from "../support/pi-turn.ts";
import { type RpcPi, startRpcPi } from "../support/rpc.ts";

// Sequential tests: each one resets the backend and reads its whole request log.
const suite = turnSuite();

const SERVER_CONFIG = "/aiserver.v1.ServerConfigService/GetServerConfig";
/** The executor's own calls; a first send without a prewarmed executor makes them itself. */
const EXECUTOR_CALLS = [
	SERVER_CONFIG,
	"/aiserver.v1.DashboardService/GetTeamAdminSettingsOrEmptyIfNotInTeam",
	"/aiserver.v1.DashboardService/GetManagedSkills",
];
const RUN = "/agent.v1.AgentService/RunSSE";
const paths = (requests: RequestLogEntry[]) => requests.map((r) => r.path);

/** Pi started on a Cursor model; resolves once it answered `get_state` and `waitMs` passed. */
async function startedPi(env: Record<string, string>, waitMs: number, host?: PiHost): Promise<RpcPi> {
	const pi = startRpcPi(["--model", "cursor/composer-2"], {
		home: suite.home(),
		env: suite.env({ PI_OFFLINE: "", ...env }),
		...(host ? { host } : {}),
	});
	await pi.ready(60_000);
	await new Promise((resolve) => setTimeout(resolve, waitMs));
	return pi;
}

async function firstTurn(pi: RpcPi): Promise<string[]> {
	const before = (await suite.backend.requests()).length;
	const from = pi.mark();
	const { response } = await pi.prompt("hello");
	expect(response.success).toBe(true);
	const end = await pi.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: 30_000 });
	expect(JSON.stringify(end)).not.toContain('"stopReason":"error"');
	return paths((await suite.backend.requests()).slice(before));
}

for (const host of piHosts()) {
	test(`${host.name}: started on a Cursor model, Pi prepares the first send before any prompt; the first turn reuses it`, async () => {
		await suite.backend.reset();
		const pi = await startedPi({}, 0, host);
		let prepared: string[] = [];
		const deadline = Date.now() + 20_000;
		while (Date.now() < deadline) {
			prepared = paths(await suite.backend.requests());
			if (EXECUTOR_CALLS.every((call) => prepared.includes(call))) break;
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
		expect(prepared).toEqual(expect.arrayContaining(EXECUTOR_CALLS));
		expect(prepared).not.toContain(RUN);

		const turn = await firstTurn(pi);
		expect(turn).toContain(RUN);
		for (const call of EXECUTOR_CALLS) expect(turn).not.toContain(call);
		await pi.close();
	});
}

test("PI_CURSOR_PREWARM=0: nothing before the first prompt, which then prepares everything itself", async () => {
	await suite.backend.reset();
	const pi = await startedPi({ PI_CURSOR_PREWARM: "0" }, 1_500);
	for (const call of EXECUTOR_CALLS) expect(paths(await suite.backend.requests())).not.toContain(call);
	const turn = await firstTurn(pi);
	expect(turn).toEqual(expect.arrayContaining([...EXECUTOR_CALLS, RUN]));
	await pi.close();
});

test("quitting while the prewarm waits on a backend that never answers: Pi exits at once, cleanly", async () => {
	await suite.backend.reset();
	await suite.backend.setRest({ routes: { [SERVER_CONFIG]: { hang: true } } });
	const pi = await startedPi({}, 0);
	const deadline = Date.now() + 20_000;
	while (!paths(await suite.backend.requests()).includes(SERVER_CONFIG) && Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	expect(paths(await suite.backend.requests())).toContain(SERVER_CONFIG);
	const quitAt = Date.now();
	const exit = await pi.close(10_000);
	expect(Date.now() - quitAt).toBeLessThan(5_000);
	expect(exit.code).toBe(0);
	expect(exit.junk).toEqual([]);
});

test("--list-models never prewarms", async () => {
	await suite.backend.reset();
	const result = await runPi(["--list-models", "cursor"], {
		home: suite.home(),
		env: suite.env({ PI_OFFLINE: "" }),
	});
	expect(result.code).toBe(0);
	await new Promise((resolve) => setTimeout(resolve, 500));
	for (const call of EXECUTOR_CALLS) expect(paths(await suite.backend.requests())).not.toContain(call);
});

suite.nothingLeftBehind();
