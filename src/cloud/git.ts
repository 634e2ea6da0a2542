// The cloud target and its git preflight: a thin adapter over `git` (read-only commands, bounded, no network);
// the rules are in preflight.ts. The target is the explicit repository, else the workspace's `origin` in HTTPS
// form, else none (an agent without a repository).
import { execFile } from "node:child_process";
import type { CloudSettings } from "./options.ts";
import {
	LIST_LIMIT,
	type LocalWork,
	localWorkProblem,
	originRepository,
	parseRemotes,
	parseStatus,
	targetRemote,
} from "./preflight.ts";

/** Runs `git <args>` in `cwd`; resolves its exit code (null: git could not run) and stdout. */
export type GitRunner = (args: string[], cwd: string) => Promise<{ code: number | null; stdout: string }>;

const GIT_TIMEOUT_MS = 10_000;

export const runGit: GitRunner = (args, cwd) =>
	new Promise((resolve) => {
		execFile(
			"git",
			args,
			{ cwd, timeout: GIT_TIMEOUT_MS, maxBuffer: 8 * 1024 * 1024, env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" } },
			(error, stdout) => {
				const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
				resolve({ code, stdout: String(stdout) });
			},
		);
	});

export type CloudTarget = { ok: true; repoUrl: string | undefined } | { ok: false; message: string };

async function localWork(cwd: string, remote: string, git: GitRunner): Promise<LocalWork | string> {
	const status = await git(["status", "--porcelain=v1", "-z", "--untracked-files=normal"], cwd);
	if (status.code !== 0) return "git status failed";
	const notOnRemote = ["HEAD", "--not", `--remotes=${remote}`];
	const count = await git(["rev-list", "--count", ...notOnRemote], cwd);
	// An unborn HEAD (no commit yet) has nothing to push.
	const unpushedCount = count.code === 0 ? Number.parseInt(count.stdout.trim(), 10) || 0 : 0;
	const log =
		unpushedCount > 0
			? await git(["log", `--max-count=${LIST_LIMIT}`, "--format=%h %s", ...notOnRemote, "--"], cwd)
			: { code: 0, stdout: "" };
	return {
		changes: parseStatus(status.stdout),
		unpushed: log.stdout.split("\n").filter((line) => line.trim() !== ""),
		unpushedCount,
	};
}

/**
 * Resolves the repository of a cloud turn and, unless `allowLocalState`, fails it when the workspace is that
 * repository and has uncommitted changes or commits not on its remote.
 */
export async function resolveCloudTarget(
	settings: CloudSettings,
	cwd: string,
	git: GitRunner = runGit,
): Promise<CloudTarget> {
	const remotesOut = await git(["remote", "-v"], cwd);
	const remotes = remotesOut.code === 0 ? parseRemotes(remotesOut.stdout) : [];
	let repoUrl: string | undefined;
	if (settings.repo.kind === "explicit") repoUrl = settings.repo.url;
	else {
		const origin = originRepository(remotes);
		if (origin && !origin.ok) return { ok: false, message: origin.message };
		repoUrl = origin?.url;
	}
	if (repoUrl === undefined || settings.allowLocalState) return { ok: true, repoUrl };
	const remote = targetRemote(remotes, repoUrl);
	if (!remote) return { ok: true, repoUrl };
	const work = await localWork(cwd, remote.name, git);
	if (typeof work === "string") {
		return {
			ok: false,
			message: `Could not check this workspace's git state for Cursor Cloud (${work}). Fix the repository, or pass --cursor-cloud-allow-local-state to run without the check.`,
		};
	}
	const problem = localWorkProblem(work);
	return problem ? { ok: false, message: problem } : { ok: true, repoUrl };
}
