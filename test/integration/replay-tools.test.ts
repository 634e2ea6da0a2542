// The replay tools inside a real Pi AgentSession. A faux (non-Cursor) provider plays the model, so each test drives
// Pi's own tool execution: a recorded Cursor call returns its recorded result without running anything; any other
// call of a shadowed built-in (`bash`) really runs like Pi's built-in; the neutral `cursor` tool and stale replay ids
// fail closed; a `bash` another extension registered first is left alone.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
	type FauxProviderHandle,
	type FauxResponseStep,
	fauxAssistantMessage,
	fauxProvider,
	fauxToolCall,
} from "@earendil-works/pi-ai";
import {
	type AgentSessionEvent,
	createBashToolDefinition,
	type ExtensionFactory,
} from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { replayToolCallId } from "../../src/replay/ids.ts";
import type { ReplayCard } from "../../src/replay/mapping.ts";
import { NEUTRAL_WITHOUT_RECORD_MESSAGE, NOT_RECORDED_MESSAGE } from "../../src/replay/tools.ts";
import { FakeCursorSdk } from "../support/fake-sdk.ts";
import { createHarnessSession, type HarnessOptions, type HarnessSession } from "../support/harness.ts";

const open: HarnessSession[] = [];
afterEach(async () => {
	for (const s of open.splice(0)) await s.close();
});

interface Faux {
	handle?: FauxProviderHandle;
}

function fauxExtension(faux: Faux): ExtensionFactory {
	return (pi) => {
		faux.handle = fauxProvider({ provider: "faux", models: [{ id: "faux-1", name: "Faux One" }] });
		pi.registerProvider(faux.handle.provider);
	};
}

/** A harness session whose model is the faux provider, which answers with `steps` in order. */
async function session(options: Partial<HarnessOptions> = {}) {
	const faux: Faux = {};
	const h = await createHarnessSession({
		sdk: new FakeCursorSdk(),
		...options,
		extensions: { before: options.extensions?.before ?? [], after: [fauxExtension(faux)] },
	});
	open.push(h);
	const model = h.runtime.getModel("faux", "faux-1");
	if (!model || !faux.handle) throw new Error("the faux provider did not register");
	await h.session.setModel(model);
	const handle = faux.handle;
	return {
		h,
		/** One prompt: the model calls `calls` (name, arguments, id), then answers "done". */
		async run(calls: { name: string; args: ReplayCard["arguments"]; id: string }[]) {
			const steps: FauxResponseStep[] = [
				fauxAssistantMessage(
					calls.map((c) => fauxToolCall(c.name, c.args, { id: c.id })),
					{ stopReason: "toolUse" },
				),
				fauxAssistantMessage("done"),
			];
			handle.setResponses(steps);
			const from = h.events.length;
			await h.session.prompt("go");
			return h.events
				.slice(from)
				.filter((e): e is Extract<AgentSessionEvent, { type: "tool_execution_end" }> => e.type === "tool_execution_end")
				.map((e) => ({
					id: e.toolCallId,
					name: e.toolName,
					isError: e.isError,
					text: (e.result as { content: { type: string; text?: string }[] }).content.map((c) => c.text ?? "").join(""),
					details: (e.result as { details?: unknown }).details,
				}));
		},
	};
}

const shellCall = (command: string, stdout: string) => ({
	type: "shell",
	args: { command },
	result: { status: "success", value: { exitCode: 0, signal: "", stdout, stderr: "", executionTime: 3 } },
});

test("a recorded Cursor call returns the recorded result and runs nothing", async () => {
	const { h, run } = await session();
	const marker = join(h.dir, "marker.txt");
	const route = h.extension.replay.completed("call-A", shellCall(`echo ran > ${marker}`, "recorded output\n"), {
		cwd: h.dir,
	});
	expect(route.kind).toBe("card");
	expect(route.card.name).toBe("bash");
	const results = await run([{ name: route.card.name, args: route.card.arguments, id: route.card.id }]);
	expect(results).toEqual([
		{
			id: replayToolCallId("call-A"),
			name: "bash",
			isError: false,
			text: "recorded output\n\nExit code 0",
			details: expect.objectContaining({ cursorTool: "shell", callId: "call-A", exitCode: 0 }),
		},
	]);
	expect(existsSync(marker)).toBe(false);
	expect(h.session.getLastAssistantText()).toBe("done");

	// Consumed once: the same id again is a stale replay, which fails closed and still runs nothing.
	const again = await run([{ name: "bash", args: route.card.arguments, id: route.card.id }]);
	expect(again).toEqual([expect.objectContaining({ isError: true, text: NOT_RECORDED_MESSAGE })]);
	expect(existsSync(marker)).toBe(false);
});

test("a bash call from another provider really runs, exactly like Pi's built-in", async () => {
	const { h, run } = await session();
	const out = join(h.dir, "out.txt");
	const commands = [`echo hello > ${out}; echo written`, "echo from-shell; exit 3"];
	const results = await run(commands.map((command, i) => ({ name: "bash", args: { command }, id: `call_faux_${i}` })));
	expect(readFileSync(out, "utf8")).toBe("hello\n");
	// The same commands through Pi's own built-in bash give the same results.
	const builtin = createBashToolDefinition(h.dir);
	const expected = [];
	for (const command of commands) {
		const result = await builtin.execute("direct", { command }, undefined, undefined, undefined as never);
		expected.push({ isError: result.isError === true, text: (result.content[0] as { text: string }).text });
	}
	expect(expected[0]).toEqual({ isError: false, text: "written\n" });
	// Pi runs the two calls in parallel: results are compared by call, whichever finished first.
	const byCall = [...results].sort((a, b) => a.id.localeCompare(b.id));
	expect(byCall.map(({ isError, text }) => ({ isError, text }))).toEqual(expected);
});

