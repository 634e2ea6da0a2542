// Resume handles: the session entry that lets a restarted Pi continue the same SDK conversation, and the rules for
// when a branch may use one.
import type { AgentRunState } from "../sdk/cursor-sdk.ts";
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

/** A branch's last resume handle, and whether Pi messages follow it (a turn the previous process did not finish). */
export interface ResumeCandidate {
	handle: ResumeHandle;
	/**
	 * A user message follows the handle: it was already on disk when this process started, so the previous process
	 * may have sent it to Cursor (a turn it never finished, e.g. it crashed mid-run). Resuming is then only safe when
	 * the SDK's store shows that nothing of that turn reached the agent's conversation ({@link mayResume}).
	 */
	interrupted: boolean;
}

/**
 * The last resume handle of a branch, and whether a user message follows it.
 *
 * With `allEntries` (every entry of the session, in append order) a handle is refused when its agent went on after
 * it on another branch (tree navigation back to an earlier turn): that SDK conversation holds turns this branch does
 * not have.
 */
export function resumeCandidateOf(
	branch: readonly unknown[],
	allEntries?: readonly unknown[],
): ResumeCandidate | undefined {
	let interrupted = false;
	for (let i = branch.length - 1; i >= 0; i--) {
		const entry = branch[i] as { type?: string; customType?: string; data?: unknown; message?: { role?: string } };
		if (entry?.type === "message" && entry.message?.role === "user") interrupted = true;
		if (entry?.type === "custom" && entry.customType === RESUME_ENTRY_TYPE) {
			if (!isResumeHandle(entry.data)) return undefined;
			if (allEntries && continuedElsewhere(entry, entry.data.agentId, allEntries)) return undefined;
			return { handle: entry.data, interrupted };
		}
	}
	return undefined;
}

/**
 * The resume handle of a branch: the last one, unless a user message follows it (see {@link ResumeCandidate}) or
 * its agent went on elsewhere.
 */
export function resumeHandleOf(branch: readonly unknown[], allEntries?: readonly unknown[]): ResumeHandle | undefined {
	const candidate = resumeCandidateOf(branch, allEntries);
	return candidate && !candidate.interrupted ? candidate.handle : undefined;
}

/**
 * Whether a branch may continue its handle's agent. Without an interrupted turn, always. With one (user messages
 * after the handle), only when the previous process was cut off inside that turn's run before Cursor's conversation
 * took anything of it: the run is still marked active, the agent's checkpoint is the one the run started from, and
 * no other live Pi process holds the session (it may own the run). Everything after the handle is then sent as new
 * input, exactly once. Any other state cannot say what the conversation holds: the caller starts a new agent with
 * the whole conversation.
 */
export function mayResume(
	candidate: ResumeCandidate,
	run: AgentRunState | undefined,
	heldByAnotherPi: boolean,
): boolean {
	if (!candidate.interrupted) return true;
	return run?.kind === "active" && !run.conversationAdvanced && !heldByAnotherPi;
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

/**
 * The handle a saved session may resume its local agent from, and whether a turn interrupted after it (no handle:
 * `--no-session`, or resuming is off).
 */
export function sessionResume(
	session: { getSessionFile(): string | undefined; getBranch(): readonly unknown[]; getEntries(): readonly unknown[] },
	enabled: boolean,
): { resume: ResumeHandle | undefined; interrupted: boolean } {
	const candidate =
		enabled && session.getSessionFile() ? resumeCandidateOf(session.getBranch(), session.getEntries()) : undefined;
	return { resume: candidate?.handle, interrupted: candidate?.interrupted ?? false };
}
