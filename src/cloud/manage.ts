// The /cursor-cloud actions against the API: statuses for the list, archive and delete with a durable intent
// before the request and the outcome after it. The rules are in command.ts; the SDK's REST calls have no timeout,
// so every call here is bounded.
import { bounded } from "../sdk/bounded.ts";
import type { CloudSdk } from "../sdk/cursor-sdk.ts";
import { scrubText } from "../sdk/errors.ts";
import {
	type ApiStatus,
	type CloudCommand,
	DASHBOARD_URL,
	decideMutation,
	renderCloudList,
	statusQueries,
} from "./command.ts";
import { type CloudJournal, newIntentId } from "./journal.ts";
import { type CloudRecord, recordedAgents } from "./records.ts";

export const CLOUD_API_TIMEOUT_MS = 15_000;

export interface ManageDeps {
	sdk: Pick<CloudSdk, "getAgent" | "getRun" | "archiveAgent" | "deleteAgent" | "cancelRun">;
	journal: Pick<CloudJournal, "read" | "record">;
	apiKey: string;
	timeoutMs?: number;
}

export const httpStatus = (error: unknown) => (error as { status?: unknown })?.status;

function reason(error: unknown, secrets: readonly string[]): string {
	return scrubText(error instanceof Error ? error.message : String(error), secrets);
}

function journalRecords(deps: ManageDeps): { records: CloudRecord[] } | string {
	const read = deps.journal.read();
	if (read.error) return `The cloud journal of this session cannot be read (${read.error}).`;
	return { records: read.records };
}

async function statusOf(deps: ManageDeps, agentId: string, runId: string | undefined): Promise<ApiStatus> {
	const ms = deps.timeoutMs ?? CLOUD_API_TIMEOUT_MS;
	try {
		const info = await bounded(deps.sdk.getAgent(agentId, deps.apiKey), ms);
		const run = runId ? (await bounded(deps.sdk.getRun(agentId, runId, deps.apiKey), ms)).status : undefined;
		return { kind: "ok", archived: info.archived === true, ...(run ? { run } : {}) };
	} catch (error) {
		if (httpStatus(error) === 404) return { kind: "gone" };
		return { kind: "unavailable", reason: reason(error, [deps.apiKey]) };
	}
}

/** `/cursor-cloud list`: this session's recorded agents with their status from the API. */
export async function cloudListText(deps: ManageDeps): Promise<string> {
	const read = journalRecords(deps);
	if (typeof read === "string") return read;
	const agents = recordedAgents(read.records);
	const statuses = new Map<string, ApiStatus>();
	await Promise.all(
		statusQueries(agents).map(async ({ agentId, runId }) => {
			statuses.set(agentId, await statusOf(deps, agentId, runId));
		}),
	);
	return renderCloudList(agents, statuses);
}

export interface MutationOutcome {
	ok: boolean;
	message: string;
}

/**
 * `/cursor-cloud archive|delete`: a durable intent, the request, then its outcome. When Cursor answered with an
 * error (4xx) nothing changed and the outcome says so; when the outcome is unknown (no answer, a network error, a
 * 5xx) the intent stays unresolved and blocks repeating the mutation.
 */
export async function mutateCloudAgent(
	deps: ManageDeps,
	command: Extract<CloudCommand, { kind: "archive" | "delete" | "cancel" }>,
): Promise<MutationOutcome> {
	const read = journalRecords(deps);
	if (typeof read === "string") return { ok: false, message: read };
	const decision = decideMutation(recordedAgents(read.records), command);
	if (!decision.allowed) return { ok: decision.done === true, message: decision.message };
	const { agentId } = command;
	const op = command.kind;
	const intentId = newIntentId();
	try {
		deps.journal.record({ type: "intent", op, agentId, intentId });
	} catch (error) {
		return {
			ok: false,
			message: `Nothing was sent: the cloud journal could not record the ${op} (${reason(error, [deps.apiKey])}).`,
		};
	}
	const runId = decision.agent.runIds.at(-1) ?? "";
	const call =
		op === "archive"
			? deps.sdk.archiveAgent(agentId, deps.apiKey)
			: op === "cancel"
				? deps.sdk.cancelRun(agentId, runId, deps.apiKey)
				: deps.sdk.deleteAgent(agentId, deps.apiKey);
	const done = {
		archive: `${agentId} archived.`,
		delete: `${agentId} deleted.`,
		cancel: `Stopped the run ${runId} of ${agentId} (a run that had already ended stays as it was); its outcome is added to the session.`,
	};
	let outcome: { outcome: "done" | "rejected"; error?: string; message: string };
	try {
		await bounded(call, deps.timeoutMs ?? CLOUD_API_TIMEOUT_MS);
		outcome = { outcome: "done", message: done[op] };
	} catch (error) {
		const status = httpStatus(error);
		const why = reason(error, [deps.apiKey]);
		if (op === "delete" && status === 404) outcome = { outcome: "done", message: `${agentId} was already gone.` };
		else if (typeof status === "number" && status < 500) {
			outcome = { outcome: "rejected", error: why, message: `Cursor refused to ${op} ${agentId}: ${why}` };
		} else {
			return {
				ok: false,
				message: `The ${op} of ${agentId} did not report an outcome (${why}); it is not repeated from Pi. Check the agent at ${DASHBOARD_URL}.`,
			};
		}
	}
	try {
		deps.journal.record({
			type: "mutation",
			op,
			agentId,
			intentId,
			outcome: outcome.outcome,
			...(outcome.error ? { error: outcome.error } : {}),
		});
	} catch (error) {
		return {
			ok: outcome.outcome === "done",
			message: `${outcome.message} (The cloud journal could not record it: ${reason(error, [deps.apiKey])}; a repeat will ask you to check ${DASHBOARD_URL}.)`,
		};
	}
	return { ok: outcome.outcome === "done", message: outcome.message };
}
