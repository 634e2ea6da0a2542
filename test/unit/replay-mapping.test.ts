// Every SDK 1.0.32 ToolType (plus computerUse and unknown kinds) → the Pi card a user sees: the tool name, arguments
// that Pi's own tool schema accepts, and a bounded, scrubbed, workspace-relative result.
import { describe, expect, test } from "bun:test";
import { validateToolArguments } from "@earendil-works/pi-ai";
import {
	createBashToolDefinition,
	createEditToolDefinition,
	createFindToolDefinition,
	createGrepToolDefinition,
	createLsToolDefinition,
	createReadToolDefinition,
	createWriteToolDefinition,
} from "@earendil-works/pi-coding-agent";
import { Value } from "typebox/value";
import { isReplayToolCallId, replayToolCallId } from "../../src/replay/ids.ts";
import {
	activityOf,
	type MapContext,
	mapCompletedToolCall,
	mapIncompleteToolCall,
	neutralize,
	type ReplayCard,
	toToolCallBlock,
} from "../../src/replay/mapping.ts";
import { lifecycleLine } from "../../src/replay/policy.ts";
import { readEnvVar } from "../../src/settings/env.ts";

const readTaskWording = (env: Record<string, string | undefined>) => readEnvVar(env, "taskPresentation");

const CWD = "/srv/project";
const ctx = { cwd: CWD, secrets: ["key_live_SECRET_1234567890"] };
const ok = (value: unknown) => ({ status: "success", value });
const failed = (message: string) => ({ status: "error", error: { message } });

const PI_TOOLS = {
	read: createReadToolDefinition(CWD),
	bash: createBashToolDefinition(CWD),
	grep: createGrepToolDefinition(CWD),
	find: createFindToolDefinition(CWD),
	ls: createLsToolDefinition(CWD),
	edit: createEditToolDefinition(CWD),
	write: createWriteToolDefinition(CWD),
} as const;

/** The card's arguments pass Pi's own validation for that tool, strictly (no coercion, no unknown keys). */
function expectPiAccepts(card: ReplayCard): void {
	const tool = PI_TOOLS[card.name as keyof typeof PI_TOOLS];
	expect(tool).toBeDefined();
	const schema = tool.parameters as { properties: Record<string, unknown> };
	expect(Value.Check(tool.parameters, card.arguments)).toBe(true);
	for (const key of Object.keys(card.arguments)) expect(Object.keys(schema.properties)).toContain(key);
	const block = toToolCallBlock(card);
	expect(() =>
		validateToolArguments({ name: tool.name, description: "", parameters: tool.parameters } as never, block),
	).not.toThrow();
}

function map(toolCall: unknown, extra: Partial<MapContext> = {}): ReplayCard {
	return mapCompletedToolCall("call-1", toolCall, { ...ctx, ...extra });
}

