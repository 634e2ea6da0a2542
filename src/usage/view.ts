// /cursor-usage: pure summaries of journal records and their text rendering.
import type { UsageEstimateReason } from "./estimate.ts";
import type { InheritedHistory } from "./inherited.ts";
import type { BilledRecord, JournalRecord, SendRecord } from "./records.ts";

export interface RawTotals {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	reasoning: number;
}

export interface MappedTotals {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	total: number;
	cost: number;
}

export interface Totals {
	sends: number;
	finished: number;
	errors: number;
	aborted: number;
	/** Sends that ended without Cursor reporting usage (failed early, aborted, …). */
	withoutUsage: number;
	raw: RawTotals;
	mapped: MappedTotals;
}

export interface AgentSummary {
	agentId: string;
	models: string[];
	totals: Totals;
	/** The latest `getUsage()` snapshot of this agent, if any was taken. */
	billed: BilledRecord | undefined;
}

export interface ModelSummary {
	model: string;
	totals: Totals;
}

export interface UsageSource {
	sessionId: string;
	/** Where the journal lives (undefined: a session without a file, kept in memory). */
	journal: string | undefined;
	records: readonly JournalRecord[];
	skippedLines: number;
	readError?: string;
	truncated?: boolean;
	inherited: readonly InheritedHistory[];
}

export interface UsageView {
	sessionId: string;
	journal: string | undefined;
	sends: SendRecord[];
	agents: AgentSummary[];
	models: ModelSummary[];
	totals: Totals;
	inherited: { donorSessionId: string; journal: string; totals: Totals; agents: number; unavailable?: string }[];
	skippedLines: number;
	readError?: string;
	truncated?: boolean;
}

function emptyTotals(): Totals {
	return {
		sends: 0,
		finished: 0,
		errors: 0,
		aborted: 0,
		withoutUsage: 0,
		raw: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
		mapped: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0, cost: 0 },
	};
}

function add(totals: Totals, send: SendRecord): void {
	totals.sends++;
	if (send.outcome === "finished") totals.finished++;
	else if (send.outcome === "error") totals.errors++;
	else totals.aborted++;
	if (!send.raw) totals.withoutUsage++;
	if (send.raw) {
		totals.raw.input += send.raw.inputTokens;
		totals.raw.output += send.raw.outputTokens;
		totals.raw.cacheRead += send.raw.cacheReadTokens;
		totals.raw.cacheWrite += send.raw.cacheWriteTokens;
		totals.raw.reasoning += send.raw.reasoningTokens ?? 0;
	}
	if (send.mapped) {
		totals.mapped.input += send.mapped.input;
		totals.mapped.output += send.mapped.output;
		totals.mapped.cacheRead += send.mapped.cacheRead;
		totals.mapped.cacheWrite += send.mapped.cacheWrite;
		totals.mapped.total += send.mapped.totalTokens;
		totals.mapped.cost += send.mapped.cost;
	}
}

const sendsOf = (records: readonly JournalRecord[]) =>
	records.filter((r): r is SendRecord => r.type === "send").sort((a, b) => a.startedAt - b.startedAt);

function totalsOf(sends: readonly SendRecord[]): Totals {
	const totals = emptyTotals();
	for (const send of sends) add(totals, send);
	return totals;
}

