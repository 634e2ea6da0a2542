// The Pi tool-call id of a replayed Cursor call. It has a recognisable shape so a shadowed tool (e.g. `bash`) can
// tell "a Cursor replay whose record is gone" (fail closed) from "another provider's call" (run the built-in).
import { createHash } from "node:crypto";

export const REPLAY_ID_PREFIX = "cursor-replay-";
// Provider APIs accept tool-call ids of [A-Za-z0-9_-] and at most 64 characters; Pi keeps ids across providers.
const MAX_ID = 64;

/** The Pi tool-call id for Cursor's call id: stable, unique per call id, safe for every provider. */
export function replayToolCallId(callId: string): string {
	const clean = callId.replace(/[^A-Za-z0-9_-]/g, "_");
	const plain = `${REPLAY_ID_PREFIX}${clean}`;
	if (clean === callId && plain.length <= MAX_ID && clean !== "") return plain;
	// Sanitising or cutting could make two call ids collide: a digest of the original keeps them apart.
	const digest = createHash("sha256").update(callId).digest("hex").slice(0, 12);
	return `${REPLAY_ID_PREFIX}${clean.slice(0, MAX_ID - REPLAY_ID_PREFIX.length - 13)}-${digest}`;
}

/** Whether a Pi tool-call id was made by {@link replayToolCallId}. */
export function isReplayToolCallId(id: string): boolean {
	return id.startsWith(REPLAY_ID_PREFIX);
}
