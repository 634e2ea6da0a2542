// Pi's tools called by Cursor, end to end: the real `pi` CLI with the built bundle and a helper extension's tools,
// the real SDK whose MCP client reaches our loopback bridge, and the fake backend issuing the MCP call. Pi runs the
// real tool through its normal path, and the result goes back into the same Cursor run.
import { expect } from "bun:test";
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import type { ClientLogEntry } from "../support/fake-backend/client.ts";
import type { JsonObject } from "../support/fake-backend/codec.ts";
import { jsonLines, leakedSecrets, type PiRecord, turnSuite, withOutput } from "../support/pi-turn.ts";
import type { RpcPi } from "../support/rpc.ts";
import { REPO_ROOT } from "../support/toolchain.ts";

const MODEL = "cursor/composer-2.5";
const TOOLS = join(REPO_ROOT, "test", "fixtures", "bridge-tools-extension.ts");

const mcpExec = (toolName: string, args: JsonObject = {}) => ({
	exec: { mcp: { toolName, providerIdentifier: "pi_tools", args }, timeoutMs: 60_000 },
});
const finish = [{ text: "final answer" }, { turnEnded: { inputTokens: 5, outputTokens: 2 } }];

const suite = turnSuite({
	scenarioMap: {
		"[[bridge:echo]]": [{ exec: { requestContext: true } }, mcpExec("pi__echo_tool", { msg: "hi" }), ...finish],
		"[[bridge:slow]]": [mcpExec("pi__slow_tool", { ms: 4_000 }), ...finish],
		"[[bridge:hold]]": [mcpExec("pi__slow_tool", { ms: 60_000 }), ...finish],
		"[[bridge:plain]]": [{ exec: { requestContext: true } }, ...finish],
		"[[bridge:skill]]": [mcpExec("pi__cursor_activate_skill", { name: "release-notes" }), ...finish],
		"[[bridge:ask]]": [
			mcpExec("pi__cursor_ask_question", { question: "Which color?", options: ["red", "blue"] }),
			...finish,
		],
	},
});

/** The fake's client log of the runs whose prompt contains `marker`. */
async function logOf(marker: string): Promise<ClientLogEntry[]> {
	const ids = new Set((await suite.backend.runs()).filter((r) => r.userText?.includes(marker)).map((r) => r.requestId));
	return (await suite.backend.log()).filter((entry) => ids.has(entry.requestId));
}

const resultText = (record: PiRecord | undefined) =>
	(record?.result?.content ?? []).map((c: { text?: string }) => c.text ?? "").join("");

/** A loopback URL with a long token: the bridge's secret address must never be shown or stored. */
const BRIDGE_URL = /127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{20,}/;

function sessionFiles(dir: string): string {
	return readdirSync(dir, { recursive: true, withFileTypes: true })
		.filter((f) => f.isFile() && f.name.endsWith(".jsonl"))
		.map((f) => readFileSync(join(f.parentPath, f.name), "utf8"))
		.join("\n");
}

// One RPC Pi (the helper extension's tools, a Pi skill, the ask tool on) for the tests whose subject is a turn, each
// in a new Pi session: its events are the ones `--mode json` prints. Only the echo test calls echo_tool there.
const home = suite.home();
home.writeAgentFile(
	"skills/release-notes/SKILL.md",
	"---\nname: release-notes\ndescription: Write release notes from git history.\n---\nStep 1: run git log.\n",
);
const pi = suite.shared(["-e", TOOLS, "--model", MODEL], { home, env: { PI_CURSOR_ASK_QUESTION: "1" } });

/** Adds the Pi's records and stderr to an assertion failure. */
function withPiOutput(rpc: RpcPi, assertions: () => void): void {
	withOutput({ stdout: rpc.describe(), stderr: "" }, assertions);
}

