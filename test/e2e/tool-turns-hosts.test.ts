// Tool turns on every supported host (npm Pi 1.6.0 and 0.87.1 on Node, compiled Pi 1.6.0 on Bun), one RPC Pi per
// host, loaded from the built bundle, that both tests take turns on (each in a new Pi session):
// - the live-run turn shape: in one Cursor run, Cursor's own read and shell calls become replay cards and a bridged Pi
//   extension tool really runs, then the answer, all from one run request;
// - the replay tools after a switch to another provider: its plain `bash` call really runs (Pi's built-in behaviour,
//   through the host's own tool factories), while a stale Cursor replay id and the neutral `cursor` tool run nothing
//   and say why.
import { describe, expect } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { piHosts } from "../support/pi.ts";
import { type PiRecord, turnSuite, withOutput } from "../support/pi-turn.ts";
import type { RpcPi } from "../support/rpc.ts";
import { REPO_ROOT } from "../support/toolchain.ts";

const TOOLS = join(REPO_ROOT, "test", "fixtures", "bridge-tools-extension.ts");
const FAUX = join(REPO_ROOT, "test", "fixtures", "faux-tool-caller-extension.ts");

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

/** Adds the Pi's records and stderr to an assertion failure. */
function withPiOutput(rpc: RpcPi, assertions: () => void): void {
	withOutput({ stdout: rpc.describe(), stderr: "" }, assertions);
}

for (const host of piHosts()) {
	const home = suite.home();
	writeFileSync(join(home.dir, "notes.md"), "hello from notes\n");
	const pi = suite.shared(["-e", TOOLS, "-e", FAUX, "--model", "cursor/composer-2.5", "--no-session"], { host, home });

	describe(host.name, () => {
		suite.test("replay cards and a bridged tool in one Cursor run", () =>
			pi.use(async (rpc) => {
				const marker = `host run ${host.name}`;
				const model = await rpc.send(
					{ type: "set_model", provider: "cursor", modelId: "composer-2.5" },
					{ timeoutMs: 60_000 },
				);
				const records = (await rpc.turn(marker, { timeoutMs: 90_000 })) as PiRecord[];
				const ends = records.filter((r) => r.type === "tool_execution_end");
				const stops = records
					.filter((r) => r.type === "message_end" && r.message?.role === "assistant")
					.map((r) => r.message.stopReason);
				const runs = (await suite.backend.runRequests()).filter((r) => r.text?.includes(marker));
				withPiOutput(rpc, () => {
					expect(model.response.success).toBe(true);
					expect(records.find((r) => r.type === "response")?.success).toBe(true);
					expect(ends.map((e) => e.toolName)).toEqual(["read", "bash", "echo_tool"]);
					expect(JSON.stringify(ends[1]?.result)).toContain("host-shell-ok");
					expect(JSON.stringify(ends[2]?.result)).toContain("echo:hi");
					expect(stops).toEqual(["toolUse", "toolUse", "toolUse", "stop"]);
					expect(runs).toHaveLength(1);
					expect(readFileSync(join(home.dir, "echo-runs.txt"), "utf8")).toBe("run\n");
				});
			}),
		);

		suite.test("another provider's bash runs; stale replays and the neutral tool fail closed", () =>
			pi.use(async (rpc) => {
				const model = await rpc.send({ type: "set_model", provider: "faux", modelId: "faux-1" }, { timeoutMs: 60_000 });
				const records = (await rpc.turn("go", { timeoutMs: 60_000 })) as PiRecord[];
				const ends = records
					.filter((r) => r.type === "tool_execution_end")
					.map((r) => {
						const {
							toolCallId,
							toolName,
							isError,
							result: toolResult,
						} = r as unknown as {
							toolCallId: string;
							toolName: string;
							isError: boolean;
							result: { content: { text?: string }[] };
						};
						return { toolCallId, toolName, isError, text: toolResult.content.map((c) => c.text ?? "").join("") };
					})
					// Pi runs the batch in parallel: the ends arrive in any order.
					.sort((a, b) => a.toolCallId.localeCompare(b.toolCallId));
				withPiOutput(rpc, () => {
					expect(model.response.success).toBe(true);
					expect(records.find((r) => r.type === "response")?.success).toBe(true);
					expect(ends).toEqual([
						{ toolCallId: "call_faux_1", toolName: "bash", isError: false, text: "ran\n" },
						{
							toolCallId: "call_faux_2",
							toolName: "cursor",
							isError: true,
							text: expect.stringContaining("nothing was run"),
						},
						{
							toolCallId: "cursor-replay-gone",
							toolName: "bash",
							isError: true,
							text: expect.stringContaining("Nothing was run."),
						},
					]);
					expect(readFileSync(join(home.dir, "faux.txt"), "utf8")).toBe("from-faux\n");
				});
			}),
		);
	});
}

suite.nothingLeftBehind();
