// Per-run state of the HTTP/1.1 agent transport: client messages arriving by BidiAppend, delivered in
// append_seqno order, plus waiting primitives used by the scenario runner.

import type { JsonObject } from "./codec.ts";
import { type ClientMessageSummary, summarizeClientMessage } from "./messages.ts";

export interface DeliveredMessage {
	appendSeqno: number;
	message: JsonObject;
	summary: ClientMessageSummary;
	/** Size of the `AgentClientMessage` payload as it arrived. */
	bytes?: number;
}

type Waiter = {
	predicate: (m: DeliveredMessage) => boolean;
	resolve: (m: DeliveredMessage | undefined) => void;
	timer: ReturnType<typeof setTimeout>;
};

export class RunSession {
	readonly requestId: string;
	readonly delivered: DeliveredMessage[] = [];
	runRequest: JsonObject | undefined;
	/** Workspace directory, when known (from a request-context exec). */
	workspace: string | undefined;
	private nextSeqno = 0;
	private pending = new Map<number, { message: JsonObject; summary: ClientMessageSummary; bytes?: number }>();
	private waiters = new Set<Waiter>();
	private nextExecId = 1;
	private closedFlag = false;
	private closeListeners = new Set<() => void>();

	constructor(requestId: string) {
		this.requestId = requestId;
	}

	/** Accepts one append; returns the messages that became deliverable, in order. */
	append(seqno: number, message: JsonObject, bytes?: number): DeliveredMessage[] {
		const summary = summarizeClientMessage(message);
		if (seqno < this.nextSeqno) {
			// Duplicate or out-of-window append: deliver it anyway so it is not lost.
			return [this.deliver({ appendSeqno: seqno, message, summary, bytes })];
		}
		this.pending.set(seqno, { message, summary, bytes });
		const out: DeliveredMessage[] = [];
		for (;;) {
			const next = this.pending.get(this.nextSeqno);
			if (!next) break;
			this.pending.delete(this.nextSeqno);
			out.push(this.deliver({ appendSeqno: this.nextSeqno, ...next }));
			this.nextSeqno++;
		}
		return out;
	}

	private deliver(item: DeliveredMessage): DeliveredMessage {
		this.delivered.push(item);
		if (item.summary.kind === "run_request" && !this.runRequest) {
			this.runRequest = item.message.run_request as JsonObject;
		}
		for (const waiter of [...this.waiters]) {
			if (waiter.predicate(item)) {
				this.waiters.delete(waiter);
				clearTimeout(waiter.timer);
				waiter.resolve(item);
			}
		}
		return item;
	}

	/** Resolves with the first delivered message (past or future) matching the predicate, or undefined on timeout/close. */
	waitFor(predicate: (m: DeliveredMessage) => boolean, timeoutMs: number): Promise<DeliveredMessage | undefined> {
		const existing = this.delivered.find(predicate);
		if (existing) return Promise.resolve(existing);
		if (this.closedFlag) return Promise.resolve(undefined);
		return new Promise((resolve) => {
			const waiter: Waiter = {
				predicate,
				resolve,
				timer: setTimeout(() => {
					this.waiters.delete(waiter);
					resolve(undefined);
				}, timeoutMs),
			};
			this.waiters.add(waiter);
		});
	}

	waitForRunRequest(timeoutMs: number): Promise<JsonObject | undefined> {
		return this.waitFor((m) => m.summary.kind === "run_request", timeoutMs).then(() => this.runRequest);
	}

	allocateExecId(): number {
		return this.nextExecId++;
	}

	reserveExecId(id: number): void {
		if (id >= this.nextExecId) this.nextExecId = id + 1;
	}

	get closed(): boolean {
		return this.closedFlag;
	}

	/** Marks the stream as closed (client disconnect or end); releases every waiter. */
	close(): void {
		if (this.closedFlag) return;
		this.closedFlag = true;
		for (const waiter of this.waiters) {
			clearTimeout(waiter.timer);
			waiter.resolve(undefined);
		}
		this.waiters.clear();
		for (const listener of this.closeListeners) listener();
		this.closeListeners.clear();
	}

	onClose(listener: () => void): () => void {
		if (this.closedFlag) {
			listener();
			return () => {};
		}
		this.closeListeners.add(listener);
		return () => this.closeListeners.delete(listener);
	}

	/** Sleeps for ms, returning early (false) if the stream closes. */
	sleep(ms: number): Promise<boolean> {
		if (this.closedFlag) return Promise.resolve(false);
		return new Promise((resolve) => {
			const timer = setTimeout(() => {
				off();
				resolve(true);
			}, ms);
			const off = this.onClose(() => {
				clearTimeout(timer);
				resolve(false);
			});
		});
	}
}