suite.test(
	"Cursor calls a Pi extension's tool as pi__echo_tool: Pi runs it once, the result returns into the same run",
	() =>
		pi.use(async (rpc) => {
			const records = (await rpc.turn("[[bridge:echo]] use the tool", { timeoutMs: 60_000 })) as PiRecord[];
			const start = records.find((r) => r.type === "tool_execution_start");
			const end = records.find((r) => r.type === "tool_execution_end");
			const assistants = records.filter((r) => r.type === "message_end" && r.message?.role === "assistant");
			const runs = (await suite.backend.runRequests()).filter((r) => r.text?.includes("[[bridge:echo]]"));
			const log = await logOf("[[bridge:echo]]");
			const context = log.find((e) => e.resultCase === "request_context_result");
			const mcpResult = log.find((e) => e.resultCase === "mcp_result");
			const shown = JSON.stringify(rpc.records) + rpc.stderr;
			withPiOutput(rpc, () => {
				expect(records.find((r) => r.type === "response")?.success).toBe(true);
				expect(start?.toolName).toBe("echo_tool"); // the real Pi name, not pi__echo_tool
				expect(start?.args).toEqual({ msg: "hi" });
				expect(start?.toolCallId).toMatch(/^cursor-pi-bridge-[0-9a-f]{32}-t\d+$/);
				expect(resultText(end)).toBe("echo:hi");
				expect(readFileSync(join(home.dir, "echo-runs.txt"), "utf8")).toBe("run\n"); // once
				expect(JSON.stringify(context?.result)).toContain("pi__echo_tool"); // discovered through the SDK
				expect(JSON.stringify(mcpResult?.result)).toContain("echo:hi"); // back in the run
				expect(runs).toHaveLength(1);
				expect(runs[0]?.text).toContain("<pi_tools>"); // the manifest of the bootstrap prompt
				expect(assistants.map((a) => a.message.stopReason)).toEqual(["toolUse", "stop"]);
				expect(assistants.at(-1)?.message.content).toContainEqual({ type: "text", text: "final answer" });
				expect(shown + sessionFiles(home.dir)).not.toMatch(BRIDGE_URL);
				expect(leakedSecrets(shown)).toEqual([]);
			});
		}),
);

suite.test(
	"a call past PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS fails cleanly for Cursor, and the run still finishes",
	async () => {
		const result = await suite.run(["-e", TOOLS, "--model", MODEL, "--mode", "json", "[[bridge:slow]] wait"], {
			env: { PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS: "1500" },
		});
		const mcpResult = (await logOf("[[bridge:slow]]")).find((e) => e.resultCase === "mcp_result");
		const assistants = jsonLines(result.stdout).filter(
			(r) => r.type === "message_end" && r.message?.role === "assistant",
		);
		withOutput(result, () => {
			expect(result.code).toBe(0);
			expect(JSON.stringify(mcpResult?.result)).not.toContain("slow done"); // Cursor got the timeout
			expect(JSON.stringify(mcpResult?.result)).toMatch(/time|deadline/i);
			expect(assistants.at(-1)?.message.stopReason).toBe("stop");
			expect(assistants.at(-1)?.message.content).toContainEqual({ type: "text", text: "final answer" });
		});
	},
);

/** TCP ports the process listens on (from /proc: its socket inodes in LISTEN state). */
function listeningPorts(pid: number): number[] {
	const inodes = new Set<string>();
	for (const fd of readdirSync(`/proc/${pid}/fd`)) {
		try {
			const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
			const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
			if (inode) inodes.add(inode);
		} catch {
			// closed meanwhile
		}
	}
	const ports: number[] = [];
	for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
		if (!existsSync(table)) continue;
		for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
			const cols = line.trim().split(/\s+/);
			if (cols[3] === "0A" && inodes.has(cols[9] ?? "")) ports.push(Number.parseInt(cols[1]?.split(":")[1] ?? "0", 16));
		}
	}
	return ports;
}

suite.test(
	"abort while a bridged tool runs: the tool's signal fires, the run is cancelled, the bridge port is closed",
	() =>
		pi.use(async (rpc) => {
			const from = rpc.mark();
			const { response } = await rpc.prompt("[[bridge:hold]] hold on", { timeoutMs: 60_000 });
			await rpc.waitFor((r) => r.type === "tool_execution_start" && r.toolName === "slow_tool", {
				from,
				timeoutMs: 60_000,
			});
			const listening = listeningPorts(rpc.pid ?? 0);
			rpc.write({ type: "abort" });
			await rpc.waitFor((r) => r.type === "agent_end", { from, timeoutMs: 10_000 });
			const runs = await suite.backend.waitForRuns(
				(all) => all.some((r) => r.userText?.includes("[[bridge:hold]]") && r.clientClosed),
				10_000,
			);
			// The bridge closes its port once the cancelled run is settled: wait for that, not a fixed pause.
			const closedBy = Date.now() + 10_000;
			while (listeningPorts(rpc.pid ?? 0).length > 0 && Date.now() < closedBy) await Bun.sleep(50);
			withPiOutput(rpc, () => {
				expect(response.success).toBe(true);
				expect(listening).toHaveLength(1); // the bridge, on loopback only
				expect(existsSync(join(home.dir, "slow-aborted.txt"))).toBe(true);
				expect(runs.find((r) => r.userText?.includes("[[bridge:hold]]"))?.clientClosed).toBe(true);
				expect(listeningPorts(rpc.pid ?? 0)).toEqual([]);
			});
		}),
);

