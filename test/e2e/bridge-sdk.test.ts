// The bridge against the REAL @cursor/sdk MCP client: the SDK runs in a Node 24 child (sdk-probe.mjs) with the
// bridge's `mcpServers` entry; the fake backend makes it discover the tools (request context) and call them (MCP
// exec). The bridge server runs in this process with a test handler standing in for Pi's tool execution.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { Type } from "typebox";
import type { BridgeCall, BridgeCallHandler } from "../../src/bridge/calls.ts";
import { type BridgeServer, startBridgeServer } from "../../src/bridge/server.ts";
import { readBridgeSettings } from "../../src/bridge/settings.ts";
import { buildBridgeSurface } from "../../src/bridge/snapshot.ts";
import { readEnv } from "../../src/settings/env.ts";
import { type ClientLogEntry, type FakeBackend, startFakeBackend } from "../support/fake-backend/client.ts";
import type { JsonObject } from "../support/fake-backend/codec.ts";
import { type ProbeResult, runSdkProbe } from "../support/fake-backend/probe.ts";
import { REPO_ROOT } from "../support/toolchain.ts";

const TIMEOUT_MS = 60_000;
const PRELOAD_OVERRIDE = join(REPO_ROOT, "test", "fixtures", "mcp-timeouts-preload.ts");
const PRELOAD_FAST_CLOCK = join(REPO_ROOT, "test", "fixtures", "scaled-clock.mjs");

const surface = buildBridgeSurface(
	["echo", "slow"],
	[
		{ name: "echo", description: "Echo the message.", parameters: Type.Object({ msg: Type.String() }) },
		{ name: "slow", description: "Takes its time.", parameters: Type.Object({}) },
	],
);

const mcpExec = (toolName: string, args: JsonObject = {}) => ({
	exec: { mcp: { toolName, providerIdentifier: "pi_tools", args }, timeoutMs: 30_000 },
});
const finish = [{ text: "done" }, { turnEnded: { inputTokens: 1, outputTokens: 1 } }];

let backend: FakeBackend;
beforeAll(async () => {
	backend = await startFakeBackend({
		scenarioMap: {
			"[[br:call]]": [{ exec: { requestContext: true } }, mcpExec("pi__echo", { msg: "hi" }), ...finish],
			"[[br:slow]]": [mcpExec("pi__slow"), ...finish],
		},
	});
});
afterAll(async () => {
	await backend?.stop();
});

const open: BridgeServer[] = [];
afterAll(async () => {
	await Promise.all(open.map((server) => server.close()));
});

/** The bridge's secret URL (tests only). */
const bridgeUrl = (server: BridgeServer) => {
	const entry = server.mcpServers.pi_tools;
	return entry && "url" in entry ? entry.url : "";
};

async function bridge(handler: BridgeCallHandler, callTimeoutMs = 3_600_000, debug?: (line: string) => void) {
	const server = await startBridgeServer({ surface, handler, callTimeoutMs, ...(debug ? { debug } : {}) });
	open.push(server);
	return server;
}

/** The client log entries of the run whose prompt was `marker`. */
async function logOf(marker: string): Promise<ClientLogEntry[]> {
	const runs = (await backend.runs()).filter((run) => run.userText === marker);
	const ids = new Set(runs.map((run) => run.requestId));
	return (await backend.log()).filter((entry) => ids.has(entry.requestId));
}

async function probe(
	marker: string,
	server: BridgeServer,
	extra: {
		preload?: string[];
		env?: Record<string, string>;
		cancelAfterMs?: number;
		inspect?: (root: string) => void;
	} = {},
) {
	return runSdkProbe(
		backend.url,
		{
			agent: { mcpServers: server.mcpServers },
			sends: [
				{ message: marker, ...(extra.cancelAfterMs !== undefined ? { cancelAfterMs: extra.cancelAfterMs } : {}) },
			],
			...(extra.preload ? { preload: extra.preload } : {}),
		},
		{ env: extra.env ?? {}, timeoutMs: TIMEOUT_MS, ...(extra.inspect ? { inspect: extra.inspect } : {}) },
	);
}

const mcpOutcome = (log: ClientLogEntry[]) =>
	log.find((entry) => entry.resultCase === "mcp_result" || entry.kind === "exec_throw");

function withContext(p: ProbeResult, check: () => void) {
	try {
		check();
	} catch (error) {
		console.error(JSON.stringify(p.events.filter((e) => e.event !== "delta")).slice(0, 4000), p.stderr.slice(-3000));
		throw error;
	}
}

/** A handler that finishes after `ms` unless its signal fires first; records what happened. */
function timedHandler(ms: number) {
	const seen: { aborted: boolean; finished: boolean }[] = [];
	const handler: BridgeCallHandler = (call) =>
		new Promise((resolve, reject) => {
			const record = { aborted: false, finished: false };
			seen.push(record);
			const timer = setTimeout(() => {
				record.finished = true;
				resolve({ content: [{ type: "text", text: `slept ${ms} ms` }] });
			}, ms);
			call.signal.addEventListener("abort", () => {
				record.aborted = true;
				clearTimeout(timer);
				reject(call.signal.reason);
			});
		});
	return { seen, handler };
}

