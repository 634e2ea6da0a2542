// How a cloud run's outcome reads in Pi: send and run failures classified like local ones, and the branch and pull
// request the run reports. Pure.
import type { RunResult } from "../sdk/cursor-sdk.ts";
import { type CursorError, classifyCursorError } from "../sdk/errors.ts";
import type { GitRef } from "./records.ts";

/** A busy agent (`409 agent_busy`) is not a transient fault: Pi's automatic retry should not hammer it. */
export function sendFailure(error: unknown, secrets: readonly string[]): CursorError {
	if ((error as { name?: unknown })?.name === "AgentBusyError") {
		return {
			kind: "backend",
			message:
				"This Cursor Cloud agent is still busy with an earlier run. Wait for it to finish (or stop it in the Cursor dashboard at https://cursor.com/agents), then retry.",
		};
	}
	return classifyCursorError(error, secrets);
}

/**
 * A run's error as the SDK reports it (`{message, code?}`, the `[code]` prefix taken off) → an error the shared
 * classification understands (the cloud API says `unauthorized` where the local transport says `unauthenticated`).
 */
export function runError(error: RunResult["error"]): Error {
	const code = error?.code;
	const message = error?.message ?? "Cursor Cloud run failed";
	const out = new Error(code ? `[${code}] ${message}` : message);
	if (code === "unauthorized" || code === "unauthenticated") out.name = "AuthenticationError";
	if (code === "rate_limited" || code === "resource_exhausted") out.name = "RateLimitError";
	return out;
}

/** The branch / pull request lines shown after the answer (control characters out, bounded). */
export function gitSummary(git: RunResult["git"]): string | undefined {
	const clean = (text: string) => text.replace(/\p{Cc}/gu, "").slice(0, 300);
	const lines = (git?.branches ?? []).flatMap((ref) => {
		const parts = [
			...(ref.branch ? [`branch ${clean(ref.branch)}`] : []),
			...(ref.prUrl ? [`pull request ${clean(ref.prUrl)}`] : []),
		];
		return parts.length > 0 ? [`Cursor Cloud: ${parts.join(" · ")}`] : [];
	});
	return lines.length > 0 ? lines.join("\n") : undefined;
}

export function gitRefs(git: RunResult["git"]): GitRef[] | undefined {
	const refs = (git?.branches ?? []).slice(0, 16).map((ref) => ({
		...(ref.repoUrl ? { repoUrl: ref.repoUrl } : {}),
		...(ref.branch ? { branch: ref.branch } : {}),
		...(ref.prUrl ? { prUrl: ref.prUrl } : {}),
	}));
	return refs.length > 0 ? refs : undefined;
}
