// Drives the REAL @cursor/sdk against a backend, in its own process (the SDK sets NODE_TLS_REJECT_UNAUTHORIZED=0
// process-wide for loopback URLs, so never load it in a test process). Run with Node 24:
//   CURSOR_BACKEND_URL=http://127.0.0.1:NNNN CURSOR_API_KEY=key_… node sdk-probe.mjs '<config json>'
// Config (all optional):
//   { apiKey, model: {id, params}, cwd, local: {…extra LocalAgentOptions}, agent: {…extra AgentOptions},
//     sends: [{ message: "text" | {text, images}, mode, model, cancelAfterMs, cancelOnDelta: "<delta type>" }],
//     customTools: { <name>: { description, inputSchema, reply: "<prefix>" | throws: "<message>" } },
//     getUsage: true, me: true, listModels: true,
//     preload: ["<absolute path of a module imported before the SDK>", …],
//     agents: [{ agent: {…AgentOptions}, sends: […] }]   (more agents, one after another, after the first; their
//                                                          sends are numbered on from the first agent's),
//     times: true   (each event gets `ms`, milliseconds since the probe started) }
// A custom tool answers `<reply><JSON of its args>` (or throws); each call is printed as a "tool" event.
// Prints one JSON object per line: created / delta / step / status / result / error / usage / me / models / done.
// `node sdk-probe.mjs --serve` runs one `{ id, config, env }` per stdin line instead (env: variables to set, null to
// unset, before the config runs), one after another, each event tagged with `probe: <id>`, until stdin closes.

import { pathToFileURL } from "node:url";

const describeError = (error) => ({
	name: error?.name,
	message: error?.message ?? String(error),
	code: error?.code,
	status: error?.status,
});

/** Runs one probe config; `out` prints one event. */
async function main(config, out) {
	for (const file of config.preload ?? []) await import(pathToFileURL(file).href);
	const { Agent, Cursor } = await import("@cursor/sdk");
	const apiKey = config.apiKey ?? process.env.CURSOR_API_KEY;
	if (config.me) {
		try {
			out({ event: "me", me: await Cursor.me({ apiKey }) });
		} catch (error) {
			out({ event: "error", phase: "me", ...describeError(error) });
		}
	}
	if (config.listModels) {
		try {
			out({ event: "models", models: await Cursor.models.list({ apiKey }) });
		} catch (error) {
			out({ event: "error", phase: "models", ...describeError(error) });
		}
	}
	const sends = config.sends ?? [];
	const more = config.agents ?? [];
	if (sends.length === 0 && !config.getUsage && more.length === 0) return;

	const customTools = {};
	for (const [name, spec] of Object.entries(config.customTools ?? {})) {
		customTools[name] = {
			...(spec.description ? { description: spec.description } : {}),
			...(spec.inputSchema ? { inputSchema: spec.inputSchema } : {}),
			execute: (args, context) => {
				out({ event: "tool", name, args, toolCallId: context?.toolCallId ?? null });
				if (spec.throws) throw new Error(spec.throws);
				return { content: [{ type: "text", text: `${spec.reply ?? ""}${JSON.stringify(args)}` }] };
			},
		};
	}

	let offset = 0;
	for (const [agentOptions, agentSends, getUsage] of [
		[config.agent, sends, config.getUsage],
		...more.map((entry) => [entry.agent, entry.sends ?? [], false]),
	]) {
		await runAgent(Agent, config, out, apiKey, customTools, agentOptions, agentSends, offset, getUsage);
		offset += agentSends.length;
	}
}

