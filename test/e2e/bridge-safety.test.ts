// Pi's tools under Cursor's safety modes, end to end: the real `pi` CLI with the built bundle and a helper
// extension's tools, the real SDK with its sandbox or auto-review on, and the fake backend calling each tool the way
// Cursor's model would, as the SDK advertised it (`advertised: true`). The SDK refuses MCP server calls on such runs,
// so the bridge offers the tools in process (`custom-user-tools`): the call runs in Pi and its result reaches Cursor
// in the same run; Pi's built-ins are not offered there, and the user is told why, once per session.
import { expect } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ClientLogEntry } from "../support/fake-backend/client.ts";
import type { JsonObject } from "../support/fake-backend/codec.ts";
import { type PiRecord, turnSuite, withOutput } from "../support/pi-turn.ts";
import { notifications, type RpcPi } from "../support/rpc.ts";
import { REPO_ROOT } from "../support/toolchain.ts";

const MODEL = "cursor/composer-2.5";
const TOOLS = join(REPO_ROOT, "test", "fixtures", "bridge-tools-extension.ts");

/** An MCP call of `toolName` as the SDK advertised it (whichever server that is), or none when it was not. */
const call = (toolName: string, args: JsonObject = {}) => ({
	exec: { mcp: { toolName, args, advertised: true }, timeoutMs: 60_000 },
});
const finish = [{ text: "final answer" }, { turnEnded: { inputTokens: 5, outputTokens: 2 } }];

const suite = turnSuite({
	scenarioMap: {
		"[[safety:echo]]": [call("pi__echo_tool", { msg: "hi" }), ...finish],
		"[[safety:skill]]": [
			call("pi__echo_tool", { msg: "review" }),
			call("pi__cursor_activate_skill", { name: "notes" }),
			...finish,
		],
		"[[safety:bash]]": [call("pi__bash", { command: "echo from-pi-bash > bash-ran.txt" }), ...finish],
	},
});

/** The fake's client log of the runs whose prompt contains `marker`. */
async function logOf(marker: string): Promise<ClientLogEntry[]> {
	const ids = new Set((await suite.backend.runs()).filter((r) => r.userText?.includes(marker)).map((r) => r.requestId));
	return (await suite.backend.log()).filter((entry) => ids.has(entry.requestId));
}

const mcpResults = async (marker: string) =>
	(await logOf(marker)).filter((e) => e.resultCase === "mcp_result").map((e) => JSON.stringify(e.result));

const resultText = (record: PiRecord | undefined) =>
	(record?.result?.content ?? []).map((c: { text?: string }) => c.text ?? "").join("");

const NOTICE = /Cursor's (sandbox|auto-review) is on\. Cursor calls Pi's tools/;

/** Adds the Pi's records and stderr to an assertion failure. */
function withPiOutput(rpc: RpcPi, assertions: () => void): void {
	withOutput({ stdout: rpc.describe(), stderr: "" }, assertions);
}

// One RPC Pi per safety flag for the tests whose subject is a turn or a command (each in a new Pi session): its events
// are the ones `--mode json` prints, its notices the ones JSON mode writes to stderr. Only one test calls echo_tool
// in each home.
function safetyPi(flag: string) {
	const home = suite.home();
	return { home, pi: suite.shared(["-e", TOOLS, flag, "--model", MODEL], { home }) };
}
const safetyPis = {
	"--cursor-sandbox": safetyPi("--cursor-sandbox"),
	"--cursor-auto-review": safetyPi("--cursor-auto-review"),
};