suite.test("PI_CURSOR_PI_TOOL_BRIDGE=0: no server, no pi__ tools, no manifest", async () => {
	const result = await suite.run(["-e", TOOLS, "--model", MODEL, "-p", "[[bridge:plain]] no bridge"], {
		env: { PI_CURSOR_PI_TOOL_BRIDGE: "0" },
	});
	const runs = (await suite.backend.runRequests()).filter((r) => r.text?.includes("[[bridge:plain]]"));
	const context = (await logOf("[[bridge:plain]]")).find((e) => e.resultCase === "request_context_result");
	withOutput(result, () => {
		expect(result.code).toBe(0);
		expect(result.stdout).toBe("final answer\n");
		expect(runs[0]?.text).not.toContain("<pi_tools>");
		expect(JSON.stringify(context?.result)).not.toContain("pi__");
	});
});

suite.test(
	"PI_CURSOR_ASK_QUESTION=1: Cursor asks through pi__cursor_ask_question, the user's pick goes back to Cursor",
	() =>
		pi.use(async (rpc) => {
			const from = rpc.mark();
			const { response } = await rpc.prompt("[[bridge:ask]] ask me", { timeoutMs: 60_000 });
			const dialog = await rpc.waitFor((r) => r.type === "extension_ui_request" && r.method === "select", {
				from,
				timeoutMs: 60_000,
			});
			rpc.write({ type: "extension_ui_response", id: dialog.id, value: "blue" });
			await rpc.waitFor((r) => r.type === "agent_end", { from, timeoutMs: 60_000 });
			const mcpResult = (await logOf("[[bridge:ask]]")).find((e) => e.resultCase === "mcp_result");
			withPiOutput(rpc, () => {
				expect(response.success).toBe(true);
				expect(dialog.title).toBe("Which color?");
				expect(dialog.options).toEqual(["red", "blue"]);
				expect(JSON.stringify(mcpResult?.result)).toContain("The user answered: blue");
			});
		}),
);

suite.test("with a Pi skill loaded, Cursor loads its SKILL.md through pi__cursor_activate_skill", () =>
	pi.use(async (rpc) => {
		const records = (await rpc.turn("[[bridge:skill]] notes please", { timeoutMs: 60_000 })) as PiRecord[];
		const start = records.find((r) => r.type === "tool_execution_start");
		const mcpResult = (await logOf("[[bridge:skill]]")).find((e) => e.resultCase === "mcp_result");
		const prompt = (await suite.backend.runs()).find((r) => r.userText?.includes("[[bridge:skill]]"))?.userText ?? "";
		withPiOutput(rpc, () => {
			expect(records.find((r) => r.type === "response")?.success).toBe(true);
			expect(start?.toolName).toBe("cursor_activate_skill");
			expect(JSON.stringify(mcpResult?.result)).toContain("Step 1: run git log.");
			// The catalog Cursor sees names the skill and points at the tool, not at a file it cannot read.
			expect(prompt).toContain("<name>release-notes</name>");
			expect(prompt).toContain("load the skill with the pi__cursor_activate_skill tool");
			expect(prompt).not.toContain("release-notes/SKILL.md</location>");
		});
	}),
);

suite.test("/cursor-tools lists what Cursor can call and why the other tools are not bridged", async () => {
	const result = await suite.run(["-e", TOOLS, "--model", MODEL, "-p", "/cursor-tools"]);
	withOutput(result, () => {
		expect(result.code).toBe(0);
		expect(result.stdout).toBe(""); // print mode: the report goes to stderr
		expect(result.stderr).toContain("Pi tool bridge: on");
		expect(result.stderr).toContain("echo_tool → pi__echo_tool");
		expect(result.stderr).toContain("slow_tool → pi__slow_tool");
		expect(result.stderr).toMatch(/bash: Pi built-in/);
		expect(result.stderr).toContain("cursor: shows Cursor's own tool calls");
		expect(result.stderr).toContain("Cursor setting sources: all");
	});
});

suite.nothingLeftBehind();
