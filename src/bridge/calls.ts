// Bridged calls of one run: numbered, queued in arrival order, handed to the caller's handler, and settled exactly
// once — by the handler's result, the per-call deadline, MCP cancellation or the bridge closing. A call that
// expires or is cancelled while queued never reaches the handler; one that is running has its signal aborted.
import { scrubText } from "../sdk/errors.ts";
import type { BridgeDebugEvent, BridgeDebugSink } from "./debug.ts";
import { bridgeToolCallId } from "./ids.ts";
import type { BridgeTool } from "./snapshot.ts";

export type BridgeContent = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

/** An MCP `tools/call` result (Pi's tool result content maps onto it one to one). */
export interface BridgeToolResult {
	content: BridgeContent[];
	isError?: boolean;
}

export interface BridgeCall {
	/** `cursor-pi-bridge-<run id>-t<n>`: the id Pi's `toolCall` should carry. */
	readonly toolCallId: string;
	readonly piName: string;
	readonly mcpName: string;
	readonly args: Record<string, unknown>;
	/** Aborted on MCP cancellation, the deadline, or the bridge closing. */
	readonly signal: AbortSignal;
}

export type BridgeCallHandler = (call: BridgeCall) => Promise<BridgeToolResult>;

export type SettleReason = "deadline" | "mcp_cancel" | "closed";

export interface CallQueueOptions {
	readonly runId: string;
	readonly handler: BridgeCallHandler;
	/** Deadline of one call, from its arrival (queue time counts). */
	readonly callTimeoutMs: number;
	/** Calls handed to the handler at once (default 1: strictly one after another). */
	readonly concurrency?: number;
	readonly debug?: BridgeDebugSink;
}

interface Entry {
	readonly call: BridgeCall;
	readonly controller: AbortController;
	readonly startedAt: number;
	readonly deadlineAt: number;
	readonly resolve: (result: BridgeToolResult) => void;
	readonly mcpRequestId: string | number | undefined;
	state: "queued" | "running" | "settled";
	timer?: ReturnType<typeof setTimeout>;
	detach?: () => void;
}

export class BridgeCallQueue {
	private readonly queue: Entry[] = [];
	private readonly running = new Set<Entry>();
	private counter = 0;
	private closed = false;
	private readonly options: CallQueueOptions;
	private readonly concurrency: number;
	private readonly debug: BridgeDebugSink;

	constructor(options: CallQueueOptions) {
		this.options = options;
		this.concurrency = Math.max(1, options.concurrency ?? 1);
		this.debug = options.debug ?? (() => {});
	}

	/** Calls queued or running. */
	get pending(): number {
		return this.queue.length + this.running.size;
	}

	get queued(): number {
		return this.queue.length;
	}

	/**
	 * Queues one call; resolves with its result, or with an error result (never rejects). `mcpSignal` is the MCP
	 * request's cancellation signal.
	 */
	submit(
		tool: BridgeTool,
		args: Record<string, unknown>,
		mcpSignal?: AbortSignal,
		mcpRequestId?: string | number,
	): Promise<BridgeToolResult> {
		if (this.closed) return Promise.resolve(closedResult(tool.piName));
		if (mcpSignal?.aborted) return Promise.resolve(cancelledResult(tool.piName));
		const controller = new AbortController();
		const call: BridgeCall = {
			toolCallId: bridgeToolCallId(this.options.runId, ++this.counter),
			piName: tool.piName,
			mcpName: tool.mcpName,
			args,
			signal: controller.signal,
		};
		return new Promise<BridgeToolResult>((resolve) => {
			const now = Date.now();
			const entry: Entry = {
				call,
				controller,
				startedAt: now,
				deadlineAt: now + this.options.callTimeoutMs,
				resolve,
				mcpRequestId,
				state: "queued",
			};
			entry.timer = setTimeout(() => this.expire(entry, "deadline"), this.options.callTimeoutMs);
			if (mcpSignal) {
				const onAbort = () => this.expire(entry, "mcp_cancel");
				mcpSignal.addEventListener("abort", onAbort, { once: true });
				entry.detach = () => mcpSignal.removeEventListener("abort", onAbort);
			}
			this.queue.push(entry);
			this.log("call_queued", entry);
			this.pump();
		});
	}

	/** Settles every pending call with an error result and aborts running handlers; later submits fail at once. */
	close(): void {
		this.closed = true;
		for (const entry of [...this.queue, ...this.running]) this.expire(entry, "closed");
	}

