// Soak: 100 sequential turns through the real `pi --mode rpc` (our bundle, the real @cursor/sdk) against the loopback
// fake Cursor backend, on one persisted Pi session (so one pooled SDK agent at a time; it is recreated after 20
// incremental sends by design). Prints RSS, heap, active resources and open fds of the Pi process at turn 10 and
// turn 100, with their ratios (target: flat within 10 %). Printed, never asserted.
//
// Run: node build/toolchain.mjs --run bun bench/soak.ts   (SOAK_TURNS=100, SOAK_SAMPLE=10 to change)
// Heap and active resources come from a tiny probe extension written to the temp HOME (`/soak-mem` notifies
// `process.memoryUsage()` after a forced GC; Pi runs with NODE_OPTIONS=--expose-gc). RSS and fds come from /proc.
// SOAK_EVERY=n prints a trace every n turns. SOAK_BASELINE=1 also runs the bare SDK (no Pi, no extension) in a Node 24
// child for the same number of sends, one agent recreated every 21 sends, and prints its RSS/heap at the same turns:
// growth that shows there too belongs to the SDK, not to the pooling.

import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadCapturedCatalog, node24Path, REPO_ROOT, startFakeBackend } from "../test/support/fake-backend/client.ts";
import { TempHome } from "../test/support/pi.ts";
import { isNotify, type RpcPi, startRpcPi } from "../test/support/rpc.ts";
import { BUNDLE } from "../test/support/toolchain.ts";

const TURNS = Number(process.env.SOAK_TURNS ?? 100);
const SAMPLE_AT = Number(process.env.SOAK_SAMPLE ?? 10);
/** With SOAK_EVERY=n, also print RSS/heap/fds every n turns (a trace of where growth happens). */
const EVERY = Number(process.env.SOAK_EVERY ?? 0);
const BASELINE = process.env.SOAK_BASELINE === "1";
const TURN_TIMEOUT_MS = 30_000;
const DEADLINE = Date.now() + 15 * 60_000;

const PROBE_EXTENSION = `
export default function (pi) {
	pi.registerCommand("soak-mem", {
		description: "soak probe: memory and active resources",
		handler: async (_args, ctx) => {
			if (typeof globalThis.gc === "function") { globalThis.gc(); globalThis.gc(); }
			const m = process.memoryUsage();
			const resources = process.getActiveResourcesInfo();
			ctx.ui.notify("soak-mem " + JSON.stringify({ ...m, resources: resources.length, resourceKinds: resources }), "info");
		},
	});
}
`;

/** The bare-SDK baseline: the same sends as the soak, straight on @cursor/sdk (prints one JSON line per sample). */
const BASELINE_SCRIPT = `
const { Agent, JsonlLocalAgentStore } = await import(process.env.SOAK_SDK_URL);
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const [turns, sampleAt] = process.argv.slice(2).map(Number);
const store = new JsonlLocalAgentStore(mkdtempSync(join(tmpdir(), "soak-baseline-store-")));
const rssKb = () => Number(readFileSync("/proc/self/status", "utf8").match(/VmRSS:\\s+(\\d+)/)[1]);
let agent;
for (let i = 1; i <= turns; i++) {
	if ((i - 1) % 21 === 0) {
		agent?.close();
		agent = await Agent.create({ apiKey: "key_soak", model: { id: "composer-2" },
			local: { cwd: process.cwd(), settingSources: ["all"], enableAgentRetries: false, store } });
	}
	const result = await (await agent.send("soak turn " + i, { onDelta: () => {} })).wait();
	if (result.status !== "finished") throw new Error("baseline send " + i + ": " + result.status);
	if (i === sampleAt || i === turns) {
		globalThis.gc(); globalThis.gc();
		console.log(JSON.stringify({ turn: i, rssKb: rssKb(), heapUsed: process.memoryUsage().heapUsed }));
	}
}
agent?.close();
process.exit(0);
`;

function runBaseline(backendUrl: string, home: TempHome): { turn: number; rssKb: number; heapUsed: number }[] {
	const script = join(home.dir, "soak-baseline.mjs");
	writeFileSync(script, BASELINE_SCRIPT);
	const sdk = pathToFileURL(join(REPO_ROOT, "node_modules", "@cursor", "sdk", "dist", "esm", "index.js")).href;
	const result = spawnSync(node24Path(), ["--expose-gc", script, String(TURNS), String(SAMPLE_AT)], {
		cwd: home.dir,
		env: home.env({ CURSOR_BACKEND_URL: backendUrl, SOAK_SDK_URL: sdk }),
		encoding: "utf8",
		timeout: 10 * 60_000,
	});
	const lines = result.stdout.split("\n").filter((l) => l.startsWith("{"));
	if (result.status !== 0 || lines.length === 0) {
		throw new Error(`baseline failed (${result.status}): ${result.stderr.slice(-2000)}`);
	}
	return lines.map((l) => JSON.parse(l) as { turn: number; rssKb: number; heapUsed: number });
}

