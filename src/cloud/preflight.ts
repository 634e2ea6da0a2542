// The git preflight of a cloud turn, pure: which remote is the target, and what of the workspace a cloud agent
// would not see (it clones the repository as it is on its remote). The git commands live in git.ts.

import { CLOUD_ENV, CLOUD_FLAGS } from "./options.ts";
import { type RepoUrlCheck, remoteToHttps, sameRepository } from "./repo-url.ts";

export interface GitRemote {
	name: string;
	url: string;
}

/** What a cloud agent would not see: uncommitted changes (`XY path`) and commits not on the remote (`sha subject`). */
export interface LocalWork {
	changes: string[];
	/** The first {@link LIST_LIMIT} commits not on the remote. */
	unpushed: string[];
	/** How many commits are not on the remote. */
	unpushedCount: number;
}

/** At most this many items of each kind are listed. */
export const LIST_LIMIT = 20;

/** `git remote -v` output → remotes (fetch URLs). */
export function parseRemotes(output: string): GitRemote[] {
	const remotes: GitRemote[] = [];
	for (const line of output.split("\n")) {
		const match = /^(\S+)\t(\S+) \(fetch\)$/.exec(line.trim());
		if (match?.[1] && match[2] && !remotes.some((r) => r.name === match[1])) {
			remotes.push({ name: match[1], url: match[2] });
		}
	}
	return remotes;
}

/** `git status --porcelain=v1 -z` output → `XY path` entries (a rename's original path is left out). */
export function parseStatus(output: string): string[] {
	const entries: string[] = [];
	const parts = output.split("\0");
	for (let i = 0; i < parts.length; i++) {
		const part = parts[i] ?? "";
		if (part.length < 4) continue;
		entries.push(part);
		if (part[0] === "R" || part[0] === "C") i++; // the next part is the original path
	}
	return entries;
}

/** The repository the workspace's `origin` remote names, in HTTPS form (undefined: there is no `origin`). */
export function originRepository(remotes: readonly GitRemote[]): RepoUrlCheck | undefined {
	const origin = remotes.find((r) => r.name === "origin");
	return origin ? remoteToHttps(origin.url, origin.name) : undefined;
}

/** The workspace remote that is the cloud target (undefined: the workspace is another repository). */
export function targetRemote(remotes: readonly GitRemote[], target: string): GitRemote | undefined {
	return remotes.find((remote) => {
		const https = remoteToHttps(remote.url, remote.name);
		return https.ok && sameRepository(https.url, target);
	});
}

/** Control characters out (file names and commit subjects are shown as text). */
function printable(text: string): string {
	return text.replace(/\p{Cc}/gu, "?");
}

function listed(label: string, items: readonly string[], total = items.length): string[] {
	const shown = items.slice(0, LIST_LIMIT);
	const lines = shown.map((item) => `  ${label}: ${printable(item)}`);
	if (total > shown.length) lines.push(`  … and ${total - shown.length} more ${label}`);
	return lines;
}

/** Undefined when the cloud agent would see everything; else the message that fails the turn. */
export function localWorkProblem(work: LocalWork): string | undefined {
	if (work.changes.length === 0 && work.unpushedCount === 0) return undefined;
	return [
		"Cursor Cloud starts from the target repository as it is on its remote, and this workspace has work it would not see:",
		...listed("uncommitted", work.changes),
		...listed("not pushed", work.unpushed, work.unpushedCount),
		`Commit and push it, or pass --${CLOUD_FLAGS.allowLocalState} (${CLOUD_ENV.allowLocalState}=1) to run without it.`,
	].join("\n");
}
