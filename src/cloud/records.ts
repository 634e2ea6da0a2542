// The cloud journal's records and what they add up to. A record holds ids, the model id, the repository URL (an
// accepted one: no credentials), git branch/PR references, statuses and times: never prompts or keys.

export const CLOUD_RECORD_VERSION = 1 as const;

export type CloudRunOutcome = "finished" | "error" | "cancelled" | "aborted";
export type CloudOp = "archive" | "delete" | "cancel";

export interface GitRef {
	repoUrl?: string;
	branch?: string;
	prUrl?: string;
}

/** Written after `Agent.create` returned its `bc-` id and before the first send. */
export interface AgentEntry {
	type: "agent";
	agentId: string;
	model: string;
	/** The target repository (null: an agent without one). */
	repo: string | null;
	startingRef?: string;
	/** The Pi session branch the agent belongs to (opaque to the journal). */
	branch?: string;
}

/** Written as soon as a send returned its run. */
export interface RunEntry {
	type: "run";
	agentId: string;
	runId: string;
}

/** How a send ended (`runId` null: the send itself failed, so the agent may not exist on Cursor's side). */
export interface ResultEntry {
	type: "result";
	agentId: string;
	runId: string | null;
	status: CloudRunOutcome;
	git?: GitRef[];
	/** Scrubbed. */
	error?: string;
}

/** Written before an archive/delete/cancel request is made. */
export interface IntentEntry {
	type: "intent";
	op: CloudOp;
	agentId: string;
	intentId: string;
}

/**
 * The outcome of an intent: `done`, or `rejected` when Cursor answered with an error (nothing changed). An intent
 * without an outcome (a crash, a timeout, a network failure) is unresolved: its mutation is not repeated.
 */
export interface MutationEntry {
	type: "mutation";
	op: CloudOp;
	agentId: string;
	intentId: string;
	outcome: "done" | "rejected";
	error?: string;
}

export type CloudEntry = AgentEntry | RunEntry | ResultEntry | IntentEntry | MutationEntry;
export type CloudRecord = CloudEntry & { v: typeof CLOUD_RECORD_VERSION; at: number };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= 2048;
const optionalText = (v: unknown) => v === undefined || isText(v);
const AGENT_ID = /^bc-[A-Za-z0-9-]{1,64}$/;
const OUTCOMES: ReadonlySet<unknown> = new Set(["finished", "error", "cancelled", "aborted"]);
const OPS: ReadonlySet<unknown> = new Set(["archive", "delete", "cancel"]);

function isGitRefs(v: unknown): v is GitRef[] {
	return (
		Array.isArray(v) &&
		v.length <= 16 &&
		v.every((ref) => isObject(ref) && optionalText(ref.repoUrl) && optionalText(ref.branch) && optionalText(ref.prUrl))
	);
}

function isEntry(r: Record<string, unknown>): boolean {
	switch (r.type) {
		case "agent":
			return (
				isText(r.model) && (r.repo === null || isText(r.repo)) && optionalText(r.startingRef) && optionalText(r.branch)
			);
		case "run":
			return isText(r.runId);
		case "result":
			return (
				(r.runId === null || isText(r.runId)) &&
				OUTCOMES.has(r.status) &&
				(r.git === undefined || isGitRefs(r.git)) &&
				optionalText(r.error)
			);
		case "intent":
			return OPS.has(r.op) && isText(r.intentId);
		case "mutation":
			return (
				OPS.has(r.op) &&
				isText(r.intentId) &&
				(r.outcome === "done" || r.outcome === "rejected") &&
				optionalText(r.error)
			);
		default:
			return false;
	}
}

/** A journal line's value → a record, or undefined when it is not a valid one (the line is skipped). */
export function parseCloudRecord(value: unknown): CloudRecord | undefined {
	if (!isObject(value) || value.v !== CLOUD_RECORD_VERSION || typeof value.at !== "number") return undefined;
	if (typeof value.agentId !== "string" || !AGENT_ID.test(value.agentId) || !isEntry(value)) return undefined;
	return value as unknown as CloudRecord;
}

/** One agent this session recorded, as its records add up. */
export interface RecordedAgent {
	agentId: string;
	model: string;
	repo: string | null;
	startingRef?: string;
	branch?: string;
	createdAt: number;
	runIds: string[];
	lastResult?: ResultEntry & { at: number };
	/** The latest branch/PR references any run reported. */
	git?: GitRef[];
	archived: boolean;
	deleted: boolean;
	/** Intents without an outcome: their mutation must not be repeated (check the Cursor dashboard). */
	unresolved: (IntentEntry & { at: number })[];
}

/** The agents the records name, oldest first. Records of an agent without its `agent` record are ignored. */
export function recordedAgents(records: readonly CloudRecord[]): RecordedAgent[] {
	const agents = new Map<string, RecordedAgent>();
	const intents = new Map<string, IntentEntry & { at: number }>();
	for (const record of records) {
		if (record.type === "agent") {
			if (agents.has(record.agentId)) continue;
			agents.set(record.agentId, {
				agentId: record.agentId,
				model: record.model,
				repo: record.repo,
				...(record.startingRef ? { startingRef: record.startingRef } : {}),
				...(record.branch ? { branch: record.branch } : {}),
				createdAt: record.at,
				runIds: [],
				archived: false,
				deleted: false,
				unresolved: [],
			});
			continue;
		}
		const agent = agents.get(record.agentId);
		if (!agent) continue;
		switch (record.type) {
			case "run":
				if (!agent.runIds.includes(record.runId)) agent.runIds.push(record.runId);
				break;
			case "result":
				agent.lastResult = record;
				if (record.git && record.git.length > 0) agent.git = record.git;
				break;
			case "intent":
				intents.set(record.intentId, record);
				break;
			case "mutation":
				if (!intents.delete(record.intentId)) break;
				if (record.outcome === "done" && record.op === "archive") agent.archived = true;
				if (record.outcome === "done" && record.op === "delete") agent.deleted = true;
				break;
		}
	}
	for (const intent of intents.values()) agents.get(intent.agentId)?.unresolved.push(intent);
	return [...agents.values()];
}

/**
 * The agent a new turn continues: of the agents the Pi session branch holds (`branchAgents`, oldest first), the latest
 * one recorded here that has a run (its first send reached Cursor), was not archived or deleted and has no
 * archive/delete in doubt. Undefined: the turn creates a new agent.
 */
export function resumableAgent(records: readonly CloudRecord[], branchAgents: readonly string[]): string | undefined {
	const usable = new Set(
		recordedAgents(records)
			.filter((a) => a.runIds.length > 0 && !a.deleted && !a.archived && a.unresolved.length === 0)
			.map((a) => a.agentId),
	);
	return branchAgents.findLast((agentId) => usable.has(agentId));
}
