// What a finished cloud run reports about its work: the branch and pull request, as shown after the answer and as
// recorded in the journal. Pure.
import type { RunResult } from "../sdk/cursor-sdk.ts";
import type { GitRef } from "./records.ts";

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
