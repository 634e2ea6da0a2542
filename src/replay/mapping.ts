// Completed Cursor SDK tool calls → Pi tool cards (name, arguments satisfying that Pi tool's schema, recorded result).
// Pure and table-driven (the table is rules.ts); anything without a native Pi form becomes the neutral `cursor` card.
import type { ToolCall as PiToolCall } from "@earendil-works/pi-ai";
import { replayToolCallId } from "./ids.ts";
import { asObj, clean, type Env, headText, labelOf, type Success, str } from "./render.ts";
import { cursorToolType, ruleFor } from "./rules.ts";
import { relativizeIn } from "./text.ts";
import { NEUTRAL_TOOL, type ReplayToolName } from "./types.ts";

export { cursorToolType } from "./rules.ts";

export { NATIVE_TOOL_NAMES, type NativeToolName, NEUTRAL_TOOL, type ReplayToolName } from "./types.ts";

export type ReplayStatus = "success" | "error" | "no-result" | "incomplete";

/** `details` of a replayed result. Field names avoid the ones Pi's renderers read (`truncation`, …) except `diff`. */
export interface ReplayDetails {
	/** The SDK tool type (`shell`, `glob`, …; `unknown` when Cursor sent none). */
	cursorTool: string;
	/** Cursor's own call id. */
	callId: string;
	status: ReplayStatus;
	activityTitle: string;
	activitySummary?: string;
	exitCode?: number;
	/** The result text was cut to the replay bounds. */
	truncated?: boolean;
	/** Edit cards only: a diff in Pi's display format, which Pi's edit renderer shows. */
	diff?: string;
	/** Plan cards (`createPlan`) only: the plan's markdown (scrubbed, bounded), which `/cursor-plan` reads back. */
	plan?: string;
}

export interface ReplayResult {
	text: string;
	isError: boolean;
	details: ReplayDetails;
}

/** Who the activity was, in words: `Cursor shell` / `npm test`. Used by neutral cards, traces and lifecycle lines. */
export interface ActivityIdentity {
	title: string;
	summary?: string;
}

export interface ReplayCard {
	/** The Pi tool-call id ({@link replayToolCallId}). */
	id: string;
	callId: string;
	cursorTool: string;
	name: ReplayToolName;
	/** Satisfies the Pi tool's schema; built from strings, numbers, booleans and arrays of them (JSON). */
	arguments: PiToolCall["arguments"];
	result: ReplayResult;
	activity: ActivityIdentity;
}

export interface MapContext {
	/** The workspace: paths inside it are shown relative. */
	cwd: string;
	/** Values never to show (the API key). */
	secrets?: readonly (string | undefined)[];
	/** Shell only: live `shell-output-delta` text, shown when the completed call reports no output. */
	liveShellOutput?: string;
	/** How Cursor's `task` calls are titled (`PI_CURSOR_TASK_PRESENTATION`; default "subagent"). */
	taskWording?: "subagent" | "task";
}

/** The title/summary of a call from its arguments alone (lifecycle lines, incomplete calls). */
export function activityOf(toolCall: unknown, ctx: MapContext): ActivityIdentity {
	const env: Env = {
		cwd: ctx.cwd,
		secrets: ctx.secrets ?? [],
		...(ctx.taskWording ? { taskWording: ctx.taskWording } : {}),
	};
	const kind = cursorToolType(toolCall);
	const rule = ruleFor(kind);
	const summary = rule.summary(asObj(asObj(toolCall)?.args) ?? {}, env);
	return { title: `Cursor ${labelOf(kind, rule, env)}`, ...(summary ? { summary } : {}) };
}

function errorMessage(error: unknown): string {
	if (typeof error === "string") return error;
	const e = asObj(error);
	const message = str(e, "message") ?? str(e, "error") ?? str(asObj(e?.error), "message");
	return message ?? "Cursor reported an error without a message";
}

function neutralArguments(activity: ActivityIdentity): PiToolCall["arguments"] {
	return { activityTitle: activity.title, ...(activity.summary ? { activitySummary: activity.summary } : {}) };
}

