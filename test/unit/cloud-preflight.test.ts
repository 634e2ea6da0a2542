import { afterEach, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveCloudTarget } from "../../src/cloud/git.ts";
import { type CloudSettings, resolveCloudSettings } from "../../src/cloud/options.ts";
import {
	LIST_LIMIT,
	localWorkProblem,
	originRepository,
	parseRemotes,
	parseStatus,
	targetRemote,
} from "../../src/cloud/preflight.ts";

const REPO = "https://github.com/acme/app";

describe("git output", () => {
	test("remotes: fetch URLs, one per remote", () => {
		const out = [
			"origin\tgit@github.com:acme/app.git (fetch)",
			"origin\tgit@github.com:acme/app.git (push)",
			"fork\thttps://github.com/me/app (fetch)",
			"fork\thttps://github.com/me/app (push)",
		].join("\n");
		expect(parseRemotes(out)).toEqual([
			{ name: "origin", url: "git@github.com:acme/app.git" },
			{ name: "fork", url: "https://github.com/me/app" },
		]);
	});

	test("status -z: one entry per path, a rename's original path left out, odd names kept", () => {
		const out = " M src/a.ts\0R  new name.ts\0old name.ts\0?? line\nbreak.txt\0";
		expect(parseStatus(out)).toEqual([" M src/a.ts", "R  new name.ts", "?? line\nbreak.txt"]);
	});

	test("the target is the remote whose URL, in HTTPS form, is the target repository", () => {
		const remotes = [
			{ name: "origin", url: "git@github.com:acme/app.git" },
			{ name: "fork", url: "https://github.com/me/app" },
		];
		expect(originRepository(remotes)).toEqual({ ok: true, url: REPO });
		expect(targetRemote(remotes, "https://github.com/me/app")?.name).toBe("fork");
		expect(targetRemote(remotes, "https://github.com/acme/other")).toBeUndefined();
		expect(originRepository([{ name: "fork", url: REPO }])).toBeUndefined();
		expect(originRepository([{ name: "origin", url: "/srv/git/app" }])).toMatchObject({ ok: false });
	});
});

describe("what a cloud agent would not see", () => {
	test("nothing: no problem", () => {
		expect(localWorkProblem({ changes: [], unpushed: [], unpushedCount: 0 })).toBeUndefined();
	});

	test("uncommitted changes and unpushed commits are listed, bounded, control characters shown as ?", () => {
		const changes = Array.from({ length: LIST_LIMIT + 3 }, (_, i) => ` M file-${i}.ts`);
		const message = localWorkProblem({ changes, unpushed: ["abc1234 Fix\u001b[31m it"], unpushedCount: 40 }) ?? "";
		expect(message).toContain("  uncommitted:  M file-0.ts");
		expect(message).not.toContain(`file-${LIST_LIMIT}.ts`);
		expect(message).toContain("… and 3 more uncommitted");
		expect(message).toContain("  not pushed: abc1234 Fix?[31m it");
		expect(message).toContain("… and 39 more not pushed");
		expect(message).toContain("--cursor-cloud-allow-local-state (PI_CURSOR_CLOUD_ALLOW_LOCAL_STATE=1)");
	});
});

describe("the cloud target of a workspace (real git)", () => {
	const dirs: string[] = [];
	afterEach(() => {
		for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
	});

	const git = (cwd: string, ...args: string[]) =>
		execFileSync("git", args, {
			cwd,
			env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
			encoding: "utf8",
			stdio: ["ignore", "pipe", "ignore"],
		});

	/** A clone of a local bare "remote", with its origin URL set to `originUrl`. */
	function workspace(originUrl = "git@github.com:acme/app.git"): string {
		const root = mkdtempSync(join(tmpdir(), "cloud-preflight-"));
		dirs.push(root);
		const remote = join(root, "remote.git");
		const work = join(root, "work");
		git(root, "init", "--bare", "-q", "-b", "main", remote);
		git(root, "clone", "-q", remote, work);
		git(work, "config", "user.email", "t@example.com");
		git(work, "config", "user.name", "T");
		writeFileSync(join(work, "a.txt"), "a\n");
		git(work, "add", "a.txt");
		git(work, "commit", "-q", "-m", "first");
		git(work, "push", "-q", "origin", "main");
		git(work, "remote", "set-url", "origin", originUrl);
		return work;
	}

	const resolve = (overrides: Partial<CloudSettings>, cwd: string) => {
		const base = resolveCloudSettings({ env: {} });
		if (!base.ok) throw new Error("default settings");
		return resolveCloudTarget({ ...base.settings, ...overrides }, cwd);
	};

	test("a clean checkout: its origin is the target, in HTTPS form", async () => {
		expect(await resolve({}, workspace())).toEqual({ ok: true, repoUrl: REPO });
	});

	test("uncommitted changes and local commits fail the turn, listed; --cursor-cloud-allow-local-state lets it run", async () => {
		const work = workspace();
		writeFileSync(join(work, "a.txt"), "changed\n");
		writeFileSync(join(work, "new.txt"), "new\n");
		git(work, "commit", "-q", "-am", "local only");
		writeFileSync(join(work, "a.txt"), "changed again\n");
		const target = await resolve({}, work);
		expect(target.ok).toBe(false);
		if (target.ok) return;
		expect(target.message).toContain("uncommitted:  M a.txt");
		expect(target.message).toContain("uncommitted: ?? new.txt");
		expect(target.message).toMatch(/not pushed: [0-9a-f]{7,} local only/);
		expect(await resolve({ allowLocalState: true }, work)).toEqual({ ok: true, repoUrl: REPO });
	});

	test("an explicit repository that is not this workspace's: no check; an origin Cursor cannot use fails closed", async () => {
		const work = workspace();
		writeFileSync(join(work, "dirty.txt"), "x\n");
		expect(
			await resolve({ repo: { kind: "explicit", url: "https://github.com/acme/other", setting: "x" } }, work),
		).toEqual({
			ok: true,
			repoUrl: "https://github.com/acme/other",
		});
		const local = workspace("/srv/git/app.git");
		expect(await resolve({}, local)).toEqual({
			ok: false,
			message: expect.stringContaining('The git remote "origin"'),
		});
	});

	test("not a git checkout: an agent without a repository", async () => {
		const dir = mkdtempSync(join(tmpdir(), "cloud-preflight-plain-"));
		dirs.push(dir);
		expect(await resolve({}, dir)).toEqual({ ok: true, repoUrl: undefined });
	});
});
