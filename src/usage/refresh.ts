// `/cursor-usage refresh`: one bounded `getUsage()` snapshot per agent of this session, never a model send.
import { bounded } from "../sdk/bounded.ts";
import { classifyCursorError } from "../sdk/errors.ts";
import { type BilledRecord, billedRecordOf, unavailableRecord } from "./records.ts";

/** At most this many agents are asked per refresh. */
export const REFRESH_AGENT_LIMIT = 32;
/** Each answer is awaited at most this long (the SDK's REST calls have no timeout of their own). */
export const REFRESH_TIMEOUT_MS = 5_000;

export interface RefreshOptions {
	sessionId: string;
	apiKey: string;
	getUsage: (agentId: string, apiKey: string) => Promise<unknown>;
	timeoutMs?: number;
	now?: () => number;
	signal?: AbortSignal;
}

/** Snapshots for `agentIds` (already limited by the caller), asked concurrently; failures become unavailable. */
export async function takeSnapshots(agentIds: readonly string[], options: RefreshOptions): Promise<BilledRecord[]> {
	const now = options.now ?? Date.now;
	const timeoutMs = options.timeoutMs ?? REFRESH_TIMEOUT_MS;
	return Promise.all(
		agentIds.slice(0, REFRESH_AGENT_LIMIT).map(async (agentId) => {
			try {
				const answer = await bounded(
					options.getUsage(agentId, options.apiKey),
					timeoutMs,
					options.signal ? { signal: options.signal } : {},
				);
				return billedRecordOf(options.sessionId, agentId, now(), answer);
			} catch (error) {
				const reason = classifyCursorError(error, [options.apiKey]).message;
				return unavailableRecord(options.sessionId, agentId, now(), reason);
			}
		}),
	);
}
