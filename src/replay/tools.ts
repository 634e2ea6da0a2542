// Pi tools that replay Cursor's recorded tool results. Where a replay name is one of Pi's built-ins (`read`, `bash`,
// …) the tool is Pi's own definition (same schema, renderers, behaviour) whose `execute` first checks for a recorded
// Cursor result: any other call runs the built-in, so other providers keep working. The neutral `cursor` tool only
// ever returns recorded results.
import {
	createBashToolDefinition,
	createEditToolDefinition,
	createFindToolDefinition,
	createGrepToolDefinition,
	createLsToolDefinition,
	createReadToolDefinition,
	createWriteToolDefinition,
	type ExtensionAPI,
	type ToolDefinition,
} from "@earendil-works/pi-coding-agent";
import { Text } from "@earendil-works/pi-tui";
import { Type } from "typebox";
import { type EnvRecord, readEnvVar } from "../settings/env.ts";
import { isReplayToolCallId } from "./ids.ts";
import {
	NATIVE_TOOL_NAMES,
	type NativeToolName,
	NEUTRAL_TOOL,
	type ReplayCard,
	type ReplayToolName,
} from "./mapping.ts";
import type { RunningCard } from "./running.ts";
import type { ReplayStore } from "./store.ts";

// biome-ignore lint/suspicious/noExplicitAny: Pi's built-in definitions each have their own parameter and detail types
type AnyToolDefinition = ToolDefinition<any, any, any>;

/** The Pi settings its built-in tools are created with (Pi ≥ 1.x exposes them; 0.87.1 gets Pi's defaults). */
export interface BuiltinSettings {
	shellPath?: string;
	shellCommandPrefix?: string;
	autoResizeImages?: boolean;
}

const BUILTINS: Record<NativeToolName, (cwd: string, settings: BuiltinSettings) => AnyToolDefinition> = {
	read: (cwd, s) =>
		createReadToolDefinition(cwd, s.autoResizeImages === undefined ? {} : { autoResizeImages: s.autoResizeImages }),
	bash: (cwd, s) =>
		createBashToolDefinition(cwd, {
			...(s.shellCommandPrefix ? { commandPrefix: s.shellCommandPrefix } : {}),
			...(s.shellPath ? { shellPath: s.shellPath } : {}),
		}),
	grep: (cwd) => createGrepToolDefinition(cwd),
	find: (cwd) => createFindToolDefinition(cwd),
	ls: (cwd) => createLsToolDefinition(cwd),
	edit: (cwd) => createEditToolDefinition(cwd),
	write: (cwd) => createWriteToolDefinition(cwd),
};

/** Pi's `shellPath` normalisation (`~`, `~/…`, `file://`), as its settings manager applies it. */
function normalizeShellPath(path: string, home: string | undefined): string {
	if (home && path === "~") return home;
	if (home && path.startsWith("~/")) return `${home}/${path.slice(2)}`;
	if (path.startsWith("file://")) return decodeURIComponent(new URL(path).pathname);
	return path;
}

/** The built-in tool settings from `pi.getSettings()` where this Pi has it. */
export function builtinSettings(pi: ExtensionAPI, env: EnvRecord): BuiltinSettings {
	const getSettings = (pi as { getSettings?: () => unknown }).getSettings;
	if (typeof getSettings !== "function") return {};
	let settings: { shellPath?: unknown; shellCommandPrefix?: unknown; images?: { autoResize?: unknown } } | undefined;
	try {
		settings = getSettings.call(pi) as typeof settings;
	} catch {
		return {};
	}
	const out: BuiltinSettings = {};
	if (typeof settings?.shellPath === "string" && settings.shellPath !== "") {
		out.shellPath = normalizeShellPath(settings.shellPath, env.HOME);
	}
	if (typeof settings?.shellCommandPrefix === "string") out.shellCommandPrefix = settings.shellCommandPrefix;
	if (typeof settings?.images?.autoResize === "boolean") out.autoResizeImages = settings.images.autoResize;
	return out;
}

export const NOT_RECORDED_MESSAGE =
	"This is a replay of a tool call Cursor already ran, and its recorded result is no longer available (after /new, /resume or a restart). Nothing was run.";
export const NEUTRAL_WITHOUT_RECORD_MESSAGE =
	"The `cursor` tool only shows work Cursor's own agent already did, from results recorded in this Pi process. There is no recorded result for this call, so nothing was run.";

function wrongToolMessage(recordedName: string, name: string): string {
	return `This tool-call id belongs to a replayed Cursor \`${recordedName}\` call, not \`${name}\`. Nothing was run.`;
}

/** A recorded card as Pi's tool result. Errors are thrown: the one error signal both Pi 0.87.1 and 1.x honour. */
function replayResult(card: ReplayCard) {
	if (card.result.isError) throw new Error(card.result.text);
	return { content: [{ type: "text" as const, text: card.result.text }], details: card.result.details };
}

/**
 * A card shown while its Cursor call still runs: its live output as partial results, then Cursor's result. Pi's abort
 * ends the wait (the run itself is given up by the turn).
 */
async function replayRunning(
	running: RunningCard,
	signal: AbortSignal | undefined,
	onUpdate: ((partial: { content: { type: "text"; text: string }[]; details: undefined }) => void) | undefined,
) {
	const unwatch = running.watch((output) =>
		onUpdate?.({ content: [{ type: "text", text: output }], details: undefined }),
	);
	try {
		const card = await new Promise<ReplayCard>((resolve, reject) => {
			const onAbort = () => reject(new Error("Aborted while Cursor's command was running."));
			if (signal?.aborted) onAbort();
			signal?.addEventListener("abort", onAbort, { once: true });
			void running.done.then((done) => {
				signal?.removeEventListener("abort", onAbort);
				resolve(done);
			});
		});
		return replayResult(card);
	} finally {
		unwatch();
	}
}

