// Resume handles: the session entry that lets a restarted Pi continue the same SDK conversation, and the rules for
// when a branch may use one.
import type { ConversationCoverage } from "./send-plan.ts";

export const RESUME_ENTRY_TYPE = "pi-cursor-sdk:resume";

/** Persisted in the Pi session after each completed turn, so a restarted Pi continues the same SDK conversation. */
export interface ResumeHandle {
	agentId: string;
	storeDir: string;
	coverage: ConversationCoverage;
}

function isResumeHandle(value: unknown): value is ResumeHandle {
	const v = value as Partial<ResumeHandle> | undefined;
	return (
		typeof v?.agentId === "string" && typeof v.storeDir === "string" && typeof v.coverage?.fingerprint === "string"
	);
}

/**
 * The resume handle of a branch: the last one, unless a user message follows it. Such a message was already on
 * disk when this process started, so the previous process may have sent it to Cursor: resuming could duplicate it.
 *
 * With `allEntries` (every entry of the session, in append order) a handle is also refused when its agent went on
 * after it on another branch (tree navigation back to an earlier turn): that SDK conversation holds turns this
 * branch does not have.
 */
export function resumeHandleOf(branch: readonly unknown[], allEntries?: readonly unknown[]): ResumeHandle | undefined {
	for (let i = branch.length - 1; i >= 0; i--) {
		const entry = branch[i] as { type?: string; customType?: string; data?: unknown; message?: { role?: string } };
		if (entry?.type === "message" && entry.message?.role === "user") return undefined;
		if (entry?.type === "custom" && entry.customType === RESUME_ENTRY_TYPE) {
			if (!isResumeHandle(entry.data)) return undefined;
			return allEntries && continuedElsewhere(entry, entry.data.agentId, allEntries) ? undefined : entry.data;
		}
	}
	return undefined;
}

/** Whether a later resume entry (anywhere in the session) records the same agent. */
function continuedElsewhere(handleEntry: object, agentId: string, allEntries: readonly unknown[]): boolean {
	const id = (handleEntry as { id?: unknown }).id;
	const at = allEntries.findIndex(
		(e) => e === handleEntry || (id !== undefined && (e as { id?: unknown } | null)?.id === id),
	);
	if (at < 0) return false;
	return allEntries.slice(at + 1).some((e) => {
		const later = e as { type?: string; customType?: string; data?: { agentId?: unknown } } | null;
		return later?.type === "custom" && later.customType === RESUME_ENTRY_TYPE && later.data?.agentId === agentId;
	});
}

/** The handle a saved session resumes its local agent from (undefined: `--no-session`, or resuming is off). */
export function sessionResumeHandle(
	session: { getSessionFile(): string | undefined; getBranch(): readonly unknown[]; getEntries(): readonly unknown[] },
	enabled: boolean,
): ResumeHandle | undefined {
	return enabled && session.getSessionFile() ? resumeHandleOf(session.getBranch(), session.getEntries()) : undefined;
}
