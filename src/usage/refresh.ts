// `/cursor-usage refresh`: one bounded `getUsage()` snapshot per agent of this session, never a model send.
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

function bounded<T>(promise: Promise<T>, ms: number, signal: AbortSignal | undefined): Promise<T> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	let onAbort = () => {};
	return Promise.race([
		promise,
		new Promise<never>((_, reject) => {
			timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(ms / 1000)} s`)), ms);
			onAbort = () => reject(new Error("cancelled"));
			if (signal?.aborted) onAbort();
			signal?.addEventListener("abort", onAbort, { once: true });
		}),
	]).finally(() => {
		clearTimeout(timer);
		signal?.removeEventListener("abort", onAbort);
	});
}

/** Snapshots for `agentIds` (already limited by the caller), asked concurrently; failures become unavailable. */
export async function takeSnapshots(agentIds: readonly string[], options: RefreshOptions): Promise<BilledRecord[]> {
	const now = options.now ?? Date.now;
	const timeoutMs = options.timeoutMs ?? REFRESH_TIMEOUT_MS;
	return Promise.all(
		agentIds.slice(0, REFRESH_AGENT_LIMIT).map(async (agentId) => {
			try {
				const answer = await bounded(options.getUsage(agentId, options.apiKey), timeoutMs, options.signal);
				return billedRecordOf(options.sessionId, agentId, now(), answer);
			} catch (error) {
				const reason = classifyCursorError(error, [options.apiKey]).message;
				return unavailableRecord(options.sessionId, agentId, now(), reason);
			}
		}),
	);
}
