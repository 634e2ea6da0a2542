// The live-run turn shape on every supported host (npm Pi 1.6.0 and 0.87.1 on Node, compiled Pi 1.6.0 on Bun): in one
// Cursor run, Cursor's own read and shell calls become replay cards and a bridged Pi extension tool really runs, then
// the answer, all from one run request.
import { describe, expect } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { piHosts } from "../support/pi.ts";
import { jsonLines, turnSuite, withOutput } from "../support/pi-turn.ts";
import { REPO_ROOT } from "../support/toolchain.ts";

const TOOLS = join(REPO_ROOT, "test", "fixtures", "bridge-tools-extension.ts");

const suite = turnSuite({
	defaultScenario: {
		steps: [
			{ text: "Looking. " },
			{ tool: { callId: "h-read", read: { path: "notes.md" } } },
			{ tool: { callId: "h-shell", shell: { command: "echo host-shell-ok" } } },
			{ exec: { mcp: { toolName: "pi__echo_tool", providerIdentifier: "pi_tools", args: { msg: "hi" } } } },
			{ text: "Done." },
			{ turnEnded: { inputTokens: 5, outputTokens: 2 } },
		],
	},
});

describe("replay cards and a bridged tool in one Cursor run", () => {
	for (const host of piHosts()) {
		suite.test(host.name, async () => {
			const home = suite.home();
			writeFileSync(join(home.dir, "notes.md"), "hello from notes\n");
			const marker = `host run ${host.name}`;
			const args = ["-e", TOOLS, "--model", "cursor/composer-2.5", "--mode", "json", "--no-session", marker];
			const result = await suite.run(args, { host, home, timeoutMs: 90_000 });
			const records = jsonLines(result.stdout);
			const ends = records.filter((r) => r.type === "tool_execution_end");
			const stops = records
				.filter((r) => r.type === "message_end" && r.message?.role === "assistant")
				.map((r) => r.message.stopReason);
			const runs = (await suite.backend.runRequests()).filter((r) => r.text?.includes(marker));
			withOutput(result, () => {
				expect(result.code).toBe(0);
				expect(ends.map((e) => e.toolName)).toEqual(["read", "bash", "echo_tool"]);
				expect(JSON.stringify(ends[1]?.result)).toContain("host-shell-ok");
				expect(JSON.stringify(ends[2]?.result)).toContain("echo:hi");
				expect(stops).toEqual(["toolUse", "toolUse", "toolUse", "stop"]);
				expect(runs).toHaveLength(1);
				expect(readFileSync(join(home.dir, "echo-runs.txt"), "utf8")).toBe("run\n");
			});
		});
	}
});

suite.nothingLeftBehind();
