// The usage journal's record shapes and their validation. A record holds ids, the model selection, token counts,
// costs, outcomes and times: never prompts, tool content or credentials.
import type { Usage } from "@earendil-works/pi-ai";
import { Type } from "typebox";
import { Value } from "typebox/value";
import type { ModelSelection } from "../sdk/cursor-sdk.ts";
import type { CursorErrorKind } from "../sdk/errors.ts";
import { isRecord } from "../settings/plain-data.ts";
import type { SendEnded } from "../turn/observer.ts";
import type { CursorTurnUsage } from "../turn/usage.ts";
import { ESTIMATE_REASONS, type UsageEstimateReason } from "./estimate.ts";

export const RECORD_VERSION = 1 as const;

/** `turn-ended` usage as the SDK reported it. */
export type RawUsage = CursorTurnUsage;

/** What Pi was given (tokens only; cost is what models.json rates made of it). */
export interface MappedUsage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	totalTokens: number;
	reasoning?: number;
	cost: number;
	/** Set when Pi was given an estimate from the prompt instead of Cursor's report (kept as `raw`), and why. */
	estimated?: UsageEstimateReason;
}

/** One Cursor send: written when it ended (finished, failed or aborted). */
export interface SendRecord {
	v: typeof RECORD_VERSION;
	type: "send";
	sessionId: string;
	/** Null when the send failed before Cursor gave it an agent. */
	agentId: string | null;
	runId: string | null;
	model: ModelSelection;
	kind: "bootstrap" | "incremental" | "summary";
	outcome: "finished" | "error" | "aborted";
	raw: RawUsage | null;
	mapped: MappedUsage | null;
	error?: string;
	errorKind?: CursorErrorKind;
	startedAt: number;
	endedAt: number;
}

const ERROR_KINDS: readonly CursorErrorKind[] = [
	"auth",
	"network",
	"rate-limit",
	"context-overflow",
	"module",
	"configuration",
	"backend",
];

export interface BilledTokens {
	inputTokens: number;
	outputTokens: number;
	cacheReadTokens: number;
	cacheWriteTokens: number;
	totalTokens: number;
}

export interface BilledCost {
	rawCostCents: number;
	chargedCents: number;
}

/** At most this many per-run rows are kept from one `getUsage()` answer. */
export const MAX_BILLED_RUNS = 64;

/** One `getUsage()` snapshot of a whole agent, as Cursor billed it so far (not final until settled). */
export interface BilledRecord {
	v: typeof RECORD_VERSION;
	type: "billed";
	sessionId: string;
	agentId: string;
	at: number;
	status: "ok" | "unavailable";
	usage?: BilledTokens;
	cost?: BilledCost;
	/** How many runs Cursor listed, and the first {@link MAX_BILLED_RUNS} of them. */
	runCount?: number;
	runs?: { runId: string; usage: BilledTokens; cost?: BilledCost }[];
	/** Scrubbed reason for `unavailable`. */
	error?: string;
}

export type JournalRecord = SendRecord | BilledRecord;

const isCount = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n) && n >= 0;

function count(n: unknown): number {
	return isCount(n) ? n : 0;
}

export function toMappedUsage(usage: Usage): MappedUsage {
	return {
		input: count(usage.input),
		output: count(usage.output),
		cacheRead: count(usage.cacheRead),
		cacheWrite: count(usage.cacheWrite),
		totalTokens: count(usage.totalTokens),
		...(isCount(usage.reasoning) && usage.reasoning > 0 ? { reasoning: usage.reasoning } : {}),
		cost: count(usage.cost?.total),
	};
}

function toRawUsage(raw: CursorTurnUsage): RawUsage {
	return {
		inputTokens: count(raw.inputTokens),
		outputTokens: count(raw.outputTokens),
		cacheReadTokens: count(raw.cacheReadTokens),
		cacheWriteTokens: count(raw.cacheWriteTokens),
		...(isCount(raw.reasoningTokens) ? { reasoningTokens: raw.reasoningTokens } : {}),
	};
}

