// What a turn reports about its SDK sends, for accounting and diagnostics (usage ledger, event capture, learned
// context windows, lineage). Every callback is optional and synchronous; an observer that throws is ignored, so
// observing can never fail a turn.
import type { Usage } from "@earendil-works/pi-ai";
import type { InteractionUpdate, ModelSelection } from "../sdk/cursor-sdk.ts";
import type { CursorErrorKind } from "../sdk/errors.ts";
import type { UsageEstimateReason } from "../usage/estimate.ts";
import type { CursorTurnUsage } from "./usage.ts";

export type SendOutcome = "finished" | "error" | "aborted";

export interface SendStarted {
	agentId: string;
	/** The SDK run id, once `send` returned a run (undefined when `send` itself failed). */
	runId: string | undefined;
	model: ModelSelection;
	/** `bootstrap` sends the full context to a new agent; `incremental` only what is new. */
	kind: "bootstrap" | "incremental" | "summary";
	startedAt: number;
}

export interface SendEnded extends Omit<SendStarted, "agentId"> {
	/** Undefined when the send failed before Cursor gave it an agent (creating the agent, the key exchange, …). */
	agentId: string | undefined;
	outcome: SendOutcome;
	/** `turn-ended` usage exactly as the SDK reported it (undefined when none arrived). */
	rawUsage: CursorTurnUsage | undefined;
	/** What Pi was given for this message. */
	mappedUsage: Usage | undefined;
	/** Why `mappedUsage` is an estimate from the prompt rather than Cursor's report (see src/usage/estimate.ts). */
	usageEstimate?: UsageEstimateReason;
	/** Scrubbed error message for `error` outcomes. */
	error?: string;
	/** The class of that error (network, auth, …). */
	errorKind?: CursorErrorKind;
	endedAt: number;
}

export interface TurnObserver {
	sendStarted?(send: SendStarted): void;
	/** Every SDK `onDelta` update, as received. */
	sdkUpdate?(send: SendStarted, update: InteractionUpdate, at: number): void;
	/** Every SDK `onStep` step, as received. */
	sdkStep?(send: SendStarted, step: unknown, at: number): void;
	sendEnded?(send: SendEnded): void;
}

/** Calls an observer callback, never letting it throw into the turn. */
export function notifyObserver<K extends keyof TurnObserver>(
	observer: TurnObserver | undefined,
	key: K,
	...args: Parameters<NonNullable<TurnObserver[K]>>
): void {
	const callback = observer?.[key] as ((...a: typeof args) => void) | undefined;
	if (!callback) return;
	try {
		callback.apply(observer, args);
	} catch {
		// observing must never fail a turn
	}
}