/** Maps a completed SDK tool call to the Pi card that replays it. */
export function mapCompletedToolCall(callId: string, toolCall: unknown, ctx: MapContext): ReplayCard {
	const env: Env = {
		cwd: ctx.cwd,
		secrets: ctx.secrets ?? [],
		...(ctx.liveShellOutput ? { liveShellOutput: ctx.liveShellOutput } : {}),
		...(ctx.taskWording ? { taskWording: ctx.taskWording } : {}),
	};
	const call = asObj(toolCall);
	const kind = cursorToolType(toolCall);
	const rule = ruleFor(kind);
	const args = asObj(call?.args) ?? {};
	const activity = activityOf(toolCall, ctx);
	const native = rule.native?.(args, env);
	const result = asObj(call?.result);
	let status: ReplayStatus;
	let success: Success;
	if (result?.status === "success") {
		status = "success";
		success = rule.success(asObj(result.value) ?? {}, args, env);
	} else if (result?.status === "error") {
		status = "error";
		success = { ...headText(clean(env, relativizeIn(errorMessage(result.error), env.cwd)), "Failed"), isError: true };
	} else {
		status = "no-result";
		success = { text: "Cursor reported no result for this tool call." };
	}
	const details: ReplayDetails = {
		cursorTool: kind,
		callId,
		status,
		activityTitle: activity.title,
		...(activity.summary ? { activitySummary: activity.summary } : {}),
		...(success.exitCode !== undefined ? { exitCode: success.exitCode } : {}),
		...(success.truncated ? { truncated: true } : {}),
		...(native?.name === "edit" && success.diff ? { diff: success.diff } : {}),
		...(success.plan !== undefined ? { plan: success.plan } : {}),
	};
	return {
		id: replayToolCallId(callId),
		callId,
		cursorTool: kind,
		name: native?.name ?? NEUTRAL_TOOL,
		arguments: native ? (native.arguments as PiToolCall["arguments"]) : neutralArguments(activity),
		result: { text: success.text, isError: success.isError === true || status === "error", details },
		activity,
	};
}

/** Why a started call never completed, for {@link mapIncompleteToolCall}. */
export type IncompleteReason = "aborted" | "failed" | "ended";

const INCOMPLETE_TEXT: Record<IncompleteReason, string> = {
	aborted: "Cursor started this tool but the run was aborted before it reported a result.",
	failed: "Cursor started this tool but the run failed before it reported a result.",
	ended: "Cursor started this tool but never reported a result.",
};

/** A neutral card for a call Cursor started and never completed. */
export function mapIncompleteToolCall(
	callId: string,
	toolCall: unknown,
	ctx: MapContext,
	reason: IncompleteReason,
): ReplayCard {
	const activity = activityOf(toolCall, ctx);
	const kind = cursorToolType(toolCall);
	return {
		id: replayToolCallId(callId),
		callId,
		cursorTool: kind,
		name: NEUTRAL_TOOL,
		arguments: neutralArguments(activity),
		result: {
			text: INCOMPLETE_TEXT[reason],
			isError: true,
			details: {
				cursorTool: kind,
				callId,
				status: "incomplete",
				activityTitle: activity.title,
				...(activity.summary ? { activitySummary: activity.summary } : {}),
			},
		},
		activity,
	};
}

/** The same card under the neutral `cursor` tool (when its native name is not ours or not active). */
export function neutralize(card: ReplayCard): ReplayCard {
	if (card.name === NEUTRAL_TOOL) return card;
	const { diff: _diff, ...details } = card.result.details;
	return {
		...card,
		name: NEUTRAL_TOOL,
		arguments: neutralArguments(card.activity),
		result: { ...card.result, details },
	};
}

/** The `toolCall` block of the assistant message that carries this card. */
export function toToolCallBlock(card: ReplayCard): PiToolCall {
	return { type: "toolCall", id: card.id, name: card.name, arguments: card.arguments };
}