/** Only the selection's id and parameter values travel into the journal. */
function toSelection(model: ModelSelection): ModelSelection {
	const params = Array.isArray(model.params)
		? model.params
				.filter((p) => typeof p?.id === "string" && typeof p.value === "string")
				.map((p) => ({ id: p.id, value: p.value }))
		: undefined;
	return { id: String(model.id), ...(params && params.length > 0 ? { params } : {}) };
}

export function sendRecordOf(sessionId: string, send: SendEnded): SendRecord {
	return {
		v: RECORD_VERSION,
		type: "send",
		sessionId,
		agentId: send.agentId ?? null,
		runId: send.runId ?? null,
		model: toSelection(send.model),
		kind: send.kind,
		outcome: send.outcome,
		raw: send.rawUsage ? toRawUsage(send.rawUsage) : null,
		mapped: send.mappedUsage
			? { ...toMappedUsage(send.mappedUsage), ...(send.usageEstimate ? { estimated: send.usageEstimate } : {}) }
			: null,
		...(send.error ? { error: send.error } : {}),
		...(send.errorKind ? { errorKind: send.errorKind } : {}),
		startedAt: send.startedAt,
		endedAt: send.endedAt,
	};
}

function parseBilledTokens(value: unknown): BilledTokens | undefined {
	if (!isRecord(value)) return undefined;
	const fields = ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"] as const;
	if (!fields.some((field) => isCount(value[field]))) return undefined;
	const tokens = {
		inputTokens: count(value.inputTokens),
		outputTokens: count(value.outputTokens),
		cacheReadTokens: count(value.cacheReadTokens),
		cacheWriteTokens: count(value.cacheWriteTokens),
	};
	const total = isCount(value.totalTokens)
		? value.totalTokens
		: tokens.inputTokens + tokens.outputTokens + tokens.cacheReadTokens + tokens.cacheWriteTokens;
	return { ...tokens, totalTokens: total };
}

function parseBilledCost(value: unknown): BilledCost | undefined {
	if (!isRecord(value) || !isCount(value.rawCostCents) || !isCount(value.chargedCents)) return undefined;
	return { rawCostCents: value.rawCostCents, chargedCents: value.chargedCents };
}

/**
 * A billed record from the SDK's `AgentUsage` answer (`{usage, cost?, runs[]}`), bounded to
 * {@link MAX_BILLED_RUNS} run rows. An answer without usable totals is recorded as unavailable.
 */
export function billedRecordOf(sessionId: string, agentId: string, at: number, answer: unknown): BilledRecord {
	const base = { v: RECORD_VERSION as typeof RECORD_VERSION, type: "billed" as const, sessionId, agentId, at };
	const body = isRecord(answer) ? answer : {};
	const usage = parseBilledTokens(body.usage ?? body.totalUsage);
	if (!usage) return { ...base, status: "unavailable", error: "Cursor returned no usage totals" };
	const cost = parseBilledCost(body.cost);
	const rows = Array.isArray(body.runs) ? body.runs : [];
	const runs: NonNullable<BilledRecord["runs"]> = [];
	for (const row of rows.slice(0, MAX_BILLED_RUNS)) {
		if (!isRecord(row)) continue;
		const runId = typeof row.runId === "string" ? row.runId : typeof row.id === "string" ? row.id : undefined;
		const rowUsage = parseBilledTokens(row.usage);
		if (!runId || !rowUsage) continue;
		const rowCost = parseBilledCost(row.cost);
		runs.push({ runId: runId.slice(0, 200), usage: rowUsage, ...(rowCost ? { cost: rowCost } : {}) });
	}
	return { ...base, status: "ok", usage, ...(cost ? { cost } : {}), runCount: rows.length, runs };
}

export function unavailableRecord(sessionId: string, agentId: string, at: number, reason: string): BilledRecord {
	return { v: RECORD_VERSION, type: "billed", sessionId, agentId, at, status: "unavailable", error: reason };
}

