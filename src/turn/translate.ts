import type {
	AssistantMessage,
	AssistantMessageEventStream,
	Model,
	ToolCall as PiToolCall,
	TextContent,
	ThinkingContent,
} from "@earendil-works/pi-ai";
import type { InteractionUpdate } from "../sdk/cursor-sdk.ts";
import type { CursorError } from "../sdk/errors.ts";
import type { UsageEstimateReason } from "../usage/estimate.ts";
import { type CursorTurnUsage, emptyUsage, trustedTurnUsage } from "./usage.ts";

const isRecord = (value: unknown): value is Record<string, unknown> =>
	typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The update as the stream may use it, or undefined for one it must ignore: not an object, no string `type`, a text
 * or thinking delta without string text, or a tool-call event without a call id (nothing could correlate it). The
 * SDK hands over whatever the backend sent; a malformed update must never end or garble the turn.
 */
export function wellFormedUpdate(update: unknown): InteractionUpdate | undefined {
	if (!isRecord(update) || typeof update.type !== "string") return undefined;
	switch (update.type) {
		case "text-delta":
		case "thinking-delta":
			return typeof update.text === "string" ? (update as unknown as InteractionUpdate) : undefined;
		case "tool-call-started":
		case "tool-call-completed":
			return typeof update.callId === "string" && update.callId !== ""
				? (update as unknown as InteractionUpdate)
				: undefined;
		case "turn-ended":
			return (isRecord(update.usage) ? update : { type: "turn-ended" }) as unknown as InteractionUpdate;
		default:
			return update as unknown as InteractionUpdate;
	}
}

/**
 * Translates a Cursor run's `onDelta` updates into one Pi assistant message's event stream. Text and thinking arrive
 * as balanced start/delta/end blocks; a tool call, a thinking/text switch or the end of the message closes the open
 * block. Cursor's tool calls themselves are the stream's business (they may end the message with `toolUse`).
 * Everything is synchronous: the SDK awaits callbacks one at a time, so a slow callback would slow the run.
 */
export class TurnTranslator {
	readonly message: AssistantMessage;
	private open: { block: TextContent | ThinkingContent; index: number } | undefined;
	private usage: CursorTurnUsage | undefined;
	private ended = false;
	/** Why the message's usage is an estimate (undefined: it is Cursor's report, mapped). */
	private estimate: UsageEstimateReason | undefined;
	private started = false;

	constructor(
		private readonly out: AssistantMessageEventStream,
		private readonly model: Model<string>,
		/** The prompt's tokens as estimated from Pi's context: the fallback when Cursor's report cannot be used. */
		private readonly promptTokens = 0,
	) {
		this.message = {
			role: "assistant",
			content: [],
			api: model.api,
			provider: model.provider,
			model: model.id,
			usage: emptyUsage(),
			stopReason: "stop",
			timestamp: Date.now(),
		};
	}

	get finished(): boolean {
		return this.ended;
	}

	/** The run's `turn-ended` usage exactly as the SDK reported it. */
	get rawUsage(): CursorTurnUsage | undefined {
		return this.usage;
	}

	/** Why the message's usage is an estimate, if it is one. */
	get usageEstimate(): UsageEstimateReason | undefined {
		return this.estimate;
	}

	/** Once per message: a send tried again on a recreated agent (src/turn/stream.ts) does not start it twice. */
	start(): void {
		if (this.started) return;
		this.started = true;
		this.out.push({ type: "start", partial: this.message });
	}

	update(update: InteractionUpdate): void {
		if (this.ended) return;
		switch (update.type) {
			case "text-delta":
				this.append("text", update.text);
				break;
			case "thinking-delta":
				this.append("thinking", update.text);
				break;
			case "thinking-completed":
				if (this.open?.block.type === "thinking") this.close();
				break;
			case "tool-call-started":
			case "tool-call-completed":
				this.close();
				break;
			case "turn-ended":
				if (update.usage) this.usage = update.usage;
				break;
		}
	}

