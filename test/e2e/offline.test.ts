// A user with a key but no way to reach Cursor (CURSOR_BACKEND_URL on a closed loopback port), in `pi --mode rpc`
// with Pi's network refreshes on (no PI_OFFLINE): Pi starts without a network warning, the turn says which host
// refused and that this is not a passing hiccup, and the failure leaves a trace: /cursor-usage lists the failed send
// with its error class, /cursor-doctor shows it as the session's last error. /cursor-refresh-models still reports.
import { afterAll, expect, test } from "bun:test";
import { HomeRegistry } from "../support/pi.ts";
import { leakedSecrets, NO_RETRY, type PiRecord, TEST_KEY } from "../support/pi-turn.ts";
import { isNotify, liveRpcProcesses, notifications, refusedBackendUrl, startRpcPi } from "../support/rpc.ts";

const TIMEOUT_MS = 120_000;
const homes = new HomeRegistry();
afterAll(() => {
	homes.removeAll();
	expect(liveRpcProcesses()).toBe(0);
});

test(
	"offline with a key: a quiet start, a turn naming what refused, and the failed send in /cursor-usage and /cursor-doctor",
	async () => {
		const url = await refusedBackendUrl();
		const target = new URL(url).host;
		const pi = startRpcPi(["--model", "cursor/composer-2"], {
			home: homes.create(NO_RETRY),
			env: { CURSOR_API_KEY: TEST_KEY, CURSOR_BACKEND_URL: url, PI_OFFLINE: undefined },
			lifetimeMs: TIMEOUT_MS,
		});
		try {
			await pi.ready(60_000);
			const turn = pi.mark();
			await pi.prompt("hello");
			await pi.waitFor((r) => r.type === "agent_settled", { from: turn, timeoutMs: 60_000 });
			const reply = pi.records
				.slice(turn)
				.filter((r: PiRecord) => r.type === "message_end" && r.message?.role === "assistant")
				.at(-1)?.message as PiRecord | undefined;
			expect(reply?.stopReason).toBe("error");
			expect(reply?.errorMessage).toBe(
				`Cursor could not be reached (network error): ${target} refused the connection (ECONNREFUSED). Check your network connection, proxy or firewall, then retry.`,
			);

			const usage = pi.mark();
			await pi.prompt("/cursor-usage");
			const journal = String((await pi.waitFor(isNotify("Cursor usage for this session"), { from: usage })).message);
			expect(journal).toContain("1 send: 0 finished, 1 failed, 1 without reported usage");
			expect(journal).toMatch(/#1 \S+ \S+ composer-2 error \(network, no agent\): usage not reported/);

			const doctor = pi.mark();
			await pi.prompt("/cursor-doctor");
			const report = String((await pi.waitFor(isNotify("Cursor doctor report"), { from: doctor })).message);
			expect(report).toMatch(
				new RegExp(
					`\\[WARN\\] Last Cursor error in this session: .*${target} refused the connection \\(ECONNREFUSED\\)`,
				),
			);
			expect(report).toMatch(new RegExp(`\\[FAIL\\] Cursor accepts the key: .*${target} refused the connection`));

			// Pi's startup refresh (network allowed, nobody waiting for it) failed by now, without a word.
			const beforeRefresh = pi.mark();
			expect(notifications(pi.records).filter((n) => n.type !== "info")).toEqual([]);
			expect(pi.stderr).not.toContain("Could not refresh");

			await pi.prompt("/cursor-refresh-models");
			const refresh = await pi.waitFor(isNotify("Could not refresh Cursor models"), { from: beforeRefresh });
			expect(refresh.notifyType).toBe("error");
			expect(String(refresh.message)).toContain(`${target} refused the connection`);
			expect(leakedSecrets(JSON.stringify(pi.records) + pi.stderr)).toEqual([]);
			expect((await pi.close()).code).toBe(0);
		} finally {
			await pi.kill();
		}
	},
	TIMEOUT_MS,
);
