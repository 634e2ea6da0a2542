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

/** Rows by key, stored and handed out as copies: what the caller keeps cannot change what the store holds. */
class Rows<T> {
	private readonly rows = new Map<string, T>();

	constructor(
		private readonly key: (row: T) => string,
		/** How errors name a row: "Agent a-1", "Run r-1 for agent a-1". */
		private readonly name: (row: T) => string,
	) {}

	get(key: string): T | null {
		const row = this.rows.get(key);
		return row === undefined ? null : structuredClone(row);
	}

	create(row: T): T {
		if (this.rows.has(this.key(row))) throw new Error(`${this.name(row)} already exists`);
		return this.put(row);
	}

	update(row: T): T {
		if (!this.rows.has(this.key(row))) throw new Error(`${this.name(row)} not found`);
		return this.put(row);
	}

	/** Removes the rows `matching` selects; returns them. */
	delete(matching: (row: T) => boolean): T[] {
		const removed = [...this.rows].filter(([, row]) => matching(row));
		for (const [key] of removed) this.rows.delete(key);
		return removed.map(([, row]) => row);
	}

	/** Copies of the rows `matching` selects. */
	select(matching: (row: T) => boolean): T[] {
		return [...this.rows.values()].filter(matching).map((row) => structuredClone(row));
	}

	private put(row: T): T {
		this.rows.set(this.key(row), structuredClone(row));
		return structuredClone(row);
	}
}

const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function memoryAgentStore(): LocalAgentStore {
	const pair = (a: string, b: string) => `${a}\u0000${b}`;
	const agents = new Rows<LocalAgentDocument>(
		(agent) => agent.agentId,
		(agent) => `Agent ${agent.agentId}`,
	);
	const runs = new Rows<LocalAgentRunDocument>(
		(run) => pair(run.agentId, run.runId),
		(run) => `Run ${run.runId} for agent ${run.agentId}`,
	);
	const blobs = new Rows<{ agentId: string; blobId: string; data: Uint8Array }>(
		(blob) => pair(blob.agentId, blob.blobId),
		(blob) => `Checkpoint blob ${blob.blobId} for agent ${blob.agentId}`,
	);
	const events = new Map<string, LocalAgentRunEventDocument[]>();

	return {
		agents: {
			get: async ({ agentId }) => agents.get(agentId),
			create: async ({ agent }) => agents.create(agent),
			update: async ({ agent }) => agents.update(agent),
			async delete({ filter }) {
				agents.delete((a) => matches(filter.agentIds, a.agentId) && (filter.cwd === undefined || a.cwd === filter.cwd));
			},
			async list(input) {
				const filter = input?.filter;
				const sorted = agents
					.select((agent) => filter?.cwd === undefined || agent.cwd === filter.cwd)
					.sort((a, b) => b.updatedAt - a.updatedAt || byCode(b.agentId, a.agentId));
				return page(sorted, (agent) => agent.agentId, filter?.cursor, filter?.limit);
			},
		},
		runs: {
			get: async ({ agentId, runId }) => runs.get(pair(agentId, runId)),
			create: async ({ run }) => runs.create(run),
			update: async ({ run }) => runs.update(run),
			async delete({ filter }) {
				const removed = runs.delete(
					(run) => matches(filter.agentIds, run.agentId) && matches(filter.runIds, run.runId),
				);
				for (const run of removed) events.delete(run.runId);
			},
			async list(input) {
				const filter = input?.filter;
				const sorted = runs
					.select((run) => matches(filter?.agentIds, run.agentId) && matches(filter?.runIds, run.runId))
					.sort((a, b) => a.turnNumber - b.turnNumber || byCode(a.runId, b.runId));
				return page(sorted, (run) => run.runId, filter?.cursor, filter?.limit);
			},
		},
		checkpoints: {
			get: async ({ agentId, blobId }) => blobs.get(pair(agentId, blobId))?.data ?? null,
			async create({ agentId, blobId, data }) {
				blobs.create({ agentId, blobId, data });
			},
			async update({ agentId, blobId, data }) {
				blobs.update({ agentId, blobId, data });
			},
			async delete({ filter }) {
				blobs.delete((blob) => matches(filter.agentIds, blob.agentId) && matches(filter.blobIds, blob.blobId));
			},
			async list(input) {
				const filter = input?.filter;
				const ids = blobs
					.select((blob) => matches(filter?.agentIds, blob.agentId) && matches(filter?.blobIds, blob.blobId))
					.map((blob) => blob.blobId)
					.sort(byCode);
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
