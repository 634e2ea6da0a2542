// What a cloud turn asks Cursor for is what the user named, through the real `pi` CLI on the built bundle and the real
// @cursor/sdk against the cloud fake: a repository URL that would resolve into another repository and starting refs
// that are not branches are refused before any request, never echoed; `refs/heads/x` starts from `x`; and
// `--cursor-fast` sends no fast on a cloud turn, as the footer's `fast:n/a` says.
import { afterAll, describe, expect, test } from "bun:test";
import { cloudFakeForFile, type RequestLogEntry, type Scenario } from "../support/cloud-fake/client.ts";
import { runPi, type TempHome } from "../support/pi.ts";
import { HomeRegistry, NO_RETRY, withOutput } from "../support/pi-turn.ts";
import { type RpcRecord, SharedRpcPi, startRpcPi, withRpcOutput } from "../support/rpc.ts";

const TIMEOUT_MS = 120_000;
const REPO = "https://github.com/acme/app";
const MODEL = "cursor/composer-2.5";
const SCENARIOS: Record<string, Scenario> = {
	"[[answer]]": {
		steps: [
			{ text: "Done." },
			{ turnEnded: { inputTokens: 20, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 } },
		],
	},
};
const cloud = cloudFakeForFile(SCENARIOS);
const homes = new HomeRegistry();
const CLOUD_ARGS = ["--model", MODEL, "--cursor-runtime", "cloud", "--cursor-cloud-ack"];

function piIn(home: TempHome, args: string[]) {
	return runPi(args, { home, env: cloud.fake.piEnv() });
}

/**
 * One RPC Pi that the tests of a cloud turn's target take turns on (a new Pi session, so a new agent, each): a
 * repository named with `.git`, `refs/heads/dev` as the starting branch, and `--cursor-fast`.
 */
const targeted = new SharedRpcPi(() =>
	startRpcPi(
		[...CLOUD_ARGS, "--cursor-cloud-repo", `${REPO}.git`, "--cursor-cloud-branch", "refs/heads/dev", "--cursor-fast"],
		{ home: homes.create(NO_RETRY), env: cloud.fake.piEnv() },
	),
);
afterAll(() => targeted.close());

/** The last message of a turn (the answer, or `stopReason: "error"` with its `errorMessage`). */
const lastMessage = (records: RpcRecord[]) =>
	(records.findLast((r) => r.type === "agent_end")?.messages as { stopReason?: string }[] | undefined)?.at(-1);

const creates = (log: RequestLogEntry[]) => log.filter((r) => r.method === "POST" && r.path === "/v1/agents");

describe("the repository and starting branch of a cloud agent", () => {
	const REFUSED: [string, string, string][] = [
		["an encoded .. segment", "--cursor-cloud-repo", "https://github.com/a/%2e%2e/repo.git"],
		["an encoded ../ inside a segment", "--cursor-cloud-repo", "https://github.com/acme/%2e%2e%2fother/app"],
		["a backslash", "--cursor-cloud-repo", "https://github.com/acme\\..\\other/app"],
		["an encoded newline", "--cursor-cloud-repo", "https://github.com/acme/app%0a"],
		["an encoded space", "--cursor-cloud-repo", "https://github.com/acme/my%20app"],
		["a tag", "--cursor-cloud-branch", "refs/tags/v1.0"],
		["HEAD", "--cursor-cloud-branch", "HEAD"],
		["a range", "--cursor-cloud-branch", "main..dev"],
	];
	for (const [what, flag, value] of REFUSED) {
		test(
			`${flag} with ${what} fails before any request, naming the setting and not the value`,
			async () => {
				const home = homes.create(NO_RETRY);
				const target = flag === "--cursor-cloud-repo" ? [flag, value] : ["--cursor-cloud-repo", REPO, flag, value];
				const result = await piIn(home, [...CLOUD_ARGS, ...target, "-p", "hello [[answer]]"]);
				withOutput(result, () => {
					expect(result.code).not.toBe(0);
					expect(result.stderr).toContain(flag);
					if (flag === "--cursor-cloud-repo") expect(result.stdout + result.stderr).not.toContain(value);
					else expect(result.stderr).toContain("is not a branch name");
				});
				expect(await cloud.fake.requests()).toEqual([]); // not even the key exchange
			},
			TIMEOUT_MS,
		);
	}

	test(
		"refs/heads/<branch> starts the agent from <branch> on the named repository",
		async () => {
			await targeted.use((rpc) =>
				withRpcOutput(rpc, async () => {
					expect(lastMessage(await rpc.turn("hello [[answer]]"))?.stopReason).toBe("stop");
				}),
			);
			const sent = creates(await cloud.fake.requests());
			expect(sent).toHaveLength(1);
			expect(sent[0]?.body).toMatchObject({ repos: [{ url: REPO, startingRef: "dev" }] });
		},
		TIMEOUT_MS,
	);
});

describe("fast on a cloud turn", () => {
	test(
		"--cursor-fast: the footer says fast:n/a and the agent's model carries no fast parameter",
		async () => {
			await targeted.use((rpc) =>
				withRpcOutput(rpc, async () => {
					expect(rpc.status()).toBe("cursor:cloud · fast:n/a");
					expect(lastMessage(await rpc.turn("hello [[answer]]"))?.stopReason).toBe("stop");
				}),
			);
			const sent = creates(await cloud.fake.requests());
			expect(sent).toHaveLength(1);
			const body = sent[0]?.body as { model?: { id?: string; params?: { id: string }[] } } | undefined;
			const model = body?.model;
			expect(model?.id).toBe("composer-2.5");
			expect((model?.params ?? []).map((param) => param.id)).not.toContain("fast");
		},
		TIMEOUT_MS,
	);
});
