// Which cloud runs a session still owes an outcome for, and the card that brings one into the session. Pure: the
// journal's records and the session branch in, decisions and text out.
import type { CloudRecord } from "../cloud/records.ts";

/** The custom message that carries a cloud run's outcome into the session (its `details` name the run). */
export const CLOUD_OUTCOME_MESSAGE = "pi-cursor-sdk:cloud-outcome";

/** A run the journal recorded without a result: its send never reported how it ended (a crash, a quit). */
export interface OpenRun {
	agentId: string;
	runId: string;
	/** When its `run` record was written. */
	at: number;
}

/** A run's end as Cursor reports it. */
export interface RunEnd {
	status: "finished" | "error" | "cancelled";
	/** The final answer. */
	result?: string;
	error?: string;
	branches?: { repoUrl?: string; branch?: string; prUrl?: string }[];
	durationMs?: number;
	usage?: { inputTokens?: number; outputTokens?: number };
}

/** What the outcome message stores (the run it is for, so it is never added twice). */
export interface OutcomeDetails {
	agentId: string;
	runId: string;
	status: RunEnd["status"];
	branches?: RunEnd["branches"];
	durationMs?: number;
	task?: string;
}

/** Runs with a `run` record and no `result` record for the same run id, oldest first. */
export function openRuns(records: readonly CloudRecord[]): OpenRun[] {
	const open = new Map<string, OpenRun>();
	const agents = new Set<string>();
	for (const record of records) {
		if (record.type === "agent") agents.add(record.agentId);
		else if (record.type === "run" && agents.has(record.agentId)) {
			if (!open.has(record.runId)) open.set(record.runId, { ...record, at: record.at });
		} else if (record.type === "result" && record.runId !== null) open.delete(record.runId);
	}
	return [...open.values()].map(({ agentId, runId, at }) => ({ agentId, runId, at }));
}

const STATUSES: ReadonlySet<unknown> = new Set(["finished", "error", "cancelled"]);

/** The runs whose outcome the session branch already holds, with the status it showed. */
export function deliveredRuns(branch: readonly unknown[]): Map<string, RunEnd["status"]> {
	const ids = new Map<string, RunEnd["status"]>();
	for (const entry of branch) {
		const e = entry as {
			type?: unknown;
			customType?: unknown;
			details?: { runId?: unknown; status?: unknown };
		} | null;
		if (e?.type !== "custom_message" || e.customType !== CLOUD_OUTCOME_MESSAGE) continue;
		const { runId, status } = e.details ?? {};
		if (typeof runId === "string") ids.set(runId, STATUSES.has(status) ? (status as RunEnd["status"]) : "finished");
	}
	return ids;
}

const clean = (text: string, max = 300) => text.replace(/\p{Cc}/gu, "").slice(0, max);

export function durationText(ms: number): string {
	const seconds = Math.round(ms / 1000);
	if (seconds < 60) return `${seconds} s`;
	const minutes = Math.floor(seconds / 60);
	if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
	return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

const STATUS_WORD: Record<RunEnd["status"], string> = {
	finished: "finished",
	error: "failed",
	cancelled: "was cancelled",
};

/**
 * The outcome card: a header line (agent, status, duration, usage), the branch / pull request lines and the final
 * answer (or the error). Control characters out of everything Cursor reported, except the answer's line breaks.
 */
export function outcomeText(agentId: string, end: RunEnd, task?: string): string {
	const facts = [
		...(end.durationMs !== undefined ? [durationText(end.durationMs)] : []),
		...(end.usage?.inputTokens !== undefined || end.usage?.outputTokens !== undefined
			? [`${end.usage?.inputTokens ?? 0} in / ${end.usage?.outputTokens ?? 0} out tokens`]
			: []),
	];
	const lines = [
		`Cursor Cloud agent ${agentId} ${STATUS_WORD[end.status]}${facts.length ? ` (${facts.join(", ")})` : ""}.`,
	];
	if (task) lines.push(`Task: ${clean(task, 200)}`);
	for (const ref of end.branches ?? []) {
		if (ref.branch) lines.push(`Branch: ${clean(ref.branch)}`);
		if (ref.prUrl) lines.push(`Pull request: ${clean(ref.prUrl)}`);
	}
	if (end.status === "error" && end.error) lines.push(`Error: ${clean(end.error, 2000)}`);
	const answer = end.result?.replace(/[^\P{Cc}\n\t]/gu, "").trim();
	if (answer) lines.push("", answer.slice(0, 100_000));
	return lines.join("\n");
}
