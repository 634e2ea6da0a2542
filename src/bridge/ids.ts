// Identifiers of one bridge run. The run id is random and unrelated to the endpoint's path token, so it can appear in
// tool-call ids, Pi's session and debug output without revealing anything about the endpoint.
import { randomBytes, randomUUID } from "node:crypto";

const TOOL_CALL_PREFIX = "cursor-pi-bridge-";
/** Pi and several model APIs cap tool-call ids at 64 characters. */
export const MAX_TOOL_CALL_ID_LENGTH = 64;

/** 32 lowercase hex characters (a random UUID without its dashes). */
export function newBridgeRunId(): string {
	return randomUUID().replaceAll("-", "");
}

/** The unguessable path segment of the endpoint (256 random bits, base64url). Never logged or stored. */
export function newPathToken(): string {
	return randomBytes(32).toString("base64url");
}

/** `cursor-pi-bridge-<run id>-t<n>`, for the n-th call (from 1) of a run. */
export function bridgeToolCallId(runId: string, n: number): string {
	if (!/^[0-9a-f]{32}$/.test(runId)) throw new Error("bridge run id must be 32 lowercase hex characters");
	if (!Number.isSafeInteger(n) || n < 1) throw new Error("bridge call number must be a positive integer");
	const id = `${TOOL_CALL_PREFIX}${runId}-t${n}`;
	if (id.length > MAX_TOOL_CALL_ID_LENGTH) throw new Error("bridge tool-call id would exceed 64 characters");
	return id;
}

/** True for ids made by `bridgeToolCallId` (any run). */
export function isBridgeToolCallId(id: string): boolean {
	return id.length <= MAX_TOOL_CALL_ID_LENGTH && /^cursor-pi-bridge-[0-9a-f]{32}-t[1-9][0-9]*$/.test(id);
}
