// planSessionSend: does the next turn continue the pooled Cursor conversation (incremental) or start over (bootstrap)?
import type { Message } from "@earendil-works/pi-ai";
import { conversationFingerprint, instructionsFingerprint } from "./fingerprint.ts";

/** After this many incremental sends the agent is recreated, so Cursor's own context never drifts for long. */
export const MAX_INCREMENTAL_SENDS = 20;

/** What a pooled agent's conversation holds: the first `count` Pi messages (then Cursor's own reply). */
export interface ConversationCoverage {
	poolKey: string;
	count: number;
	fingerprint: string;
	instructions: string;
	incrementalSends: number;
}

export type SendPlan =
	| { kind: "incremental"; newMessages: Message[] }
	| { kind: "bootstrap"; reason: "new" | "pool-key" | "instructions" | "diverged" | "limit" };

/** How a conversation is fingerprinted: {@link conversationFingerprint}, or a pooled agent's incremental one. */
type Fingerprint = (messages: readonly Message[]) => string;

export function coverageOf(
	poolKey: string,
	messages: readonly Message[],
	incrementalSends: number,
	fingerprint: Fingerprint = conversationFingerprint,
): ConversationCoverage {
	return {
		poolKey,
		count: messages.length,
		fingerprint: fingerprint(messages),
		instructions: instructionsFingerprint(messages),
		incrementalSends,
	};
}

export function planSessionSend(
	coverage: ConversationCoverage | undefined,
	poolKey: string,
	messages: readonly Message[],
	fingerprint: Fingerprint = conversationFingerprint,
): SendPlan {
	if (!coverage) return { kind: "bootstrap", reason: "new" };
	if (coverage.poolKey !== poolKey) return { kind: "bootstrap", reason: "pool-key" };
	if (coverage.incrementalSends >= MAX_INCREMENTAL_SENDS) return { kind: "bootstrap", reason: "limit" };
	if (instructionsFingerprint(messages) !== coverage.instructions) return { kind: "bootstrap", reason: "instructions" };
	// Expected shape: the covered messages, Cursor's reply as Pi recorded it, then new input ending with a user message.
	const reply = messages[coverage.count];
	const newMessages = messages.slice(coverage.count + 1).filter((m) => m.role !== "system");
	if (
		messages.length <= coverage.count + 1 ||
		reply?.role !== "assistant" ||
		fingerprint(messages.slice(0, coverage.count)) !== coverage.fingerprint ||
		newMessages.at(-1)?.role !== "user"
	) {
		return { kind: "bootstrap", reason: "diverged" };
	}
	return { kind: "incremental", newMessages };
}
