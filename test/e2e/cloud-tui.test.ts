// Cursor Cloud in the real TUI (Pi in tmux, the real SDK against the cloud fake): `/cursor-runtime cloud` switches
// the footer to `cursor:cloud · fast:n/a`; the first cloud turn asks once (nothing is sent before the answer), the
// answer is remembered in cursor-sdk.json, and the reply streams with the branch Cursor reports.
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CLOUD_ACK_TITLE } from "../../src/cloud/ack.ts";
import { cloudFakeForFile } from "../support/cloud-fake/client.ts";
import { HomeRegistry, NO_RETRY } from "../support/pi-turn.ts";
import { piTerminal, type TmuxSession } from "../support/tmux.ts";

const REPO = "https://github.com/acme/app";
const cloud = cloudFakeForFile({
	"[[tui]]": {
		steps: [{ thinking: "Looking." }, { text: "Cloud says hello." }],
		result: { git: { branches: [{ repoUrl: REPO, branch: "cursor/hello", prUrl: `${REPO}/pull/9` }] } },
	},
});
const homes = new HomeRegistry();
let terminal: TmuxSession | undefined;

afterAll(() => {
	terminal?.kill();
	homes.removeAll();
});

const footer = (screen: string) => screen.split("\n").find((line) => line.includes("cursor:")) ?? "";

test("/cursor-runtime cloud, the one-time confirmation, and a streamed cloud answer with its branch", async () => {
	const { fake } = cloud;
	const home = homes.create(NO_RETRY);
	terminal = piTerminal(home, ["--model", "cursor/composer-2"], {
		env: fake.piEnv({ PI_CURSOR_CLOUD_REPO: REPO }),
		height: 60,
	});
	await terminal.waitForScreen((text) => text.includes("cursor:local"), "Pi's footer");
	terminal.type("/cursor-runtime cloud ");
	terminal.press("Enter");
	await terminal.waitForScreen((text) => footer(text).includes("cursor:cloud · fast:n/a"), "the cloud footer");

	terminal.type("[[tui]] Say hello");
	terminal.press("Enter");
	const asked = await terminal.waitForScreen((text) => text.includes(CLOUD_ACK_TITLE), "the confirmation");
	expect(asked).toContain("Cursor's machines");
	expect((await fake.requests()).filter((r) => r.path.startsWith("/v1/agents"))).toEqual([]);
	terminal.press("Enter"); // Yes
	const answered = await terminal.waitForScreen((text) => text.includes("cursor/hello"), "the answer and its branch");
	expect(answered).toContain("Cloud says hello.");
	expect(answered).toContain(`${REPO}/pull/9`);
	expect(footer(answered)).toContain("cursor:cloud · fast:n/a");
	const config = JSON.parse(readFileSync(join(home.agentDir, "cursor-sdk.json"), "utf8"));
	expect(config.cloud).toEqual({ acknowledged: true });
	expect((await fake.requests()).filter((r) => r.method === "POST" && r.path === "/v1/agents")).toHaveLength(1);
}, 120_000);
