// Recorded Cursor results by Pi tool-call id, for this extension instance only. A record is consumed once, and only
// by the tool it was recorded for: a wrong tool or an unknown id gets nothing (the caller fails closed).
import type { ReplayCard } from "./mapping.ts";
import type { RunningCard } from "./running.ts";

export type ReplayLookup =
	| { kind: "recorded"; card: ReplayCard }
	/** A call still running in Cursor: wait for its result (showing its live output meanwhile). */
	| { kind: "running"; running: RunningCard }
	/** The id belongs to another tool's card; the record stays for its own tool. */
	| { kind: "wrong-tool"; recordedName: string }
	| { kind: "not-recorded" };

/** Enough for the cards of any live run; older unconsumed records (an abandoned batch) are dropped first. */
const DEFAULT_LIMIT = 1000;

export class ReplayStore {
	private readonly cards = new Map<string, ReplayCard>();
	private readonly running = new Map<string, RunningCard>();

	constructor(private readonly limit = DEFAULT_LIMIT) {}

	/** Records a card's result under its Pi tool-call id (a second record for the same id replaces the first). */
	record(card: ReplayCard): void {
		this.cards.delete(card.id);
		this.cards.set(card.id, card);
		while (this.cards.size > this.limit) {
			const oldest = this.cards.keys().next().value;
			if (oldest === undefined) break;
			this.cards.delete(oldest);
		}
	}

	/** Records a card shown while its call still runs (consumed by its tool like a recorded one). */
	recordRunning(running: RunningCard): void {
		this.running.set(running.id, running);
		void running.done.then(() => this.running.delete(running.id));
	}

	/** Consumes the record of `id` when it was recorded for `toolName`. */
	take(id: string, toolName: string): ReplayLookup {
		const running = this.running.get(id);
		if (running) {
			if (running.name !== toolName) return { kind: "wrong-tool", recordedName: running.name };
			this.running.delete(id);
			return { kind: "running", running };
		}
		const card = this.cards.get(id);
		if (!card) return { kind: "not-recorded" };
		if (card.name !== toolName) return { kind: "wrong-tool", recordedName: card.name };
		this.cards.delete(id);
		return { kind: "recorded", card };
	}

	has(id: string): boolean {
		return this.cards.has(id) || this.running.has(id);
	}

	get size(): number {
		return this.cards.size;
	}

	/** Forgets every record (a new session, shutdown). */
	clear(): void {
		this.cards.clear();
		this.running.clear();
	}
}