test("a replay id with no record (after /new, /resume, a restart) fails closed and runs nothing", async () => {
	const { h, run } = await session();
	const marker = join(h.dir, "stale.txt");
	const results = await run([{ name: "bash", args: { command: `touch ${marker}` }, id: replayToolCallId("old-call") }]);
	expect(results).toEqual([expect.objectContaining({ isError: true, text: NOT_RECORDED_MESSAGE })]);
	expect(existsSync(marker)).toBe(false);
});

test("the neutral cursor tool returns its record once and otherwise fails closed", async () => {
	const { h, run } = await session();
	const route = h.extension.replay.completed(
		"call-M",
		{
			type: "mcp",
			args: { providerIdentifier: "gh", toolName: "search" },
			result: { status: "success", value: { content: [{ text: { text: "3 hits" } }], isError: false } },
		},
		{ cwd: h.dir },
	);
	expect(route.card).toMatchObject({
		name: "cursor",
		arguments: { activityTitle: "Cursor MCP", activitySummary: "gh/search" },
	});
	const results = await run([
		{ name: "cursor", args: route.card.arguments, id: route.card.id },
		{ name: "cursor", args: { activityTitle: "Cursor MCP" }, id: "call_faux_3" },
	]);
	expect(results).toEqual([
		expect.objectContaining({ id: route.card.id, isError: false, text: "3 hits" }),
		expect.objectContaining({ id: "call_faux_3", isError: true, text: NEUTRAL_WITHOUT_RECORD_MESSAGE }),
	]);
});

test("a recorded id called under another tool fails closed and stays for its own tool", async () => {
	const { h, run } = await session();
	const route = h.extension.replay.completed(
		"call-R",
		{
			type: "read",
			args: { path: join(h.dir, "a.txt") },
			result: { status: "success", value: { content: "recorded file", totalLines: 1, fileSize: 13 } },
		},
		{ cwd: h.dir },
	);
	expect(route.card.arguments).toEqual({ path: "a.txt" });
	const marker = join(h.dir, "wrong.txt");
	const wrong = await run([{ name: "bash", args: { command: `touch ${marker}` }, id: route.card.id }]);
	expect(wrong).toEqual([expect.objectContaining({ isError: true, text: expect.stringContaining("`read`") })]);
	expect(existsSync(marker)).toBe(false);
	const right = await run([{ name: "read", args: route.card.arguments, id: route.card.id }]);
	expect(right).toEqual([expect.objectContaining({ isError: false, text: "recorded file" })]);
});

test("a failed Cursor tool replays as an error result", async () => {
	const { h, run } = await session();
	const route = h.extension.replay.completed(
		"call-F",
		{
			type: "shell",
			args: { command: "npm test" },
			result: {
				status: "success",
				value: { exitCode: 1, signal: "", stdout: "", stderr: "1 failing", executionTime: 9 },
			},
		},
		{ cwd: h.dir },
	);
	const results = await run([{ name: "bash", args: route.card.arguments, id: route.card.id }]);
	expect(results).toEqual([expect.objectContaining({ isError: true, text: "[stderr]\n1 failing\n\nExit code 1" })]);
});

test("shadowing keeps Pi's look and tool set: built-in renderers, and grep/find/ls stay off", async () => {
	const { h } = await session();
	expect([...h.extension.replay.ownedNames].sort()).toEqual([
		"bash",
		"cursor",
		"edit",
		"find",
		"grep",
		"ls",
		"read",
		"write",
	]);
	const bash = h.session.getToolDefinition("bash");
	expect(bash?.label).toBe("bash");
	expect(typeof bash?.renderCall).toBe("function");
	expect(typeof bash?.renderResult).toBe("function");
	expect(Object.keys((bash?.parameters as { properties?: object } | undefined)?.properties ?? {})).toEqual([
		"command",
		"timeout",
	]);
	expect(h.session.getActiveToolNames().sort()).toEqual(["bash", "cursor", "edit", "read", "write"]);
});

test("a bash tool another extension registered first is not shadowed; Cursor's shell goes to the transcript", async () => {
	const calls: string[] = [];
	const otherBash: ExtensionFactory = (pi) => {
		pi.registerTool({
			name: "bash",
			label: "their bash",
			description: "Another extension's bash",
			parameters: Type.Object({ command: Type.String() }),
			async execute(_id, params) {
				calls.push(params.command);
				return { content: [{ type: "text", text: `theirs: ${params.command}` }], details: undefined };
			},
		});
	};
	const { h, run } = await session({ extensions: { before: [otherBash] } });
	expect(h.extension.replay.ownedNames.has("bash")).toBe(false);
	expect(h.extension.replay.ownedNames.has("read")).toBe(true);
	expect(h.session.getToolDefinition("bash")?.label).toBe("their bash");
	const route = h.extension.replay.completed("call-S", shellCall("ls", "x"), { cwd: h.dir });
	expect(route.kind).toBe("transcript");
	const results = await run([{ name: "bash", args: { command: "pwd" }, id: "call_faux_4" }]);
	expect(results).toEqual([expect.objectContaining({ isError: false, text: "theirs: pwd" })]);
	expect(calls).toEqual(["pwd"]);
});