/**
 * One SDK process for the three runs that need no preload or environment, each on its own agent and its own bridge
 * (an SDK start costs seconds of CPU, a further agent in it little). It runs before the tests, which check its parts.
 */
async function startPlainRuns() {
	const echo = { calls: [] as BridgeCall[], debugLines: [] as string[] };
	const echoServer = await bridge(
		async (call) => {
			echo.calls.push(call);
			return { content: [{ type: "text", text: `echo:${String(call.args.msg)}` }] };
		},
		undefined,
		(line) => echo.debugLines.push(line),
	);
	const echoMarker = `[[br:call]] ${crypto.randomUUID()}`;
	const token = bridgeUrl(echoServer).split("/")[3] ?? "";
	const filesWithToken: string[] = [];
	let filesSeen = 0;

	const deadline = timedHandler(30_000);
	const { callTimeoutMs } = readBridgeSettings(readEnv({ PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS: "500" }), 3_600_000);
	const deadlineServer = await bridge(deadline.handler, callTimeoutMs);
	const deadlineMarker = `[[br:slow]] ${crypto.randomUUID()}`;

	const cancelled = timedHandler(30_000);
	const cancelServer = await bridge(cancelled.handler);
	const cancelMarker = `[[br:slow]] ${crypto.randomUUID()}`;

	const p = await runSdkProbe(
		backend.url,
		{
			agent: { mcpServers: echoServer.mcpServers },
			sends: [{ message: echoMarker }],
			agents: [
				{ agent: { mcpServers: deadlineServer.mcpServers }, sends: [{ message: deadlineMarker }] },
				{ agent: { mcpServers: cancelServer.mcpServers }, sends: [{ message: cancelMarker, cancelAfterMs: 2_500 }] },
			],
			times: true,
			hardTimeoutMs: 2 * TIMEOUT_MS,
		},
		{
			timeoutMs: 2 * TIMEOUT_MS,
			// The SDK's agent store, logs and settings under the probe's HOME never keep the token.
			inspect: (root) => {
				for (const file of readdirSync(root, { recursive: true, withFileTypes: true })) {
					if (!file.isFile()) continue;
					const path = join(file.parentPath, file.name);
					filesSeen++;
					if (readFileSync(path).includes(token)) filesWithToken.push(path);
				}
			},
		},
	);
	return {
		p,
		echo: { ...echo, server: echoServer, marker: echoMarker, token, filesWithToken, filesSeen },
		deadline: { ...deadline, server: deadlineServer, marker: deadlineMarker },
		cancelled: { ...cancelled, server: cancelServer, marker: cancelMarker },
	};
}

let plain: Awaited<ReturnType<typeof startPlainRuns>>;
beforeAll(async () => {
	plain = await startPlainRuns();
}, 2 * TIMEOUT_MS);

test(
	"the SDK's MCP client discovers the bridge tools and calls one inside the same run",
	async () => {
		const { p, echo } = plain;
		const { calls, debugLines, server, marker, token, filesWithToken, filesSeen } = echo;
		const log = await logOf(marker);
		withContext(p, () => {
			const context = log.find((entry) => entry.resultCase === "request_context_result")?.result as {
				success: { request_context: { tools: Record<string, unknown>[] } };
			};
			expect(context.success.request_context.tools).toContainEqual({
				name: "pi_tools-pi__echo",
				provider_identifier: "pi_tools",
				tool_name: "pi__echo",
				description: expect.stringContaining("Echo the message."),
				input_schema: { type: "object", properties: { msg: { type: "string" } }, required: ["msg"] },
			});
			expect(calls.map((c) => [c.piName, c.mcpName, c.args])).toEqual([["echo", "pi__echo", { msg: "hi" }]]);
			expect(calls[0]?.toolCallId).toBe(`cursor-pi-bridge-${server.runId}-t1`);
			expect(mcpOutcome(log)?.result).toEqual({ success: { content: [{ text: { text: "echo:hi" } }] } });
			// One run request: the result went back into the same run, which then finished.
			expect(log.filter((entry) => entry.kind === "run_request")).toHaveLength(1);
			expect(p.result(0)).toMatchObject({ status: "finished", result: "done" });
			expect(server.pendingCalls()).toBe(0);
		});
		expect(token).toHaveLength(43);
		expect(filesSeen).toBeGreaterThan(0);
		expect(filesWithToken).toEqual([]);
		expect(debugLines.join("")).not.toContain(token);
		// Nor does the SDK print it.
		expect(p.stderr).not.toContain(token);
		expect(JSON.stringify(p.events)).not.toContain(token);
		expect(debugLines.join("")).toContain('"event":"mcp_initialized"');
	},
	TIMEOUT_MS,
);

