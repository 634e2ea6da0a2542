// Which Cursor tool activity the user sees, and how: card routing, incomplete calls, lifecycle lines. Pure rules.
import {
	activityOf,
	cursorToolType,
	type IncompleteReason,
	type MapContext,
	NEUTRAL_TOOL,
	neutralize,
	type ReplayCard,
	type ReplayToolName,
} from "./mapping.ts";
import { oneLine } from "./text.ts";

/** A card to show, or the transcript fallback (its `card` then only feeds the one-line trace). */
export interface CardRoute {
	kind: "card" | "transcript";
	card: ReplayCard;
}

/**
 * Where a card goes. `owned`: the replay tools this extension registered. `declared`: the tool names of the current
 * provider request (`context.tools`); Pi only runs declared tools, so an owned but inactive name (e.g. `grep`, off by
 * default) is shown as the neutral card instead. A native name we do not own (another extension's, or
 * `PI_CURSOR_REGISTER_NATIVE_TOOLS=0`) goes to the transcript, like everything when the neutral tool is unavailable.
 */
export function routeCard(
	card: ReplayCard,
	owned: ReadonlySet<ReplayToolName>,
	declared: ReadonlySet<string> | undefined,
): CardRoute {
	const usable = (name: ReplayToolName) => owned.has(name) && (declared === undefined || declared.has(name));
	if (usable(card.name)) return { kind: "card", card };
	if (card.name !== NEUTRAL_TOOL && !owned.has(card.name)) return { kind: "transcript", card };
	return usable(NEUTRAL_TOOL) ? { kind: "card", card: neutralize(card) } : { kind: "transcript", card };
}

/** Fast local discovery: a stale start of one of these after a good answer is noise, not news. */
const FAST_LOCAL = new Set(["read", "grep", "glob", "ls"]);

export interface RunOutcome {
	/** How the run ended. */
	status: "finished" | "error" | "cancelled";
	/** Whether the run produced assistant text. */
	producedText: boolean;
}

/**
 * Whether a call Cursor started and never completed is shown (as a neutral card or trace): always when the run
 * failed or was aborted, or produced no text; otherwise only for external or side-effectful tools.
 */
export function showIncompleteTool(toolCall: unknown, outcome: RunOutcome): boolean {
	if (outcome.status !== "finished" || !outcome.producedText) return true;
	return !FAST_LOCAL.has(cursorToolType(toolCall));
}

/** The wording of an incomplete card for a run outcome. */
export function incompleteReason(outcome: RunOutcome): IncompleteReason {
	if (outcome.status === "cancelled") return "aborted";
	return outcome.status === "error" ? "failed" : "ended";
}

/** Tools that can take a while or reach outside the workspace: worth one "in progress" line while they run. */
const LONG_RUNNING = new Set([
	"task",
	"shell",
	"mcp",
	"generateImage",
	"recordScreen",
	"semSearch",
	"webSearch",
	"webFetch",
	"createPlan",
	"updateTodos",
]);

/**
 * The low-noise thinking line for a started call (`Cursor MCP: github/search`), or undefined for fast local tools
 * that complete immediately. Bounded and scrubbed: built from the same summary as the card.
 */
export function lifecycleLine(toolCall: unknown, ctx: MapContext): string | undefined {
	if (!LONG_RUNNING.has(cursorToolType(toolCall))) return undefined;
	const activity = activityOf(toolCall, ctx);
	return oneLine(activity.summary ? `${activity.title}: ${activity.summary}` : activity.title);
}
