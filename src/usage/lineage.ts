// `cursor-sdk-agent-lineage`: a Pi custom entry naming each distinct local Cursor agent this Pi session sent to
// (once per agent, failed sends included). It is a record for people and tools, never used to resume anything.
// Entries copied into a fork or clone carry the donor's session id, so they do not count for the new session.

export const LINEAGE_ENTRY_TYPE = "cursor-sdk-agent-lineage";

export interface LineageData {
	sessionId: string;
	agentId: string;
	/** The Cursor model id (or alias) of the first send. */
	model: string;
	firstSendAt: number;
}

/** Agent ids this session already recorded (entries from any branch of the session, but only its own id). */
export function recordedAgents(entries: readonly unknown[], sessionId: string): Set<string> {
	const agents = new Set<string>();
	for (const entry of entries) {
		const e = entry as { type?: string; customType?: string; data?: Partial<LineageData> } | null;
		if (e?.type !== "custom" || e.customType !== LINEAGE_ENTRY_TYPE) continue;
		if (e.data?.sessionId === sessionId && typeof e.data.agentId === "string") agents.add(e.data.agentId);
	}
	return agents;
}