/** Agents in order of their first send; billed snapshots of agents without sends are listed too. */
function agentsOf(records: readonly JournalRecord[]): AgentSummary[] {
	const agents = new Map<string, AgentSummary>();
	const summary = (agentId: string) => {
		let agent = agents.get(agentId);
		if (!agent) {
			agent = { agentId, models: [], totals: emptyTotals(), billed: undefined };
			agents.set(agentId, agent);
		}
		return agent;
	};
	for (const send of sendsOf(records)) {
		if (send.agentId === null) continue; // failed before Cursor gave it an agent
		const agent = summary(send.agentId);
		add(agent.totals, send);
		if (!agent.models.includes(send.model.id)) agent.models.push(send.model.id);
	}
	// The newest successful snapshot wins; an unavailable answer shows only while there is no successful one.
	const newest = (a: BilledRecord | undefined, b: BilledRecord) => (!a || b.at >= a.at ? b : a);
	const ok = new Map<string, BilledRecord>();
	const any = new Map<string, BilledRecord>();
	for (const record of records) {
		if (record.type !== "billed") continue;
		summary(record.agentId);
		any.set(record.agentId, newest(any.get(record.agentId), record));
		if (record.status === "ok") ok.set(record.agentId, newest(ok.get(record.agentId), record));
	}
	for (const agent of agents.values()) agent.billed = ok.get(agent.agentId) ?? any.get(agent.agentId);
	return [...agents.values()];
}

function modelsOf(sends: readonly SendRecord[]): ModelSummary[] {
	const models = new Map<string, ModelSummary>();
	for (const send of sends) {
		let model = models.get(send.model.id);
		if (!model) {
			model = { model: send.model.id, totals: emptyTotals() };
			models.set(send.model.id, model);
		}
		add(model.totals, send);
	}
	return [...models.values()];
}

function agentCount(records: readonly JournalRecord[]): number {
	return new Set(records.map((r) => r.agentId).filter((id) => id !== null)).size;
}

export function buildUsageView(source: UsageSource): UsageView {
	const own = source.records.filter((r) => r.sessionId === source.sessionId);
	const sends = sendsOf(own);
	return {
		sessionId: source.sessionId,
		journal: source.journal,
		sends,
		agents: agentsOf(own),
		models: modelsOf(sends),
		totals: totalsOf(sends),
		inherited: source.inherited.map((donor) => ({
			donorSessionId: donor.donorSessionId,
			journal: donor.journal,
			totals: totalsOf(sendsOf(donor.records)),
			agents: agentCount(donor.records),
			...(donor.unavailable ? { unavailable: donor.unavailable } : {}),
		})),
		skippedLines: source.skippedLines,
		...(source.readError ? { readError: source.readError } : {}),
		...(source.truncated ? { truncated: true } : {}),
	};
}

/** The agents `/cursor-usage refresh` asks about: this session's own, most recently used first. */
export function agentsToRefresh(records: readonly JournalRecord[], sessionId: string, limit: number): string[] {
	const lastUse = new Map<string, number>();
	for (const record of records) {
		if (record.type !== "send" || record.sessionId !== sessionId || record.agentId === null) continue;
		lastUse.set(record.agentId, Math.max(lastUse.get(record.agentId) ?? 0, record.endedAt));
	}
	return [...lastUse.entries()]
		.sort((a, b) => b[1] - a[1])
		.slice(0, limit)
		.map(([agentId]) => agentId);
}

// ---------------------------------------------------------------------------------------------------------------
// Text

const time = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 19);
const dollars = (cents: number) => `$${(cents / 100).toFixed(4)}`;
const shortId = (id: string) => (id.length > 20 ? `${id.slice(0, 20)}…` : id);
/** `1 send`, `2 sends`. */
export const counted = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** Why Pi counts an estimate for a send. */
const ESTIMATE_WHY: Record<UsageEstimateReason, string> = {
	"not reported": "Cursor reported no usage",
	"cache exceeds input": "the raw report's cache tokens exceed its input",
	"exceeds the context window": "the raw report exceeds the model's context window",
};

function rawLine(raw: RawTotals): string {
	const reasoning = raw.reasoning > 0 ? ` · reasoning ${raw.reasoning}` : "";
	return `raw input ${raw.input} (cache read ${raw.cacheRead}, cache write ${raw.cacheWrite}) · output ${raw.output}${reasoning}`;
}

function mappedLine(mapped: MappedTotals): string {
	const cost = mapped.cost > 0 ? ` · cost $${mapped.cost.toFixed(4)}` : "";
	return `mapped input ${mapped.input} · cache read ${mapped.cacheRead} · cache write ${mapped.cacheWrite} · output ${mapped.output} · total ${mapped.total}${cost}`;
}