/** Creates one agent, runs its sends (numbered from `offset`), then disposes of it. */
async function runAgent(Agent, config, out, apiKey, customTools, agentOptions, sends, offset, getUsage) {
	let agent;
	try {
		agent = await Agent.create({
			apiKey,
			model: config.model ?? { id: "fake-model" },
			...(agentOptions ?? {}),
			local: {
				cwd: config.cwd ?? process.cwd(),
				settingSources: [],
				enableAgentRetries: false,
				...(Object.keys(customTools).length ? { customTools } : {}),
				...(config.local ?? {}),
			},
		});
	} catch (error) {
		out({ event: "error", phase: "create", ...describeError(error) });
		return;
	}
	out({ event: "created", agentId: agent.agentId });

	for (const [position, send] of sends.entries()) {
		const index = offset + position;
		let run;
		let cancelled = false;
		const cancel = () => {
			if (cancelled || !run) return;
			cancelled = true;
			out({ event: "cancel", send: index });
			run.cancel().catch((error) => out({ event: "error", phase: "cancel", send: index, ...describeError(error) }));
		};
		try {
			run = await agent.send(send.message, {
				...(send.mode ? { mode: send.mode } : {}),
				...(send.model ? { model: send.model } : {}),
				onDelta: ({ update }) => {
					out({ event: "delta", send: index, update });
					if (send.cancelOnDelta && update.type === send.cancelOnDelta) setTimeout(cancel, 0);
				},
				onStep: ({ step }) => out({ event: "step", send: index, step }),
			});
		} catch (error) {
			out({ event: "error", phase: "send", send: index, ...describeError(error) });
			continue;
		}
		out({ event: "run", send: index, runId: run.id, requestId: run.requestId ?? null });
		let timer;
		if (send.cancelAfterMs !== undefined) timer = setTimeout(cancel, send.cancelAfterMs);
		try {
			const result = await run.wait();
			out({ event: "result", send: index, result });
		} catch (error) {
			out({ event: "error", phase: "wait", send: index, ...describeError(error) });
		} finally {
			if (timer) clearTimeout(timer);
		}
	}

	if (getUsage) {
		try {
			out({ event: "usage", usage: await agent.getUsage() });
		} catch (error) {
			out({ event: "error", phase: "usage", ...describeError(error) });
		}
	}
	try {
		await Promise.race([agent[Symbol.asyncDispose](), new Promise((resolve) => setTimeout(resolve, 2000))]);
	} catch (error) {
		out({ event: "error", phase: "dispose", ...describeError(error) });
	}
}

/** Runs `config`, then prints `done` (a failure is printed as an `error` event of phase `main`). */
async function probe(config, print) {
	const startedAt = Date.now();
	const out = config.times ? (event) => print({ ...event, ms: Date.now() - startedAt }) : print;
	try {
		await main(config, out);
	} catch (error) {
		out({ event: "error", phase: "main", ...describeError(error) });
	}
	out({ event: "done" });
}

if (process.argv[2] === "--serve") {
	// Runs a probe left going may fail after it printed `done`: not the next probe's error.
	process.on("unhandledRejection", (error) => process.stderr.write(`[unhandled] ${describeError(error).message}\n`));
	let queue = Promise.resolve();
	let buffer = "";
	process.stdin.setEncoding("utf8");
	process.stdin.on("data", (chunk) => {
		buffer += chunk;
		for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
			const line = buffer.slice(0, newline);
			buffer = buffer.slice(newline + 1);
			if (!line.trim()) continue;
			const { id, config, env } = JSON.parse(line);
			queue = queue.then(() => {
				for (const [key, value] of Object.entries(env ?? {})) {
					if (value === null) delete process.env[key];
					else process.env[key] = value;
				}
				return probe(config, (event) => process.stdout.write(`${JSON.stringify({ ...event, probe: id })}\n`));
			});
		}
	});
	process.stdin.on("end", () => queue.then(() => process.exit(0)));
} else {
	const config = JSON.parse(process.argv[2] ?? process.env.FAKE_PROBE_CONFIG ?? "{}");
	const out = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);
	const hardTimeout = setTimeout(() => {
		out({ event: "error", phase: "timeout", message: "sdk-probe hard timeout" });
		process.exit(3);
	}, config.hardTimeoutMs ?? 60000);
	probe(config, out).finally(() => {
		clearTimeout(hardTimeout);
		process.exit(0);
	});
}