/** A replay's render context marked "arguments incomplete", which is what stops Pi's edit card previewing. */
export function withoutLivePreview<T extends { toolCallId?: string; argsComplete: boolean }>(context: T): T {
	return context.toolCallId !== undefined && isReplayToolCallId(context.toolCallId)
		? { ...context, argsComplete: false }
		: context;
}

/** Decides whether a name can be ours: built-in or already ours → yes; absent or another extension's → no. */
export function canOwn(
	name: ReplayToolName,
	tools: readonly { name: string; sourceInfo?: { source?: string } }[],
	alreadyOwned: boolean,
): boolean {
	if (alreadyOwned) return true;
	const existing = tools.find((tool) => tool.name === name);
	if (name === NEUTRAL_TOOL) return existing === undefined;
	return existing?.sourceInfo?.source === "builtin";
}

export interface ReplayToolsOptions {
	store: ReplayStore;
	env: EnvRecord;
}

/** Registers the replay tools of one extension instance and knows which names it owns. */
export class ReplayTools {
	private readonly owned = new Set<ReplayToolName>();

	constructor(
		private readonly pi: ExtensionAPI,
		private readonly options: ReplayToolsOptions,
	) {}

	/** Whether Cursor tool activity is replayed at all (`PI_CURSOR_NATIVE_TOOL_DISPLAY`, default on). */
	get displayEnabled(): boolean {
		return readEnvVar(this.options.env, "nativeToolDisplay");
	}

	/** The replay tool names this instance registered (owned for the process lifetime of the extension). */
	get ownedNames(): ReadonlySet<ReplayToolName> {
		return this.owned;
	}

	/**
	 * Registers (or refreshes, for a new cwd or settings) the replay tools. Call at `session_start`, when every
	 * extension has registered its tools: a name another extension owns is left alone.
	 */
	register(cwd: string): void {
		if (!this.displayEnabled) return;
		const tools = this.pi.getAllTools();
		if (readEnvVar(this.options.env, "registerNativeTools")) {
			const settings = builtinSettings(this.pi, this.options.env);
			for (const name of NATIVE_TOOL_NAMES) {
				if (!canOwn(name, tools, this.owned.has(name))) continue;
				this.pi.registerTool(this.shadowTool(name, cwd, settings));
				this.owned.add(name);
			}
		}
		if (canOwn(NEUTRAL_TOOL, tools, this.owned.has(NEUTRAL_TOOL))) {
			this.pi.registerTool(this.neutralTool());
			this.owned.add(NEUTRAL_TOOL);
		}
	}

	private shadowTool(name: NativeToolName, cwd: string, settings: BuiltinSettings): AnyToolDefinition {
		const builtin = BUILTINS[name](cwd, settings);
		const store = this.options.store;
		const tool: AnyToolDefinition = {
			...builtin,
			async execute(toolCallId, params, signal, onUpdate, ctx) {
				const lookup = store.take(toolCallId, name);
				if (lookup.kind === "recorded") return replayResult(lookup.card);
				if (lookup.kind === "running") return replayRunning(lookup.running, signal, onUpdate);
				if (lookup.kind === "wrong-tool") throw new Error(wrongToolMessage(lookup.recordedName, name));
				if (isReplayToolCallId(toolCallId)) throw new Error(NOT_RECORDED_MESSAGE);
				return builtin.execute(toolCallId, params, signal, onUpdate, ctx);
			},
		};
		const renderCall = builtin.renderCall;
		if (name === "edit" && renderCall) {
			// Pi's edit card previews a diff by applying the edits to the file on disk; for a replay the file already
			// holds the result, so the preview would fail. The recorded `details.diff` is shown instead.
			tool.renderCall = (args, theme, context) => renderCall(args, theme, withoutLivePreview(context));
		}
		return tool;
	}

	private neutralTool(): AnyToolDefinition {
		const store = this.options.store;
		return {
			name: NEUTRAL_TOOL,
			label: "Cursor",
			description:
				"Shows a tool call that Cursor's own agent already made, with its recorded result. Display only: calling it runs nothing.",
			parameters: Type.Object({
				activityTitle: Type.String({ description: "What Cursor did, e.g. 'Cursor MCP'" }),
				activitySummary: Type.Optional(Type.String({ description: "One-line detail, e.g. the MCP tool name" })),
			}),
			async execute(toolCallId) {
				const lookup = store.take(toolCallId, NEUTRAL_TOOL);
				if (lookup.kind === "recorded") return replayResult(lookup.card);
				if (lookup.kind === "wrong-tool") throw new Error(wrongToolMessage(lookup.recordedName, NEUTRAL_TOOL));
				throw new Error(NEUTRAL_WITHOUT_RECORD_MESSAGE);
			},
			renderCall(args, theme) {
				const { activityTitle, activitySummary } = (args ?? {}) as {
					activityTitle?: unknown;
					activitySummary?: unknown;
				};
				const title = typeof activityTitle === "string" ? activityTitle : "Cursor";
				const summary = typeof activitySummary === "string" ? activitySummary : "";
				return new Text(
					`${theme.fg("toolTitle", theme.bold(title))}${summary ? ` ${theme.fg("muted", summary)}` : ""}`,
					0,
					0,
				);
			},
		};
	}
}
