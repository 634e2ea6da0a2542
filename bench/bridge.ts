// Bridge round trip: the latency one bridged call adds (MCP client → loopback HTTP → MCP server → call queue →
// handler → result back) over calling the same handler directly in-process. Printed, never asserted; target p50 < 5 ms.
//
// Run: node build/toolchain.mjs --run node24 bench/bridge.ts   (Node 24 is what npm Pi runs on; Bun works too)
// BRIDGE_CALLS=1000 changes the number of measured calls (after 100 warm-up calls).

import type { BridgeCallHandler } from "../src/bridge/calls.ts";
import { startBridgeServer } from "../src/bridge/server.ts";
import { buildBridgeSurface } from "../src/bridge/snapshot.ts";

const CALLS = Number(process.env.BRIDGE_CALLS ?? 1000);
const WARMUP = 100;

const surface = buildBridgeSurface(
	["echo"],
	[{ name: "echo", description: "Echo.", parameters: { type: "object", properties: { msg: { type: "string" } } } }],
);
const handler: BridgeCallHandler = async (call) => ({
	content: [{ type: "text", text: `echo:${String(call.args.msg)}` }],
});

const percentile = (xs: number[], p: number) => {
	const sorted = [...xs].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

async function directSamples(): Promise<number[]> {
	const controller = new AbortController();
	const call = { toolCallId: "x", piName: "echo", mcpName: "pi__echo", args: { msg: "hi" }, signal: controller.signal };
	const samples: number[] = [];
	for (let i = 0; i < WARMUP + CALLS; i++) {
		const started = performance.now();
		await handler(call);
		if (i >= WARMUP) samples.push(performance.now() - started);
	}
	return samples;
}

/** A streamable-HTTP MCP client session over fetch (keep-alive), like the SDK's client. */
async function bridgedSamples(url: string): Promise<number[]> {
	const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
	const init = await fetch(url, {
		method: "POST",
		headers,
		body: JSON.stringify({
			jsonrpc: "2.0",
			id: 0,
			method: "initialize",
			params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
		}),
	});
	await init.text();
	const session = {
		...headers,
		"mcp-session-id": init.headers.get("mcp-session-id") ?? "",
		"mcp-protocol-version": "2025-06-18",
	};
	await (
		await fetch(url, {
			method: "POST",
			headers: session,
			body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
		})
	).text();
	const samples: number[] = [];
	for (let i = 0; i < WARMUP + CALLS; i++) {
		const body = JSON.stringify({
			jsonrpc: "2.0",
			id: i + 1,
			method: "tools/call",
			params: { name: "pi__echo", arguments: { msg: "hi" } },
		});
		const started = performance.now();
		const text = await (await fetch(url, { method: "POST", headers: session, body })).text();
		const elapsed = performance.now() - started;
		if (!text.includes("echo:hi")) throw new Error(`unexpected response: ${text.slice(0, 200)}`);
		if (i >= WARMUP) samples.push(elapsed);
	}
	return samples;
}

const server = await startBridgeServer({ surface, handler, callTimeoutMs: 60_000 });
try {
	const entry = server.mcpServers.pi_tools;
	const url = entry && "url" in entry ? entry.url : "";
	const direct = await directSamples();
	const bridged = await bridgedSamples(url);
	const runtime = process.versions.bun ? `Bun ${process.versions.bun}` : `Node ${process.versions.node}`;
	const row = (name: string, xs: number[]) =>
		`  ${name.padEnd(24)} p50 ${percentile(xs, 50).toFixed(3)} ms   p95 ${percentile(xs, 95).toFixed(3)} ms`;
	console.log(`Bridge round trip, ${CALLS} sequential calls after ${WARMUP} warm-up (${runtime}):`);
	console.log(row("direct handler call", direct));
	console.log(row("bridged (MCP over HTTP)", bridged));
	console.log(
		`  ${"added by the bridge".padEnd(24)} p50 ${(percentile(bridged, 50) - percentile(direct, 50)).toFixed(3)} ms   p95 ${(percentile(bridged, 95) - percentile(direct, 95)).toFixed(3)} ms   (target p50 < 5 ms)`,
	);
} finally {
	await server.close();
}