	private pump(): void {
		while (this.running.size < this.concurrency && this.queue.length > 0) {
			const entry = this.queue.shift();
			if (entry?.state !== "queued") continue;
			// Its timer may not have fired yet (timers due in the same turn): an expired call never starts.
			if (Date.now() >= entry.deadlineAt) {
				this.expire(entry, "deadline");
				continue;
			}
			entry.state = "running";
			this.running.add(entry);
			this.log("call_started", entry);
			let outcome: Promise<BridgeToolResult>;
			try {
				outcome = Promise.resolve(this.options.handler(entry.call));
			} catch (error) {
				outcome = Promise.reject(error);
			}
			outcome.then(
				(result) => this.finish(entry, normalizeResult(result)),
				(error: unknown) => this.finish(entry, handlerErrorResult(entry.call.piName, error), "handler_error"),
			);
		}
	}

	private finish(entry: Entry, result: BridgeToolResult, reason?: string): void {
		if (!this.settle(entry)) return;
		this.log(result.isError ? "call_failed" : "call_resolved", entry, {
			...(reason ? { reason } : {}),
			isError: result.isError === true,
		});
		entry.resolve(result);
		this.pump();
	}

	private expire(entry: Entry, reason: SettleReason): void {
		const wasRunning = entry.state === "running";
		if (!this.settle(entry)) return;
		if (wasRunning) entry.controller.abort(new Error(`bridged call ${reason}`));
		else entry.controller.abort(new Error(`bridged call ${reason} before it started`));
		this.log(reason === "deadline" ? "call_expired" : reason === "closed" ? "call_rejected" : "call_cancelled", entry, {
			reason,
			...(reason === "deadline" ? { timeoutMs: this.options.callTimeoutMs } : {}),
		});
		entry.resolve(
			reason === "deadline"
				? deadlineResult(entry.call.piName, this.options.callTimeoutMs)
				: reason === "closed"
					? closedResult(entry.call.piName)
					: cancelledResult(entry.call.piName),
		);
		this.pump();
	}

	/** Marks the entry settled and clears its bookkeeping; false when it already was. */
	private settle(entry: Entry): boolean {
		if (entry.state === "settled") return false;
		if (entry.state === "queued") {
			const index = this.queue.indexOf(entry);
			if (index >= 0) this.queue.splice(index, 1);
		}
		this.running.delete(entry);
		entry.state = "settled";
		if (entry.timer !== undefined) clearTimeout(entry.timer);
		entry.detach?.();
		return true;
	}

	private log(
		event: Extract<BridgeDebugEvent, `call_${string}`>,
		entry: Entry,
		extra: { reason?: string; isError?: boolean; timeoutMs?: number } = {},
	): void {
		this.debug({
			event,
			runId: this.options.runId,
			tool: entry.call.piName,
			mcpName: entry.call.mcpName,
			callId: entry.call.toolCallId,
			...(entry.mcpRequestId !== undefined ? { mcpRequestId: entry.mcpRequestId } : {}),
			pending: this.pending,
			queued: this.queued,
			...(event === "call_queued" || event === "call_started" ? {} : { durationMs: Date.now() - entry.startedAt }),
			...extra,
		});
	}
}

function text(message: string, isError: boolean): BridgeToolResult {
	return { content: [{ type: "text", text: message }], isError };
}

function deadlineResult(piName: string, timeoutMs: number): BridgeToolResult {
	return text(
		`Pi tool "${piName}" did not finish within ${formatDuration(timeoutMs)} and was stopped (PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS).`,
		true,
	);
}

function cancelledResult(piName: string): BridgeToolResult {
	return text(`Pi tool "${piName}" was cancelled.`, true);
}

function closedResult(piName: string): BridgeToolResult {
	return text(`Pi tool "${piName}" is no longer available: the Pi run that offered it has ended.`, true);
}

function handlerErrorResult(piName: string, error: unknown): BridgeToolResult {
	const message = error instanceof Error ? error.message : typeof error === "string" ? error : "unknown error";
	return text(`Pi tool "${piName}" failed: ${scrubText(message) || "unknown error"}`, true);
}

/** Keeps only well-formed text and image blocks; an empty result becomes one empty text block. */
function normalizeResult(result: BridgeToolResult | undefined): BridgeToolResult {
	const content: BridgeContent[] = [];
	for (const block of result?.content ?? []) {
		if (block?.type === "text" && typeof block.text === "string") content.push({ type: "text", text: block.text });
		else if (block?.type === "image" && typeof block.data === "string" && typeof block.mimeType === "string") {
			content.push({ type: "image", data: block.data, mimeType: block.mimeType });
		}
	}
	if (content.length === 0) content.push({ type: "text", text: "" });
	return { content, isError: result?.isError === true };
}

function formatDuration(ms: number): string {
	if (ms % 1000 !== 0) return `${ms} ms`;
	const seconds = ms / 1000;
	return seconds % 60 === 0 && seconds >= 60 ? `${seconds / 60} min` : `${seconds} s`;
}