describe("native cards", () => {
	test("shell → bash: the command, stdout, stderr and the exit code", () => {
		const card = map({
			type: "shell",
			args: { command: "npm test", workingDirectory: CWD, timeout: 30000 },
			result: ok({ exitCode: 0, signal: "", stdout: "all good\n", stderr: "warn: slow\n", executionTime: 12 }),
		});
		expect(card.name).toBe("bash");
		expect(card.arguments).toEqual({ command: "npm test" });
		expectPiAccepts(card);
		expect(card.result.text).toBe("all good\n[stderr]\nwarn: slow\n\nExit code 0");
		expect(card.result.isError).toBe(false);
		expect(card.result.details).toMatchObject({ cursorTool: "shell", callId: "call-1", exitCode: 0 });
		expect(card.id).toBe(replayToolCallId("call-1"));
	});

	test("a failing command is an error card with its exit code", () => {
		const card = map({
			type: "shell",
			args: { command: "false" },
			result: ok({ exitCode: 2, signal: "", stdout: "", stderr: "boom", executionTime: 1 }),
		});
		expect(card.result.isError).toBe(true);
		expect(card.result.text).toContain("Exit code 2");
		expect(card.result.details.exitCode).toBe(2);
	});

	test("an empty successful shell shows the live output it streamed, else (no output)", () => {
		const call = {
			type: "shell",
			args: { command: "echo hi" },
			result: ok({ exitCode: 0, signal: "", stdout: "", stderr: "", executionTime: 1 }),
		};
		expect(map(call, { liveShellOutput: "hi\n" }).result.text).toBe("hi\n\nExit code 0");
		expect(map(call).result.text).toBe("(no output)\n\nExit code 0");
	});

	test("a shell Cursor reports as failed is an error card with the scrubbed message", () => {
		const card = map({
			type: "shell",
			args: { command: "x" },
			result: failed("denied with key_live_SECRET_1234567890"),
		});
		expect(card.name).toBe("bash");
		expect(card.result.isError).toBe(true);
		expect(card.result.text).toBe("denied with [redacted]");
		expect(card.result.details.status).toBe("error");
	});

	test("read: workspace path shown relative, content as the result", () => {
		const card = map({
			type: "read",
			args: { path: `${CWD}/src/a.ts` },
			result: ok({ content: "export const a = 1;\n", totalLines: 1, fileSize: 20 }),
		});
		expect(card.name).toBe("read");
		expect(card.arguments).toEqual({ path: "src/a.ts" });
		expectPiAccepts(card);
		expect(card.result.text).toBe("export const a = 1;\n");
	});

	test("a path outside the workspace stays absolute", () => {
		const card = map({
			type: "read",
			args: { path: "/etc/hosts" },
			result: ok({ content: "x", totalLines: 1, fileSize: 1 }),
		});
		expect(card.arguments).toEqual({ path: "/etc/hosts" });
	});

	test("a huge result is bounded and says so", () => {
		const content = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join("\n");
		const card = map({
			type: "read",
			args: { path: "big.txt" },
			result: ok({ content, totalLines: 5000, fileSize: 1 }),
		});
		expect(card.result.text.split("\n").length).toBeLessThan(2010);
		expect(card.result.text).toContain("[Showing the first 2000 of 5000 lines]");
		expect(card.result.details.truncated).toBe(true);
	});

	test("grep: Pi's grep arguments, matches as file:line: text", () => {
		const card = map({
			type: "grep",
			args: { pattern: "TODO", path: `${CWD}/src`, glob: "*.ts", caseInsensitive: true, context: 1, headLimit: 5 },
			result: ok({
				workspaceResults: {
					[CWD]: {
						type: "content",
						output: {
							matches: [{ file: `${CWD}/src/a.ts`, line: "// TODO fix", lineNumber: 3, beforeContext: ["x"] }],
							totalMatches: 1,
						},
					},
				},
			}),
		});
		expect(card.name).toBe("grep");
		expect(card.arguments).toEqual({
			pattern: "TODO",
			path: "src",
			glob: "*.ts",
			ignoreCase: true,
			context: 1,
			limit: 5,
		});
		expectPiAccepts(card);
		expect(card.result.text).toBe("src/a.ts- x\nsrc/a.ts:3: // TODO fix");
	});

	test("grep files and count modes, and no matches", () => {
		const files = map({
			type: "grep",
			args: { pattern: "a" },
			result: ok({ workspaceResults: { w: { type: "files", output: { files: [`${CWD}/b.ts`], count: 1 } } } }),
		});
		expect(files.result.text).toBe("b.ts");
		const counts = map({
			type: "grep",
			args: { pattern: "a" },
			result: ok({
				workspaceResults: { w: { type: "count", output: { counts: [{ file: "c.ts", count: 4 }], total: 4 } } },
			}),
		});
		expect(counts.result.text).toBe("c.ts: 4");
		expect(map({ type: "grep", args: { pattern: "zz" }, result: ok({}) }).result.text).toBe("No matches found");
	});

	test("glob → find with the glob as the pattern; Cursor's truncation is mentioned", () => {
		const card = map({
			type: "glob",
			args: { globPattern: "**/*.md", targetDirectory: `${CWD}/docs` },
			result: ok({ files: [`${CWD}/docs/a.md`], totalFiles: 40, clientTruncated: true, ripgrepTruncated: false }),
		});
		expect(card.name).toBe("find");
		expect(card.arguments).toEqual({ pattern: "**/*.md", path: "docs" });
		expectPiAccepts(card);
		expect(card.result.text).toBe("docs/a.md\n\n[Cursor truncated the results: 1 of 40 files]");
	});

	test("ls: the directory tree, directories first with a slash", () => {
		const card = map({
			type: "ls",
			args: { path: CWD },
			result: ok({
				directoryTreeRoot: {
					absPath: CWD,
					childrenDirs: [
						{
							absPath: `${CWD}/src`,
							childrenDirs: [],
							childrenFiles: [{ name: "index.ts" }],
							childrenWereProcessed: true,
							fullSubtreeExtensionCounts: {},
							numFiles: 1,
						},
					],
					childrenFiles: [{ name: "README.md" }],
					childrenWereProcessed: true,
					fullSubtreeExtensionCounts: {},
					numFiles: 2,
				},
			}),
		});
		expect(card.name).toBe("ls");
		expect(card.arguments).toEqual({ path: "." });
		expectPiAccepts(card);
		expect(card.result.text).toBe("src/\n  index.ts\nREADME.md");
	});

	test("write → write with path and content", () => {
		const card = map({
			type: "write",
			args: { path: `${CWD}/notes.txt`, fileText: "hello\n" },
			result: ok({ path: `${CWD}/notes.txt`, linesCreated: 1, fileSize: 6 }),
		});
		expect(card.name).toBe("write");
		expect(card.arguments).toEqual({ path: "notes.txt", content: "hello\n" });
		expectPiAccepts(card);
		expect(card.result.text).toBe("Wrote notes.txt (1 lines, 6 bytes)");
	});

	test("edit → edit only with exact replacements Pi's edit accepts; the card carries a Pi-format diff", () => {
		const card = map({
			type: "edit",
			args: { path: `${CWD}/a.ts`, edits: [{ oldText: "a = 1", newText: "a = 2" }] },
			result: ok({ linesAdded: 1, linesRemoved: 1 }),
		});
		expect(card.name).toBe("edit");
		expect(card.arguments).toEqual({ path: "a.ts", edits: [{ oldText: "a = 1", newText: "a = 2" }] });
		expectPiAccepts(card);
		expect(card.result.details.diff).toBe("- a = 1\n+ a = 2");
		const single = map({ type: "edit", args: { path: "a.ts", oldText: "x", newText: "y" }, result: ok({}) });
		expect(single.name).toBe("edit");
		expectPiAccepts(single);
	});
});

