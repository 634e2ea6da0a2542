// Where a Cursor plan is found: in a plan-mode run's messages (Cursor's plan card, else its final answer) and, after
// a restart, in the session's plan entries. Pure.
import { PROVIDER_ID } from "../catalog/state.ts";
import { boundHead, relativizeIn } from "../replay/text.ts";

/** Session entry recording the last plan (`{ text }`), so `/cursor-plan build` also works after a restart. */
export const PLAN_ENTRY_TYPE = "pi-cursor-sdk:plan";

export interface PlanEntryData {
	readonly text: string;
}

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);

function answerText(message: Obj): string {
	const content = Array.isArray(message.content) ? message.content : [];
	return content
		.filter((block): block is { type: "text"; text: string } => isObj(block) && block.type === "text")
		.map((block) => String(block.text))
		.join("")
		.trim();
}

/**
 * The plan of a run that ended with a Cursor answer: the markdown of its last plan card (Cursor's `createPlan` call,
 * recorded in the replay result's details), else the answer itself. Undefined when the run failed, was aborted, or
 * was not a Cursor run.
 */
export function planOfRun(messages: readonly unknown[], cwd: string): string | undefined {
	const last = messages.filter(isObj).findLast((m) => m.role === "assistant");
	if (!last || last.provider !== PROVIDER_ID || last.stopReason !== "stop") return undefined;
	const card = messages
		.filter(isObj)
		.findLast(
			(m) =>
				m.role === "toolResult" &&
				m.isError !== true &&
				isObj(m.details) &&
				m.details.cursorTool === "createPlan" &&
				typeof m.details.plan === "string",
		);
	const text = isObj(card?.details) ? String(card.details.plan) : boundHead(relativizeIn(answerText(last), cwd)).text;
	return text.trim() === "" ? undefined : text;
}

/** The text of the last plan entry on a branch (root → leaf). */
export function lastPlanEntry(branchEntries: readonly unknown[]): string | undefined {
	const entry = branchEntries
		.filter(isObj)
		.findLast(
			(e) =>
				e.type === "custom" && e.customType === PLAN_ENTRY_TYPE && isObj(e.data) && typeof e.data.text === "string",
		);
	return isObj(entry?.data) ? String(entry.data.text) : undefined;
}