test(
	"PI_CURSOR_MCP_TOOL_TIMEOUT_MS replaces the SDK's 60 s MCP call timeout (a 1 s value fails a 3 s call)",
	async () => {
		const { seen, handler } = timedHandler(3_000);
		const server = await bridge(handler);
		const marker = `[[br:slow]] ${crypto.randomUUID()}`;
		const p = await probe(marker, server, {
			preload: [PRELOAD_OVERRIDE],
			env: { PI_CURSOR_MCP_TOOL_TIMEOUT_MS: "1000" },
		});
		const log = await logOf(marker);
		withContext(p, () => {
			expect(p.events.find((e) => e.event === "mcp-timeouts")).toMatchObject({ ok: true, settings: { toolMs: 1_000 } });
			const outcome = mcpOutcome(log);
			expect(outcome?.kind).toBe("exec_throw");
			expect(JSON.stringify(outcome?.message)).toContain("MCP error -32001: Request timed out");
			// The SDK's client cancelled the request: our handler was aborted, nothing is left pending.
			expect(seen).toEqual([{ aborted: true, finished: false }]);
			expect(server.pendingCalls()).toBe(0);
			expect(p.result(0)).toMatchObject({ status: "finished", result: "done" });
		});
	},
	TIMEOUT_MS,
);

test(
	"a 75 s tool call succeeds with the raised timeout and would fail with the SDK's 60 s (fast clock in the SDK)",
	async () => {
		// Under the fast clock (timers ≥ 50 s run 50× faster) a 1.5 s call is a 75 s call for the SDK.
		const raised = timedHandler(1_500);
		const withOverride = await bridge(raised.handler);
		const markerRaised = `[[br:slow]] ${crypto.randomUUID()}`;
		const pRaised = await probe(markerRaised, withOverride, { preload: [PRELOAD_FAST_CLOCK, PRELOAD_OVERRIDE] });
		const logRaised = await logOf(markerRaised);
		withContext(pRaised, () => {
			expect(pRaised.events.find((e) => e.event === "mcp-timeouts")).toMatchObject({
				ok: true,
				settings: { toolMs: 3_600_000 },
			});
			expect(mcpOutcome(logRaised)?.result).toEqual({ success: { content: [{ text: { text: "slept 1500 ms" } }] } });
			expect(raised.seen).toEqual([{ aborted: false, finished: true }]);
			expect(pRaised.result(0)).toMatchObject({ status: "finished", result: "done" });
		});

		const sdkDefault = timedHandler(1_500);
		const without = await bridge(sdkDefault.handler);
		const markerDefault = `[[br:slow]] ${crypto.randomUUID()}`;
		const pDefault = await probe(markerDefault, without, { preload: [PRELOAD_FAST_CLOCK] });
		const logDefault = await logOf(markerDefault);
		withContext(pDefault, () => {
			expect(JSON.stringify(mcpOutcome(logDefault)?.message)).toContain("MCP error -32001: Request timed out");
			expect(sdkDefault.seen).toEqual([{ aborted: true, finished: false }]);
		});
	},
	TIMEOUT_MS,
);

test(
	"a call past PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS fails cleanly: the handler is aborted and the run goes on",
	async () => {
		const { p, deadline } = plain;
		const { seen, server, marker } = deadline;
		const log = await logOf(marker);
		const events = p.forSend(1);
		const runMs =
			Number(events.find((e) => e.event === "result")?.ms) - Number(events.find((e) => e.event === "run")?.ms);
		withContext(p, () => {
			const outcome = mcpOutcome(log);
			expect(outcome?.resultCase).toBe("mcp_result");
			expect(JSON.stringify(outcome?.result)).toContain('Pi tool \\"slow\\" did not finish within 500 ms');
			expect(JSON.stringify(outcome?.result)).toMatch(/is_error"?:true/);
			expect(seen).toEqual([{ aborted: true, finished: false }]);
			expect(server.pendingCalls()).toBe(0);
			expect(p.result(1)).toMatchObject({ status: "finished", result: "done" });
			expect(runMs).toBeLessThan(25_000); // the run did not wait out the 30 s tool
		});
	},
	TIMEOUT_MS,
);

function portRefuses(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = connect({ host: "127.0.0.1", port });
		socket.once("connect", () => {
			socket.destroy();
			resolve(false);
		});
		socket.once("error", () => resolve(true));
	});
}

test(
	"a cancelled run whose SDK goes away aborts the running tool; close() leaves nothing pending or listening",
	async () => {
		const { p, cancelled } = plain;
		const { seen, server } = cancelled;
		const port = server.address().port;
		withContext(p, () => {
			expect(p.result(2)).toMatchObject({ status: "cancelled" });
			expect(seen).toEqual([{ aborted: true, finished: false }]);
			expect(server.pendingCalls()).toBe(0);
		});
		await server.close();
		expect(await portRefuses(port)).toBe(true);
	},
	TIMEOUT_MS,
);