describe("neutral cards", () => {
	test("a path-only edit (what SDK 1.0.32 reports) is a neutral 'Cursor edit' card with Cursor's diff", () => {
		const card = map({
			type: "edit",
			args: { path: `${CWD}/src/a.ts` },
			result: ok({
				linesAdded: 2,
				linesRemoved: 1,
				diffString: `--- ${CWD}/src/a.ts\n+++ ${CWD}/src/a.ts\n-x\n+y\n+z`,
			}),
		});
		expect(card.name).toBe("cursor");
		expect(card.arguments).toEqual({ activityTitle: "Cursor edit", activitySummary: "src/a.ts" });
		expect(card.result.text).toBe("Edited src/a.ts (+2 −1)\n\n--- src/a.ts\n+++ src/a.ts\n-x\n+y\n+z");
		expect(card.result.details.diff).toBeUndefined();
	});

	test("an edit with replace-all cannot be a Pi edit", () => {
		const card = map({
			type: "edit",
			args: { path: "a.ts", edits: [{ oldText: "a", newText: "b", replaceAll: true }] },
			result: ok({}),
		});
		expect(card.name).toBe("cursor");
	});

	test.each([
		[
			"delete",
			{ path: `${CWD}/old.txt` },
			ok({ fileSize: 10 }),
			"Cursor delete",
			"old.txt",
			"Deleted old.txt (10 bytes)",
		],
		[
			"readLints",
			{ paths: [`${CWD}/a.ts`] },
			ok({
				fileDiagnostics: [
					{
						path: `${CWD}/a.ts`,
						diagnostics: [
							{
								severity: "error",
								range: { start: { line: 0, character: 4 } },
								message: "bad",
								source: "ts",
								code: "2322",
							},
						],
						diagnosticsCount: 1,
					},
				],
				totalFiles: 1,
				totalDiagnostics: 1,
			}),
			"Cursor diagnostics",
			"a.ts",
			"a.ts: 1 diagnostics\n  error 1:5 bad (ts 2322)\n1 diagnostics in total",
		],
		[
			"updateTodos",
			{
				todos: [
					{ content: "write tests", status: "completed" },
					{ content: "ship", status: "pending" },
				],
			},
			ok({ todos: [], totalCount: 2 }),
			"Cursor todos",
			"2 todos, 1 completed",
			"[x] write tests\n[ ] ship",
		],
		[
			"createPlan",
			{ plan: `\n# Greet users\n1. Add \`${CWD}/src/hello.ts\`\n2. Register it in [commands](src/commands.ts)` },
			ok({}),
			"Cursor plan",
			"Greet users",
			"1. Add `src/hello.ts`\n2. Register it in [commands](src/commands.ts)\n\nFiles: src/hello.ts, src/commands.ts",
		],
		[
			"generateImage",
			{ description: "a cat", filePath: `${CWD}/cat.png` },
			ok({ filePath: `${CWD}/cat.png`, imageData: "iVBORw0KGgoAAAANSUhEUgAAAAE" }),
			"Cursor image",
			"a cat",
			"Generated image cat.png",
		],
		[
			"mcp",
			{ providerIdentifier: "github", toolName: "search", args: { q: "x" } },
			ok({
				content: [{ text: { text: "3 results" } }, { image: { data: "AAAA", mimeType: "image/png" } }],
				isError: false,
			}),
			"Cursor MCP",
			"github/search",
			"3 results\n[image image/png]",
		],
		[
			"semSearch",
			{ query: "where is auth" },
			ok({ results: `${CWD}/src/auth.ts: login()` }),
			"Cursor semantic search",
			"where is auth",
			"src/auth.ts: login()",
		],
		[
			"recordScreen",
			{ mode: "SAVE_RECORDING" },
			ok({ path: `${CWD}/rec.mp4`, recordingDurationMs: 2500 }),
			"Cursor screen recording",
			"save recording",
			"saved rec.mp4, 2.5 s",
		],
		["computerUse", { action: "click" }, ok({ ok: true }), "Cursor computerUse", "click", '{\n  "ok": true\n}'],
		["fancyNewTool", { anything: 1 }, ok({}), "Cursor fancyNewTool", undefined, "Done"],
	])("%s → neutral card", (type, args, result, title, summary, text) => {
		const card = map({ type, args, result });
		expect(card.name).toBe("cursor");
		expect(card.cursorTool).toBe(type);
		expect(card.arguments).toEqual(
			summary ? { activityTitle: title, activitySummary: summary } : { activityTitle: title },
		);
		expect(card.result).toMatchObject({ text, isError: false });
		expect(card.result.details).toMatchObject({ activityTitle: title, status: "success" });
	});

	test("the image bytes never reach the card", () => {
		const card = map({
			type: "generateImage",
			args: { description: "a cat" },
			result: ok({ filePath: "cat.png", imageData: "SECRETIMAGEBYTES" }),
		});
		expect(JSON.stringify(card)).not.toContain("SECRETIMAGEBYTES");
	});

	test("task is a 'Cursor subagent' card with description, kind, model and a short id", () => {
		const card = map({
			type: "task",
			args: { description: "Audit deps", prompt: "…", subagentType: { kind: "explore" }, model: "composer-2" },
			result: ok({
				agentId: "agent-1234abcd-5678-90ef",
				isBackground: false,
				backgroundReason: "unspecified",
				durationMs: 4200,
				conversationSteps: [
					{ type: "toolCall", message: { type: "read", args: { path: `${CWD}/package.json` } } },
					{ type: "assistantMessage", message: { text: "All deps are current." } },
				],
			}),
		});
		expect(card.name).toBe("cursor");
		expect(card.arguments).toEqual({
			activityTitle: "Cursor subagent",
			activitySummary: "Audit deps · explore · composer-2",
		});
		expect(card.result.text).toBe(
			"Audit deps · explore · composer-2 · 1234abcd · took 4.2 s\n\n• Cursor read: package.json\n\nAll deps are current.",
		);
	});

	test("PI_CURSOR_TASK_PRESENTATION=task: the same call keeps the older 'Cursor task' wording everywhere", () => {
		const call = {
			type: "task",
			args: { description: "Audit deps", prompt: "…" },
			result: ok({
				conversationSteps: [{ type: "toolCall", message: { type: "task", args: { description: "inner" } } }],
			}),
		};
		const card = map(call, { taskWording: "task" });
		expect(card.arguments).toEqual({ activityTitle: "Cursor task", activitySummary: "Audit deps" });
		expect(card.result.text).toBe("Audit deps\n\n• Cursor task: inner");
		expect(lifecycleLine(call, { ...ctx, taskWording: "task" })).toBe("Cursor task: Audit deps");
		expect(map({ type: "task", args: {}, result: ok({}) }, { taskWording: "task" }).result.text).toBe(
			"Cursor task finished",
		);
		expect(lifecycleLine(call, ctx)).toBe("Cursor subagent: Audit deps");
		expect(readTaskWording({ PI_CURSOR_TASK_PRESENTATION: " Task " })).toBe("task");
		for (const value of [undefined, "", "subagent", "tasks"]) {
			expect(readTaskWording({ PI_CURSOR_TASK_PRESENTATION: value })).toBe("subagent");
		}
	});

	test("an MCP result flagged isError is an error card; a generateImage error uses its own shape", () => {
		expect(
			map({
				type: "mcp",
				args: { toolName: "t" },
				result: ok({ content: [{ text: { text: "nope" } }], isError: true }),
			}).result.isError,
		).toBe(true);
		const image = map({
			type: "generateImage",
			args: { description: "x" },
			result: { status: "error", error: { error: "quota" } },
		});
		expect(image.result).toMatchObject({ text: "quota", isError: true });
	});

	test("a raw future tool call without a type is a neutral 'Cursor unknown' card", () => {
		const card = map({ someProtoCase: { value: 1 } });
		expect(card).toMatchObject({
			name: "cursor",
			cursorTool: "unknown",
			arguments: { activityTitle: "Cursor unknown" },
		});
		expect(card.result.text).toBe("Cursor reported no result for this tool call.");
		expect(card.result.details.status).toBe("no-result");
	});

	test("a native kind whose arguments do not fit Pi's schema becomes neutral", () => {
		expect(map({ type: "read", args: {}, result: ok({ content: "", totalLines: 0, fileSize: 0 }) }).name).toBe(
			"cursor",
		);
		expect(map({ type: "shell", args: { cmd: "x" }, result: ok({}) }).name).toBe("cursor");
	});
});

