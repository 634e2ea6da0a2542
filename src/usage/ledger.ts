// The usage ledger of one Pi session: a TurnObserver that journals every Cursor send, records agent lineage once
// per agent, and remembers the session's last scrubbed error (for /cursor-doctor).
import type { SendEnded, SendStarted, TurnObserver } from "../turn/observer.ts";
import { type InheritedHistory, readInheritedHistory, type SessionHeaderFacts } from "./inherited.ts";
import { journalPath, UsageJournal } from "./journal.ts";
import { LINEAGE_ENTRY_TYPE, type LineageData, recordedAgents } from "./lineage.ts";
import { type JournalRecord, sendRecordOf } from "./records.ts";
import type { UsageSource } from "./view.ts";

export interface LedgerScope {
	sessionId: string;
	/** Directory of Pi's session file; undefined for a session without a file (records stay in memory). */
	sessionDir: string | undefined;
	header: SessionHeaderFacts | undefined;
	/** Every entry of the session (all branches), to find lineage already recorded. */
	entries: readonly unknown[];
}

export interface LedgerHooks {
	appendEntry(customType: string, data: unknown): void;
	warn(message: string): void;
}

export interface LastError {
	message: string;
	at: number;
}

export class UsageLedger implements TurnObserver {
	private scope: LedgerScope | undefined;
	private journal: UsageJournal | undefined;
	private lineage = new Set<string>();
	lastError: LastError | undefined;

	constructor(private readonly hooks: LedgerHooks) {}

	/** On `session_start`: the session whose sends are recorded from now on. */
	bind(scope: LedgerScope): void {
		this.scope = scope;
		this.journal = new UsageJournal(
			scope.sessionDir ? journalPath(scope.sessionDir, scope.sessionId) : undefined,
			this.hooks.warn,
		);
		this.lineage = recordedAgents(scope.entries, scope.sessionId);
		this.lastError = undefined;
	}

	get sessionId(): string | undefined {
		return this.scope?.sessionId;
	}

	get journalFile(): string | undefined {
		return this.journal?.path;
	}

	/** Remembers a turn error that never reached a send (bad model, missing key, …). */
	noteError(message: string, at = Date.now()): void {
		this.lastError = { message, at };
	}

	append(record: JournalRecord): void {
		this.journal?.append(record);
	}

	sendStarted(send: SendStarted): void {
		this.recordLineage(send);
	}

	sendEnded(send: SendEnded): void {
		if (!this.scope) return;
		this.recordLineage(send); // a send that failed before it started still used its agent
		if (send.outcome === "error") this.noteError(send.error ?? "Cursor send failed", send.endedAt);
		this.journal?.append(sendRecordOf(this.scope.sessionId, send));
	}

	private recordLineage(send: SendStarted | SendEnded): void {
		const { scope } = this;
		const { agentId } = send;
		// Compaction and tree summaries use throwaway agents: they are journaled but not part of the lineage.
		if (!scope || agentId === undefined || send.kind === "summary" || this.lineage.has(agentId)) return;
		this.lineage.add(agentId);
		const data: LineageData = {
			sessionId: scope.sessionId,
			agentId,
			model: send.model.id,
			firstSendAt: send.startedAt,
		};
		this.hooks.appendEntry(LINEAGE_ENTRY_TYPE, data);
	}

	/** Everything /cursor-usage shows: this session's journal and its donors' (forks and clones). */
	source(): UsageSource | undefined {
		const scope = this.scope;
		const journal = this.journal;
		if (!scope || !journal) return undefined;
		const read = journal.read();
		const inherited: InheritedHistory[] = scope.header ? readInheritedHistory(scope.header) : [];
		return {
			sessionId: scope.sessionId,
			journal: journal.path,
			records: read.records,
			skippedLines: read.skippedLines,
			...(read.error ? { readError: read.error } : {}),
			...(read.truncated ? { truncated: true } : {}),
			inherited,
		};
	}
}