for (const [flag, { home, pi }] of Object.entries(safetyPis)) {
	suite.test(
		`${flag}: Cursor calls a Pi tool in process, Pi runs it and its result reaches Cursor in the same run; built-ins are not offered and a notice says why`,
		() =>
			pi.use(async (rpc) => {
				const records = (await rpc.turn(`[[safety:echo]] ${flag}`, { timeoutMs: 60_000 })) as PiRecord[];
				const start = records.find((r) => r.type === "tool_execution_start");
				const end = records.find((r) => r.type === "tool_execution_end");
				const runs = (await suite.backend.runs()).filter((r) => r.userText?.includes(`[[safety:echo]] ${flag}`));
				const request = (await suite.backend.runRequests()).find((r) => r.text?.includes(`[[safety:echo]] ${flag}`));
				const results = await mcpResults(`[[safety:echo]] ${flag}`);
				const notices = notifications(records).filter((n) => NOTICE.test(n.message));
				withPiOutput(rpc, () => {
					expect(records.find((r) => r.type === "response")?.success).toBe(true);
					// Offered in process: the SDK lists in-process tools in the run request, with no built-in among them.
					expect(request?.mcpTools).toEqual(["custom-user-tools-pi__echo_tool", "custom-user-tools-pi__slow_tool"]);
					expect(request?.text).toContain('through the MCP server "custom-user-tools"'); // the manifest
					expect(start?.toolName).toBe("echo_tool");
					expect(start?.toolCallId).toMatch(/^cursor-pi-bridge-[0-9a-f]{32}-t1$/);
					expect(resultText(end)).toBe("echo:hi");
					expect(readFileSync(join(home.dir, "echo-runs.txt"), "utf8")).toBe("run\n");
					expect(results).toHaveLength(1);
					expect(results[0]).toContain("echo:hi"); // back in the same run, not refused
					expect(runs).toHaveLength(1);
					expect(runs[0]?.unadvertisedCalls ?? []).toEqual([]);
					expect(
						records.filter((r) => r.type === "message_end" && r.message?.role === "assistant").at(-1)?.message.content,
					).toContainEqual({ type: "text", text: "final answer" });
					// Told once (JSON mode writes it to stderr): how the tools are offered, what it means, why built-ins are not.
					expect(notices).toHaveLength(1);
					expect(notices[0]?.message).toContain("each call runs in Pi, under Pi's rules, not inside Cursor's sandbox");
					expect(notices[0]?.message).toContain("PI_CURSOR_EXPOSE_BUILTIN_TOOLS_UNDER_SAFETY=1 offers them");
				});
			}),
	);
}

suite.test(
	"the default transport stays the loopback MCP server: without a safety flag the same call goes to pi_tools, and no notice",
	async () => {
		const result = await suite.run(["-e", TOOLS, "--model", MODEL, "--mode", "json", "[[safety:echo]] plain"]);
		const request = (await suite.backend.runRequests()).find((r) => r.text?.includes("[[safety:echo]] plain"));
		const call = (await logOf("[[safety:echo]] plain")).find((e) => e.resultCase === "mcp_result");
		withOutput(result, () => {
			expect(result.code).toBe(0);
			expect(request?.mcpTools).toEqual([]); // an MCP server's tools are only in the request context
			expect(request?.text).toContain('through the MCP server "pi_tools"');
			expect(JSON.stringify(call?.result)).toContain("echo:hi");
			expect(result.stderr).not.toMatch(NOTICE);
		});
	},
);

suite.test(
	"--cursor-auto-review in one RPC session: two turns, the notice once; the skill tool goes in process too",
	async () => {
		const home = suite.home();
		home.writeAgentFile("skills/notes/SKILL.md", "---\nname: notes\ndescription: Write notes.\n---\nStep 1: look.\n");
		const args = ["-e", TOOLS, "--cursor-auto-review", "--mode", "rpc", "--no-session", "--model", MODEL];
		await suite.withPi(args, { home }, async (pi) => {
			for (const n of [1, 2]) {
				const from = pi.all().length;
				pi.send({ id: `p${n}`, type: "prompt", message: `[[safety:skill]] turn ${n}` });
				await pi.waitFor((r) => r.type === "agent_end", 90_000, from);
			}
			const notices = pi
				.all()
				.filter((r) => r.type === "extension_ui_request" && r.method === "notify" && NOTICE.test(String(r.message)));
			const results = await mcpResults("[[safety:skill]]");
			withOutput(pi, () => {
				expect(notices).toHaveLength(1);
				expect(notices[0]?.notifyType).toBe("warning");
				expect(results.filter((r) => r.includes("echo:review"))).toHaveLength(2);
				expect(results.filter((r) => r.includes("Step 1: look."))).toHaveLength(2);
			});
			await pi.close();
		});
	},
);