describe("scrubbing", () => {
	test("secrets, bearer tokens and terminal escapes never reach a card; code identifiers survive", () => {
		const card = map({
			type: "shell",
			args: { command: "curl -H 'Authorization: Bearer abcdefghijklmnop1234' https://x" },
			result: ok({
				exitCode: 0,
				signal: "",
				stdout: "\u001b[31mred\u001b[0m key_live_SECRET_1234567890 user_settings token: string\n",
				stderr: "",
				executionTime: 1,
			}),
		});
		const all = JSON.stringify(card);
		expect(all).not.toContain("SECRET_1234567890");
		expect(all).not.toContain("abcdefghijklmnop1234");
		expect(all).not.toContain("\u001b");
		expect(card.result.text).toContain("red [redacted] user_settings token: string");
	});
});

describe("incomplete calls and neutral fallback", () => {
	test("a started-only call is a neutral error card saying why", () => {
		const card = mapIncompleteToolCall("c9", { type: "shell", args: { command: "sleep 100" } }, ctx, "aborted");
		expect(card).toMatchObject({
			name: "cursor",
			arguments: { activityTitle: "Cursor shell", activitySummary: "sleep 100" },
			result: { isError: true, details: { status: "incomplete" } },
		});
		expect(card.result.text).toContain("aborted");
	});

	test("neutralize keeps the result and identity, drops the edit diff", () => {
		const card = map({ type: "edit", args: { path: "a.ts", oldText: "x", newText: "y" }, result: ok({}) });
		const neutral = neutralize(card);
		expect(neutral).toMatchObject({
			id: card.id,
			name: "cursor",
			arguments: { activityTitle: "Cursor edit", activitySummary: "a.ts" },
		});
		expect(neutral.result.text).toBe(card.result.text);
		expect(neutral.result.details.diff).toBeUndefined();
	});

	test("activityOf summarises from the arguments alone", () => {
		expect(activityOf({ type: "mcp", args: { toolName: "search" } }, ctx)).toEqual({
			title: "Cursor MCP",
			summary: "search",
		});
	});
});

describe("replay tool-call ids", () => {
	test("stable, recognisable, provider-safe and collision-free", () => {
		expect(replayToolCallId("toolu_01ABC")).toBe("cursor-replay-toolu_01ABC");
		expect(replayToolCallId("toolu_01ABC")).toBe(replayToolCallId("toolu_01ABC"));
		const odd = [replayToolCallId("a/b"), replayToolCallId("a:b"), replayToolCallId("x".repeat(200))];
		for (const id of odd) {
			expect(id).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
			expect(isReplayToolCallId(id)).toBe(true);
		}
		expect(new Set(odd).size).toBe(3);
		expect(replayToolCallId("")).toMatch(/^cursor-replay-/);
		expect(isReplayToolCallId("call_123")).toBe(false);
	});
});