interface Sample {
	turn: number;
	rssKb: number;
	heapUsed: number;
	heapTotal: number;
	external: number;
	arrayBuffers: number;
	resources: number;
	resourceKinds: Record<string, number>;
	fds: number;
	fdKinds: Record<string, number>;
	sessionBytes: number;
	storeBytes: number;
}

function procStatus(pid: number, field: string): number {
	const line = readFileSync(`/proc/${pid}/status`, "utf8")
		.split("\n")
		.find((l) => l.startsWith(`${field}:`));
	return Number(line?.split(/\s+/)[1] ?? Number.NaN);
}

function fdKinds(pid: number): { count: number; kinds: Record<string, number> } {
	const kinds: Record<string, number> = {};
	const entries = readdirSync(`/proc/${pid}/fd`);
	for (const fd of entries) {
		let target = "?";
		try {
			target = readlinkSync(`/proc/${pid}/fd/${fd}`);
		} catch {
			// closed while listing
		}
		const kind = target.startsWith("socket:")
			? "socket"
			: target.startsWith("pipe:")
				? "pipe"
				: target.startsWith("anon_inode:")
					? target
					: target.startsWith("/")
						? "file"
						: target;
		kinds[kind] = (kinds[kind] ?? 0) + 1;
	}
	return { count: entries.length, kinds };
}

function dirBytes(dir: string): number {
	if (!existsSync(dir)) return 0;
	let total = 0;
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		total += entry.isDirectory() ? dirBytes(path) : statSync(path).size;
	}
	return total;
}

function count(kinds: string[]): Record<string, number> {
	const out: Record<string, number> = {};
	for (const k of kinds) out[k] = (out[k] ?? 0) + 1;
	return out;
}

async function turn(pi: RpcPi, text: string): Promise<void> {
	const from = pi.mark();
	const { response } = await pi.prompt(text);
	if (!response.success) throw new Error(`prompt failed: ${JSON.stringify(response)}`);
	await pi.waitFor((r) => r.type === "agent_settled", { from, timeoutMs: TURN_TIMEOUT_MS });
	const failed = pi.records
		.slice(from)
		.find(
			(r) =>
				r.type === "message_end" &&
				(r.message as { role?: string; stopReason?: string }).role === "assistant" &&
				(r.message as { stopReason?: string }).stopReason !== "stop",
		);
	if (failed) throw new Error(`turn "${text}" did not finish: ${JSON.stringify(failed).slice(0, 500)}`);
}