function outcomesLine(totals: Totals): string {
	const parts = [`${totals.finished} finished`];
	if (totals.errors > 0) parts.push(`${totals.errors} failed`);
	if (totals.aborted > 0) parts.push(`${totals.aborted} aborted`);
	if (totals.withoutUsage > 0) parts.push(`${totals.withoutUsage} without reported usage`);
	return parts.join(", ");
}

/** `finished`, `aborted`, or `error (network)`; `no agent` when it failed before Cursor gave it one. */
function outcomeOf(send: SendRecord): string {
	if (send.outcome !== "error") return send.outcome;
	const details = [send.errorKind, send.agentId === null ? "no agent" : undefined].filter(Boolean);
	return details.length > 0 ? `error (${details.join(", ")})` : "error";
}

function billedLine(billed: BilledRecord | undefined): string {
	if (!billed) return "billed: not requested yet (/cursor-usage refresh asks Cursor)";
	if (billed.status !== "ok" || !billed.usage) {
		return `billed: unavailable at ${time(billed.at)} (${billed.error ?? "no answer"})`;
	}
	const u = billed.usage;
	const cost = billed.cost
		? ` · cost ${dollars(billed.cost.rawCostCents)}, charged ${dollars(billed.cost.chargedCents)}`
		: " · cost unknown";
	return `billed: ${u.totalTokens} tokens (input ${u.inputTokens}, cache read ${u.cacheReadTokens}, cache write ${u.cacheWriteTokens}, output ${u.outputTokens})${cost} · as of ${time(billed.at)}, pending settlement`;
}

/** At most this many sends are listed one by one (totals always cover all of them). */
export const LISTED_SENDS = 50;

export function renderUsageView(view: UsageView): string {
	const lines: string[] = [];
	lines.push(`Cursor usage for this session (${view.sessionId})`);
	lines.push(view.journal ? `Journal: ${view.journal}` : "Journal: in memory only (this session has no file)");
	if (view.readError) lines.push(`The journal could not be read: ${view.readError}.`);
	const { totals } = view;
	if (totals.sends === 0 && view.agents.length === 0) {
		lines.push("No Cursor sends recorded in this session yet.");
	} else {
		const agents = view.agents.length > 0 ? ` on ${counted(view.agents.length, "agent")}` : "";
		lines.push(`${counted(totals.sends, "send")}${agents}: ${outcomesLine(totals)}`);
		lines.push("");
		lines.push("Sends:");
		const listed = view.sends.slice(-LISTED_SENDS);
		if (listed.length < view.sends.length)
			lines.push(`  (${counted(view.sends.length - listed.length, "earlier send")} not listed)`);
		const first = view.sends.length - listed.length;
		listed.forEach((send, i) => {
			const mapped = send.mapped
				? mappedLine({
						input: send.mapped.input,
						output: send.mapped.output,
						cacheRead: send.mapped.cacheRead,
						cacheWrite: send.mapped.cacheWrite,
						total: send.mapped.totalTokens,
						cost: send.mapped.cost,
					})
				: "not mapped";
			// An estimate is marked, with the raw report it replaced beside it.
			const estimated = send.mapped?.estimated;
			const shown = estimated ? `${mapped.replace(/^mapped /, "estimated ")} (${ESTIMATE_WHY[estimated]})` : mapped;
			const usage = send.raw
				? `${rawLine({ input: send.raw.inputTokens, output: send.raw.outputTokens, cacheRead: send.raw.cacheReadTokens, cacheWrite: send.raw.cacheWriteTokens, reasoning: send.raw.reasoningTokens ?? 0 })} → ${shown}`
				: estimated
					? shown
					: "usage not reported";
			const kind = send.kind === "summary" ? " (summary)" : "";
			lines.push(`  #${first + i + 1} ${time(send.startedAt)} ${send.model.id}${kind} ${outcomeOf(send)}: ${usage}`);
		});
		if (view.agents.length > 0) lines.push("", "By agent:");
		for (const agent of view.agents) {
			const models = agent.models.length > 0 ? ` (${agent.models.join(", ")})` : "";
			lines.push(
				`  ${shortId(agent.agentId)}${models}: ${counted(agent.totals.sends, "send")}, ${outcomesLine(agent.totals)}`,
			);
			lines.push(`    ${rawLine(agent.totals.raw)}`);
			lines.push(`    ${mappedLine(agent.totals.mapped)}`);
			lines.push(`    ${billedLine(agent.billed)}`);
		}
		lines.push("");
		lines.push("By model:");
		for (const model of view.models) {
			lines.push(`  ${model.model}: ${counted(model.totals.sends, "send")} · ${rawLine(model.totals.raw)}`);
			lines.push(`    ${mappedLine(model.totals.mapped)}`);
		}
		lines.push("");
		lines.push(`Total: ${rawLine(totals.raw)}`);
		lines.push(`       ${mappedLine(totals.mapped)}`);
	}
	for (const donor of view.inherited) {
		lines.push("");
		if (donor.unavailable) {
			lines.push(`Inherited from session ${donor.donorSessionId}: unavailable (${donor.unavailable}).`);
			continue;
		}
		lines.push(
			`Inherited from session ${donor.donorSessionId} (its sends until this session was forked from it; counted there, not here): ${counted(donor.totals.sends, "send")} on ${counted(donor.agents, "agent")}`,
		);
		lines.push(`  ${rawLine(donor.totals.raw)}`);
		lines.push(`  ${mappedLine(donor.totals.mapped)}`);
	}
	if (view.skippedLines > 0) {
		lines.push("");
		lines.push(`${view.skippedLines} unreadable journal line(s) skipped (for example a record cut short by a crash).`);
	}
	if (view.truncated) lines.push("The journal is over its 16 MiB ceiling: only its beginning was read.");
	lines.push("");
	lines.push(
		"raw = Cursor's turn-ended figures (input includes cache); mapped = what Pi's footer counts; estimated = what Pi counts instead of a missing or impossible report (made from the prompt); billed = Cursor's getUsage, not a final invoice.",
	);
	return lines.join("\n");
}

