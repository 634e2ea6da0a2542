// The child side of CloudProbeProcess (probe.ts): drives the REAL @cursor/sdk through
// src/sdk/cursor-sdk.ts against the cloud fake, one step after another, and prints one JSON line per event. It runs in
// its own process because the SDK reads CURSOR_BACKEND_URL once when it is first imported.
//   bun test/support/cloud-fake/probe-main.ts --serve   one script per stdin line, each event tagged with the
//                                                       script's `id`, until stdin closes

import type { CloudProbeStep, ProbeScript } from "./probe.ts";

const { cloudSdk } = await import("../../../src/sdk/cursor-sdk.ts");
type Agent = Awaited<ReturnType<typeof cloudSdk.createAgent>>;

function describeError(error: unknown) {
	const e = error as { name?: unknown; message?: unknown; code?: unknown; status?: unknown };
	return { name: e?.name, message: String(e?.message ?? error), code: e?.code, status: e?.status };
}

/** Runs one script: its own agents, clock and last run; every event it prints carries the script's id. */
async function runScript(script: ProbeScript): Promise<void> {
	const started = Date.now();
	const emit = (event: string, fields: Record<string, unknown> = {}) => {
		const now = Date.now();
		const tag = script.id === undefined ? {} : { script: script.id };
		process.stdout.write(`${JSON.stringify({ event, t: now - started, at: now, ...tag, ...fields })}\n`);
	};

	const control = async (path: string) => (await fetch(`${script.fakeUrl}/__fake/${path}`)).json();

	const agents = new Map<string, Agent>();
	const agentOf = (slot: string): Agent => {
		const agent = agents.get(slot);
		if (!agent) throw new Error(`probe: no agent in slot ${slot}`);
		return agent;
	};
	let lastRunId = "";
	const runIdOf = (runId: string) => (runId === "last" ? lastRunId : runId);
	const idOf = (step: { slot?: string; agentId?: string }) => step.agentId ?? agentOf(step.slot ?? "").agentId;

	async function send(step: Extract<CloudProbeStep, { op: "send" }>, index: number): Promise<void> {
		const agent = agentOf(step.slot);
		const deltas: unknown[] = [];
		let cancelled: Promise<void> | undefined;
		let run: Awaited<ReturnType<Agent["send"]>> | undefined;
		const cancel = () => {
			if (!run || cancelled) return;
			emit("cancel", { step: index });
			cancelled = run.cancel();
		};
		run = await agent.send(step.text, {
			...(step.model ? { model: step.model } : {}),
			onDelta: ({ update }) => {
				deltas.push(update);
				if (step.cancelOnDelta === update.type) cancel();
			},
		});
		lastRunId = run.id;
		emit("sent", { step: index, runId: run.id, agentId: agent.agentId });
		if (step.cancelAfterMs !== undefined) setTimeout(cancel, step.cancelAfterMs);
		if (step.noWait) return;
		const messages: unknown[] = [];
		if (step.stream) for await (const message of run.stream()) messages.push(message);
		const result = await run.wait();
		await cancelled;
		emit("result", { step: index, result, deltas, messages, status: run.status });
	}

	async function runStep(step: CloudProbeStep, index: number): Promise<void> {
		switch (step.op) {
			case "create":
			case "resume": {
				const setup = { apiKey: script.apiKey, cloud: { repos: [] }, ...step.setup };
				const agent =
					step.op === "create"
						? await cloudSdk.createAgent(setup)
						: await cloudSdk.resumeAgent(step.agentId ?? agentOf(step.fromSlot ?? "").agentId, setup);
				agents.set(step.slot, agent);
				emit(step.op, { step: index, agentId: agent.agentId });
				return;
			}
			case "send":
				return send(step, index);
			case "requests":
				emit("requests", { step: index, log: await control("requests") });
				return;
			case "list":
				emit("list", { step: index, value: await cloudSdk.listAgents(script.apiKey, step.options) });
				return;
			case "get":
				emit("get", { step: index, value: await cloudSdk.getAgent(idOf(step), script.apiKey) });
				return;
			case "getRun":
				emit("getRun", { step: index, value: await cloudSdk.getRun(idOf(step), runIdOf(step.runId), script.apiKey) });
				return;
			case "followRun": {
				const abort = new AbortController();
				if (step.abortAfterMs !== undefined) setTimeout(() => abort.abort(), step.abortAfterMs);
				const value = await cloudSdk.followRun(idOf(step), runIdOf(step.runId), script.apiKey, {
					signal: abort.signal,
					pollMs: 200,
				});
				emit("followRun", { step: index, value });
				return;
			}
			case "streamRunText": {
				const abort = new AbortController();
				if (step.abortAfterMs !== undefined) setTimeout(() => abort.abort(), step.abortAfterMs);
				const texts: string[] = [];
				await cloudSdk.streamRunText(idOf(step), runIdOf(step.runId), script.apiKey, (text) => texts.push(text), {
					signal: abort.signal,
				});
				emit("streamRunText", { step: index, texts });
				return;
			}
			case "listRuns":
				emit("listRuns", { step: index, value: await cloudSdk.listRuns(idOf(step), script.apiKey) });
				return;
			case "cancelRun":
				await cloudSdk.cancelRun(idOf(step), runIdOf(step.runId), script.apiKey);
				emit("cancelRun", { step: index });
				return;
			case "artifacts": {
				const value = await cloudSdk.listArtifacts(idOf(step), script.apiKey);
				const content = step.download
					? (await cloudSdk.downloadArtifact(idOf(step), step.download, script.apiKey)).toString("utf8")
					: undefined;
				emit("artifacts", { step: index, value, content });
				return;
			}
			case "archive":
				await cloudSdk.archiveAgent(idOf(step), script.apiKey);
				emit("archive", { step: index });
				return;
			case "delete":
				await cloudSdk.deleteAgent(idOf(step), script.apiKey);
				emit("delete", { step: index });
				return;
			case "sleep":
				await new Promise((resolve) => setTimeout(resolve, step.ms));
				return;
		}
	}

	for (const [index, step] of script.steps.entries()) {
		try {
			await runStep(step, index);
		} catch (error) {
			emit("error", { step: index, op: step.op, error: describeError(error) });
		}
	}
	emit("done");
}

// Runs a script left going (a hung run not waited for) may fail after their script ended: not this script's error.
process.on("unhandledRejection", (error) => process.stderr.write(`[unhandled] ${describeError(error).message}\n`));
let queue = Promise.resolve();
let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => {
	buffer += chunk;
	for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
		const line = buffer.slice(0, newline);
		buffer = buffer.slice(newline + 1);
		if (line.trim()) queue = queue.then(() => runScript(JSON.parse(line) as ProbeScript));
	}
});
// The SDK can keep handles open after its runs ended.
process.stdin.on("end", () => queue.then(() => process.exit(0)));