async function sample(pi: RpcPi, turnNo: number, sessionFile: string, storeDir: string): Promise<Sample> {
	const pid = pi.pid;
	if (!pid) throw new Error("no pid");
	const from = pi.mark();
	await pi.prompt("/soak-mem");
	const notice = await pi.waitFor(isNotify("soak-mem "), { from });
	const mem = JSON.parse(String(notice.message).slice("soak-mem ".length)) as NodeJS.MemoryUsage & {
		resources: number;
		resourceKinds: string[];
	};
	const fds = fdKinds(pid);
	return {
		turn: turnNo,
		rssKb: procStatus(pid, "VmRSS"),
		heapUsed: mem.heapUsed,
		heapTotal: mem.heapTotal,
		external: mem.external,
		arrayBuffers: mem.arrayBuffers,
		resources: mem.resources,
		resourceKinds: count(mem.resourceKinds),
		fds: fds.count,
		fdKinds: fds.kinds,
		sessionBytes: existsSync(sessionFile) ? statSync(sessionFile).size : 0,
		storeBytes: dirBytes(storeDir),
	};
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const ratio = (a: number, b: number) => (a === 0 ? "n/a" : `${((b / a - 1) * 100).toFixed(1)} %`);

async function main(): Promise<void> {
	const home = new TempHome();
	const backend = await startFakeBackend({ rest: { models: loadCapturedCatalog() } });
	const probe = join(home.dir, "soak-probe-extension.js");
	writeFileSync(probe, PROBE_EXTENSION);
	const pi = startRpcPi(["--model", "cursor/composer-2"], {
		home,
		env: { CURSOR_API_KEY: "key_soak", CURSOR_BACKEND_URL: backend.url, NODE_OPTIONS: "--expose-gc" },
		extensions: [BUNDLE, probe],
		lifetimeMs: 16 * 60_000,
	});
	const samples: Sample[] = [];
	const started = Date.now();
	const turnMs: number[] = [];
	try {
		const state = await pi.ready(60_000);
		const sessionFile = String(state.sessionFile);
		let storeDir = "";
		for (let i = 1; i <= TURNS; i++) {
			if (Date.now() > DEADLINE) throw new Error(`soak deadline passed at turn ${i}`);
			const t = performance.now();
			await turn(pi, `soak turn ${i}: please answer briefly`);
			turnMs.push(performance.now() - t);
			if (!storeDir && existsSync(sessionFile)) {
				const resume = readFileSync(sessionFile, "utf8")
					.split("\n")
					.filter((l) => l.includes('"pi-cursor-sdk:resume"'))
					.at(-1);
				storeDir = resume ? (JSON.parse(resume) as { data: { storeDir: string } }).data.storeDir : "";
			}
			if (i === SAMPLE_AT || i === TURNS) samples.push(await sample(pi, i, sessionFile, storeDir));
			else if (EVERY > 0 && i % EVERY === 0) {
				const s = await sample(pi, i, sessionFile, storeDir);
				const window = turnMs.slice(-EVERY).sort((a, b) => a - b);
				const windowMedian = window[Math.floor(window.length / 2)] ?? 0;
				console.log(
					`  turn ${i}: RSS ${mb(s.rssKb * 1024)}, heap ${mb(s.heapUsed)}, fds ${s.fds}, ` +
						`median turn ${windowMedian.toFixed(0)} ms (last ${EVERY})`,
				);
			}
		}
		const requests = await backend.runRequests();
		const conversations = new Set(requests.map((r) => r.conversationId));
		const bootstraps = requests.filter((r) => r.text.includes("<pi_instructions>")).length;
		const [early, late] = [samples[0], samples.at(-1)];
		if (!early || !late) throw new Error("missing samples");
		const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
		const rows: [string, string, string, string][] = [
			["RSS (VmRSS)", mb(early.rssKb * 1024), mb(late.rssKb * 1024), ratio(early.rssKb, late.rssKb)],
			["heap used (after GC)", mb(early.heapUsed), mb(late.heapUsed), ratio(early.heapUsed, late.heapUsed)],
			["heap total", mb(early.heapTotal), mb(late.heapTotal), ratio(early.heapTotal, late.heapTotal)],
			["external", mb(early.external), mb(late.external), ratio(early.external, late.external)],
			["active resources", String(early.resources), String(late.resources), ratio(early.resources, late.resources)],
			["open fds", String(early.fds), String(late.fds), ratio(early.fds, late.fds)],
			["session JSONL", mb(early.sessionBytes), mb(late.sessionBytes), ratio(early.sessionBytes, late.sessionBytes)],
			["SDK store dir", mb(early.storeBytes), mb(late.storeBytes), ratio(early.storeBytes, late.storeBytes)],
		];
		console.log(`soak: ${TURNS} turns in ${((Date.now() - started) / 1000).toFixed(1)} s on pi pid ${pi.pid}`);
		console.log(
			`run requests: ${requests.length}, conversations (SDK agents): ${conversations.size}, bootstraps: ${bootstraps}, ` +
				`incremental: ${requests.length - bootstraps}`,
		);
		console.log(
			`turn latency: median ${median(turnMs).toFixed(0)} ms, first ${turnMs[0]?.toFixed(0)} ms, max ${Math.max(...turnMs).toFixed(0)} ms`,
		);
		console.log(
			`\n${"metric".padEnd(24)}${`turn ${early.turn}`.padStart(14)}${`turn ${late.turn}`.padStart(14)}  change`,
		);
		for (const [name, a, b, r] of rows) console.log(`${name.padEnd(24)}${a.padStart(14)}${b.padStart(14)}  ${r}`);
		console.log(`\nactive resources at turn ${early.turn}: ${JSON.stringify(early.resourceKinds)}`);
		console.log(`active resources at turn ${late.turn}: ${JSON.stringify(late.resourceKinds)}`);
		console.log(`fds at turn ${early.turn}: ${JSON.stringify(early.fdKinds)}`);
		console.log(`fds at turn ${late.turn}: ${JSON.stringify(late.fdKinds)}`);
		const flat = (a: number, b: number) => b <= a * 1.1;
		console.log(
			`\nflat within 10 %: RSS ${flat(early.rssKb, late.rssKb) ? "yes" : "NO"}, heap ${flat(early.heapUsed, late.heapUsed) ? "yes" : "NO"}, ` +
				`fds ${flat(early.fds, late.fds) ? "yes" : "NO"}, resources ${flat(early.resources, late.resources) ? "yes" : "NO"}`,
		);
		if (BASELINE) {
			const [a, b] = [...runBaseline(backend.url, home)];
			if (a && b) {
				console.log(`\nbare SDK baseline (Node 24, no Pi, same sends):`);
				console.log(
					`${"RSS (VmRSS)".padEnd(24)}${mb(a.rssKb * 1024).padStart(14)}${mb(b.rssKb * 1024).padStart(14)}  ${ratio(a.rssKb, b.rssKb)}`,
				);
				console.log(
					`${"heap used (after GC)".padEnd(24)}${mb(a.heapUsed).padStart(14)}${mb(b.heapUsed).padStart(14)}  ${ratio(a.heapUsed, b.heapUsed)}`,
				);
			}
		}
	} finally {
		const exit = await pi.close();
		if (exit.code !== 0) console.error(`pi exited ${exit.code ?? exit.signal}\n${exit.stderr.slice(-2000)}`);
		await backend.stop();
		home.remove();
	}
}

await main();