	/** Whether the message shows any answer text. */
	private get hasText(): boolean {
		return this.message.content.some((c) => c.type === "text" && c.text.trim() !== "");
	}

	/** A line of Cursor activity (a tool without a card, a long-running tool), shown in the message's thinking. */
	note(line: string): void {
		if (this.ended) return;
		const open = this.open?.block;
		const sep = open?.type === "thinking" && open.thinking !== "" && !open.thinking.endsWith("\n") ? "\n" : "";
		this.append("thinking", `${sep}${line}\n`);
	}

	/** Ends the message with Cursor's tool calls: Pi shows them (our replay tools) and calls the provider again. */
	toolUse(blocks: readonly PiToolCall[]): void {
		if (this.ended) return;
		this.close();
		for (const block of blocks) {
			const index = this.message.content.push(block) - 1;
			this.out.push({ type: "toolcall_start", contentIndex: index, partial: this.message });
			this.out.push({
				type: "toolcall_delta",
				contentIndex: index,
				delta: JSON.stringify(block.arguments),
				partial: this.message,
			});
			this.out.push({ type: "toolcall_end", contentIndex: index, toolCall: block, partial: this.message });
		}
		this.applyUsage();
		this.ended = true;
		this.message.stopReason = "toolUse";
		this.out.push({ type: "done", reason: "toolUse", message: this.message });
		this.out.end(this.message);
	}

	private append(kind: "text" | "thinking", delta: string): void {
		if (!delta) return;
		if (this.open?.block.type !== kind) {
			this.close();
			const block: TextContent | ThinkingContent =
				kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "" };
			const index = this.message.content.push(block) - 1;
			this.open = { block, index };
			this.out.push({
				type: kind === "text" ? "text_start" : "thinking_start",
				contentIndex: index,
				partial: this.message,
			});
		}
		const { block, index } = this.open as { block: TextContent | ThinkingContent; index: number };
		if (block.type === "text") {
			block.text += delta;
			this.out.push({ type: "text_delta", contentIndex: index, delta, partial: this.message });
		} else {
			block.thinking += delta;
			this.out.push({ type: "thinking_delta", contentIndex: index, delta, partial: this.message });
		}
	}

	private close(): void {
		const open = this.open;
		if (!open) return;
		this.open = undefined;
		if (open.block.type === "text") {
			this.out.push({ type: "text_end", contentIndex: open.index, content: open.block.text, partial: this.message });
		} else {
			this.out.push({
				type: "thinking_end",
				contentIndex: open.index,
				content: open.block.thinking,
				partial: this.message,
			});
		}
	}

	/**
	 * Gives the message its usage from the run's `turn-ended` report (also before the terminal event), or an estimate
	 * when the report cannot be trusted; `ended` (a normal end) also estimates a missing report.
	 */
	applyUsage(ended = true): void {
		const trusted = trustedTurnUsage(this.usage, this.model, this.promptTokens, this.message, ended);
		this.message.usage = trusted.usage;
		this.estimate = trusted.estimated;
	}

	/** Ends the turn successfully. `finalText` (the run result) is shown only when no text streamed. */
	finish(finalText?: string): void {
		if (this.ended) return;
		if (!this.hasText && finalText?.trim()) this.append("text", finalText);
		this.close();
		this.applyUsage();
		this.ended = true;
		this.message.stopReason = "stop";
		this.out.push({ type: "done", reason: "stop", message: this.message });
		this.out.end(this.message);
	}

	/** Ends the turn with Pi's `error` (or `aborted`) event; partial content stays visible. */
	fail(error: CursorError | { kind: "aborted"; message: string }): void {
		if (this.ended) return;
		this.close();
		this.applyUsage(false);
		this.ended = true;
		const reason = error.kind === "aborted" ? "aborted" : "error";
		this.message.stopReason = reason;
		this.message.errorMessage = error.message;
		this.out.push({ type: "error", reason, error: this.message });
		this.out.end(this.message);
	}
}