suite.test(
	"built-ins on a sandboxed run: absent even with PI_CURSOR_EXPOSE_BUILTIN_TOOLS=1 (the notice says why); offered with PI_CURSOR_EXPOSE_BUILTIN_TOOLS_UNDER_SAFETY=1",
	async () => {
		const hidden = suite.home();
		const withheld = await suite.run(
			["-e", TOOLS, "--cursor-sandbox", "--model", MODEL, "-p", "[[safety:bash]] hidden"],
			{
				home: hidden,
				env: { PI_CURSOR_EXPOSE_BUILTIN_TOOLS: "1" },
			},
		);
		const hiddenRun = (await suite.backend.runs()).find((r) => r.userText?.includes("[[safety:bash]] hidden"));
		const offered = suite.home();
		const opted = await suite.run(
			["-e", TOOLS, "--cursor-sandbox", "--model", MODEL, "-p", "[[safety:bash]] offered"],
			{
				home: offered,
				env: { PI_CURSOR_EXPOSE_BUILTIN_TOOLS_UNDER_SAFETY: "1" },
			},
		);
		const offeredRequest = (await suite.backend.runRequests()).find((r) => r.text?.includes("[[safety:bash]] offered"));
		withOutput({ stdout: withheld.stdout + opted.stdout, stderr: withheld.stderr + opted.stderr }, () => {
			expect(withheld.code).toBe(0);
			expect(hiddenRun?.unadvertisedCalls).toEqual(["pi__bash"]); // Cursor could not call it
			expect(withheld.stderr).toMatch(
				/Pi's built-ins \(.*bash.*\) are not offered, since they would run in Pi, outside Cursor's sandbox/,
			);
			expect(() => readFileSync(join(hidden.dir, "bash-ran.txt"), "utf8")).toThrow();
			expect(opted.code).toBe(0);
			expect(offeredRequest?.mcpTools).toContain("custom-user-tools-pi__bash");
			expect(readFileSync(join(offered.dir, "bash-ran.txt"), "utf8")).toBe("from-pi-bash\n"); // ran in Pi
			expect(opted.stderr).toMatch(/Pi's built-ins \(.*bash.*\) are offered too/);
		});
	},
);

suite.test(
	"/cursor-tools and /cursor-doctor under --cursor-sandbox say how Cursor reaches Pi's tools and what it means",
	() =>
		safetyPis["--cursor-sandbox"].pi.use(async (rpc) => {
			const tools = await rpc.prompt("/cursor-tools", { timeoutMs: 60_000 });
			const doctor = await rpc.prompt("/cursor-doctor", { timeoutMs: 60_000 });
			const toolsText = notifications(tools.records)
				.map((n) => n.message)
				.join("\n");
			const doctorText = notifications(doctor.records)
				.map((n) => n.message)
				.join("\n");
			withPiOutput(rpc, () => {
				expect(tools.response.success).toBe(true);
				expect(toolsText).toContain("Cursor's sandbox is on: the SDK refuses MCP tool calls on such runs");
				expect(toolsText).toContain("A bridged call runs in Pi, under Pi's rules, not inside Cursor's sandbox");
				expect(toolsText).toContain("echo_tool → pi__echo_tool");
				expect(toolsText).toContain('bridged as in-process server "custom-user-tools"');
				expect(toolsText).toMatch(/bash: Pi built-in, not offered while Cursor's sandbox or auto-review is on/);
				expect(doctor.response.success).toBe(true);
				expect(doctorText).toMatch(
					/bridged in process \("custom-user-tools"\), since Cursor's sandbox refuses MCP tool calls/,
				);
				expect(doctorText).toContain("not inside Cursor's sandbox");
			});
		}),
);

suite.nothingLeftBehind();