// What a journal line must hold to be read back (counts are finite and not negative). Fields marked `LENIENT` are
// kept only when well formed, without spoiling the record.
const COUNT = Type.Number({ minimum: 0 });
const LENIENT = Type.Optional(Type.Unknown());
const TIME = Type.Number({ exclusiveMinimum: 0 });
const RECORD_HEAD = { v: Type.Literal(RECORD_VERSION), sessionId: Type.String() };
const RAW_USAGE = Type.Object({
	inputTokens: COUNT,
	outputTokens: COUNT,
	cacheReadTokens: COUNT,
	cacheWriteTokens: COUNT,
});
const MAPPED_USAGE = Type.Object({
	input: COUNT,
	output: COUNT,
	cacheRead: COUNT,
	cacheWrite: COUNT,
	totalTokens: COUNT,
	cost: COUNT,
	reasoning: LENIENT,
	estimated: LENIENT,
});
const SEND_RECORD = Type.Object({
	...RECORD_HEAD,
	// Null when the send failed before Cursor gave it an agent.
	agentId: Type.Union([Type.String(), Type.Null()]),
	type: Type.Literal("send"),
	runId: LENIENT,
	model: Type.Object({ id: Type.String() }),
	kind: Type.Union([Type.Literal("bootstrap"), Type.Literal("incremental"), Type.Literal("summary")]),
	outcome: Type.Union([Type.Literal("finished"), Type.Literal("error"), Type.Literal("aborted")]),
	raw: Type.Union([Type.Null(), RAW_USAGE]),
	mapped: Type.Union([Type.Null(), MAPPED_USAGE]),
	error: LENIENT,
	errorKind: LENIENT,
	startedAt: TIME,
	endedAt: TIME,
});
const BILLED_RECORD = Type.Object({
	...RECORD_HEAD,
	agentId: Type.String(),
	type: Type.Literal("billed"),
	at: TIME,
	status: Type.Union([Type.Literal("ok"), Type.Literal("unavailable")]),
	error: LENIENT,
	runCount: LENIENT,
});

/** Validates one parsed journal line; anything malformed is `undefined` (the reader skips it). */
export function parseRecord(value: unknown): JournalRecord | undefined {
	if (Value.Check(SEND_RECORD, value)) {
		const { raw, mapped } = value;
		return {
			v: RECORD_VERSION,
			type: "send",
			sessionId: value.sessionId,
			agentId: value.agentId,
			runId: typeof value.runId === "string" ? value.runId : null,
			model: toSelection(value.model as ModelSelection),
			kind: value.kind,
			outcome: value.outcome,
			raw: raw && toRawUsage(raw),
			mapped: mapped && {
				input: mapped.input,
				output: mapped.output,
				cacheRead: mapped.cacheRead,
				cacheWrite: mapped.cacheWrite,
				totalTokens: mapped.totalTokens,
				...(isCount(mapped.reasoning) ? { reasoning: mapped.reasoning } : {}),
				cost: mapped.cost,
				...(ESTIMATE_REASONS.includes(mapped.estimated as UsageEstimateReason)
					? { estimated: mapped.estimated as UsageEstimateReason }
					: {}),
			},
			...(typeof value.error === "string" ? { error: value.error } : {}),
			...(ERROR_KINDS.includes(value.errorKind as CursorErrorKind)
				? { errorKind: value.errorKind as CursorErrorKind }
				: {}),
			startedAt: value.startedAt,
			endedAt: value.endedAt,
		};
	}
	if (!Value.Check(BILLED_RECORD, value)) return undefined;
	if (value.status === "unavailable") {
		const reason = typeof value.error === "string" ? value.error : "unavailable";
		return unavailableRecord(value.sessionId, value.agentId, value.at, reason);
	}
	const record = billedRecordOf(value.sessionId, value.agentId, value.at, value);
	if (record.status !== "ok") return undefined;
	// `billedRecordOf` counts the stored (already bounded) rows; keep the count Cursor originally reported.
	return isCount(value.runCount) ? { ...record, runCount: value.runCount } : record;
}
