// A LocalAgentStore kept in memory, for agents that must leave nothing behind: compaction and tree summaries. It has
// no file, no handle and nothing to close; it goes away with its last reference. The semantics follow the SDK's
// documented store contract (src/sdk/cursor-sdk.ts hands it to the SDK's agent platform).
import type {
	LocalAgentDocument,
	LocalAgentRunDocument,
	LocalAgentRunEventDocument,
	LocalAgentStore,
	LocalAgentStoreListResult,
} from "@cursor/sdk";

/** Deletion filters: an empty or missing id list matches every row. */
const matches = (ids: readonly string[] | undefined, id: string) => !ids || ids.length === 0 || ids.includes(id);

/** `sorted` from just after the row whose key is `cursor` (opaque, id-based), `limit` rows at most. */
function page<T>(sorted: readonly T[], key: (row: T) => string, cursor?: string, limit?: number) {
	const from = cursor === undefined ? 0 : sorted.findIndex((row) => key(row) === cursor) + 1;
	const rest = sorted.slice(from);
	const items = limit === undefined ? rest : rest.slice(0, limit);
	const last = items.at(-1);
	return {
		items,
		...(items.length < rest.length && last !== undefined ? { nextCursor: key(last) } : {}),
	} as LocalAgentStoreListResult<T>;
}

const DEFAULT_EVENT_PAGE = 100;

export function memoryAgentStore(): LocalAgentStore {
	const agents = new Map<string, LocalAgentDocument>();
	const runs = new Map<string, LocalAgentRunDocument>();
	const blobs = new Map<string, { agentId: string; blobId: string; data: Uint8Array }>();
	const events = new Map<string, LocalAgentRunEventDocument[]>();
	const runKey = (agentId: string, runId: string) => `${agentId}\u0000${runId}`;
	const blobKey = (agentId: string, blobId: string) => `${agentId}\u0000${blobId}`;

	return {
		agents: {
			async get({ agentId }) {
				const agent = agents.get(agentId);
				return agent ? structuredClone(agent) : null;
			},
			async create({ agent }) {
				if (agents.has(agent.agentId)) throw new Error(`Agent ${agent.agentId} already exists`);
				agents.set(agent.agentId, structuredClone(agent));
				return structuredClone(agent);
			},
			async update({ agent }) {
				if (!agents.has(agent.agentId)) throw new Error(`Agent ${agent.agentId} not found`);
				agents.set(agent.agentId, structuredClone(agent));
				return structuredClone(agent);
			},
			async delete({ filter }) {
				for (const agent of [...agents.values()]) {
					if (matches(filter.agentIds, agent.agentId) && (filter.cwd === undefined || agent.cwd === filter.cwd)) {
						agents.delete(agent.agentId);
					}
				}
			},
			async list(input) {
				const filter = input?.filter;
				const sorted = [...agents.values()]
					.filter((agent) => filter?.cwd === undefined || agent.cwd === filter.cwd)
					.sort((a, b) => b.updatedAt - a.updatedAt || (a.agentId < b.agentId ? 1 : a.agentId > b.agentId ? -1 : 0));
				return page(
					sorted.map((agent) => structuredClone(agent)),
					(agent) => agent.agentId,
					filter?.cursor,
					filter?.limit,
				);
			},
		},
		runs: {
			async get({ agentId, runId }) {
				const run = runs.get(runKey(agentId, runId));
				return run ? structuredClone(run) : null;
			},
			async create({ run }) {
				const key = runKey(run.agentId, run.runId);
				if (runs.has(key)) throw new Error(`Run ${run.runId} already exists for agent ${run.agentId}`);
				runs.set(key, structuredClone(run));
				return structuredClone(run);
			},
			async update({ run }) {
				const key = runKey(run.agentId, run.runId);
				if (!runs.has(key)) throw new Error(`Run ${run.runId} not found for agent ${run.agentId}`);
				runs.set(key, structuredClone(run));
				return structuredClone(run);
			},
			async delete({ filter }) {
				for (const [key, run] of [...runs]) {
					if (matches(filter.agentIds, run.agentId) && matches(filter.runIds, run.runId)) {
						runs.delete(key);
						events.delete(run.runId);
					}
				}
			},
			async list(input) {
				const filter = input?.filter;
				const sorted = [...runs.values()]
					.filter((run) => matches(filter?.agentIds, run.agentId) && matches(filter?.runIds, run.runId))
					.sort((a, b) => a.turnNumber - b.turnNumber || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
				return page(
					sorted.map((run) => structuredClone(run)),
					(run) => run.runId,
					filter?.cursor,
					filter?.limit,
				);
			},
		},
		checkpoints: {
			async get({ agentId, blobId }) {
				const blob = blobs.get(blobKey(agentId, blobId));
				return blob ? new Uint8Array(blob.data) : null;
			},
			async create({ agentId, blobId, data }) {
				const key = blobKey(agentId, blobId);
				if (blobs.has(key)) throw new Error(`Checkpoint blob ${blobId} already exists for agent ${agentId}`);
				blobs.set(key, { agentId, blobId, data: new Uint8Array(data) });
			},
			async update({ agentId, blobId, data }) {
				const key = blobKey(agentId, blobId);
				if (!blobs.has(key)) throw new Error(`Checkpoint blob ${blobId} not found for agent ${agentId}`);
				blobs.set(key, { agentId, blobId, data: new Uint8Array(data) });
			},
			async delete({ filter }) {
				for (const [key, blob] of [...blobs]) {
					if (matches(filter.agentIds, blob.agentId) && matches(filter.blobIds, blob.blobId)) blobs.delete(key);
				}
			},
			async list(input) {
				const filter = input?.filter;
				const ids = [...blobs.values()]
					.filter((blob) => matches(filter?.agentIds, blob.agentId) && matches(filter?.blobIds, blob.blobId))
					.map((blob) => blob.blobId)
					.sort();
				return page(ids, (id) => id, filter?.cursor, filter?.limit);
			},
		},
		runEvents: {
			async append({ runId, eventType, payload, payloadRef, idempotencyKey }) {
				const log = events.get(runId) ?? [];
				events.set(runId, log);
				const repeated = idempotencyKey ? log.find((event) => event.idempotencyKey === idempotencyKey) : undefined;
				if (repeated) return structuredClone(repeated);
				const seq = (log.at(-1)?.seq ?? 0) + 1;
				const event: LocalAgentRunEventDocument = {
					runId,
					seq,
					offset: String(seq),
					eventType,
					payload: structuredClone(payload ?? null),
					payloadRef: payloadRef ?? null,
					idempotencyKey: idempotencyKey ?? null,
					createdAt: Date.now(),
				};
				log.push(event);
				return structuredClone(event);
			},
			async list({ runId, afterOffset, limit = DEFAULT_EVENT_PAGE }) {
				const after = Number.parseInt(afterOffset ?? "0", 10) || 0;
				const rest = (events.get(runId) ?? []).filter((event) => event.seq > after);
				const items = rest.slice(0, limit).map((event) => structuredClone(event));
				const last = items.at(-1);
				return { items, ...(items.length < rest.length && last ? { nextOffset: last.offset } : {}) };
			},
			async delete({ filter }) {
				for (const runId of [...events.keys()]) if (matches(filter.runIds, runId)) events.delete(runId);
			},
		},
	};
}