export const USAGE_HELP = [
	"/cursor-usage — Cursor usage of this Pi session",
	"  /cursor-usage                 sends by agent and model: raw (as Cursor reported), mapped (as Pi counts), billed",
	"  /cursor-usage refresh         ask Cursor for the billed usage of this session's agents (up to 32, 5 s each; no model calls)",
	"  /cursor-usage export <path>   write the records to a new private JSON file (never overwrites)",
	"  /cursor-usage help            this text",
	"Counted: every Cursor send of this session (replies, failed and aborted sends, compaction summaries).",
	"Not counted: usage of other Pi sessions, sends made before this journal existed, and Cursor-side work",
	"billed without a send of ours. A fork shows its donor's records up to the fork as inherited history.",
].join("\n");

export interface ExportDocument {
	format: "pi-cursor-sdk-usage";
	version: 1;
	exportedAt: string;
	sessionId: string;
	journal: string | null;
	skippedLines: number;
	records: JournalRecord[];
	inherited: { donorSessionId: string; journal: string; records: JournalRecord[]; unavailable?: string }[];
	totals: Totals;
}

export function exportDocument(source: UsageSource, now: number): ExportDocument {
	const view = buildUsageView(source);
	return {
		format: "pi-cursor-sdk-usage",
		version: 1,
		exportedAt: new Date(now).toISOString(),
		sessionId: source.sessionId,
		journal: source.journal ?? null,
		skippedLines: source.skippedLines,
		records: source.records.filter((r) => r.sessionId === source.sessionId),
		inherited: source.inherited.map((donor) => ({
			donorSessionId: donor.donorSessionId,
			journal: donor.journal,
			records: donor.records,
			...(donor.unavailable ? { unavailable: donor.unavailable } : {}),
		})),
		totals: view.totals,
	};
}
