import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { checkRepositoryUrl, remoteToHttps, sameRepository } from "../../src/cloud/repo-url.ts";

const FLAG = "--cursor-cloud-repo";

describe("repository URLs given by the user", () => {
	test.each([
		["https://github.com/acme/app", "https://github.com/acme/app"],
		["https://github.com/acme/app.git", "https://github.com/acme/app"],
		["https://GitHub.com/acme/app/", "https://github.com/acme/app"],
		["https://git.example.com:8443/group/sub/app", "https://git.example.com:8443/group/sub/app"],
		["https://github.com/%61cme/app.git", "https://github.com/acme/app"],
		["https://github.com/acme/.github", "https://github.com/acme/.github"],
	])("%s is accepted as %s", (raw, url) => {
		expect(checkRepositoryUrl(raw, FLAG)).toEqual({ ok: true, url });
	});

	test.each([
		["http://github.com/acme/app", "uses http: instead of https:"],
		["git@github.com:acme/app.git", "is not an https:// URL (SSH and scp-style addresses are not accepted)"],
		["ssh://git@github.com/acme/app", "uses ssh: instead of https:"],
		["https://user:s3cret@github.com/acme/app", "contains a user name or password"],
		["https://tok3n@github.com/acme/app", "contains a user name or password"],
		["https://@github.com/acme/app", "contains a user name or password"],
		["https://github.com/acme/app?token=abc", "contains a query string"],
		["https://github.com/acme/app?", "contains a query string"],
		["https://github.com/acme/app#frag", "contains a fragment"],
		["https://github.com/acme/app#", "contains a fragment"],
		["https://github.com", "names no repository path"],
		["https:github.com/acme/app", "is not an https:// URL"],
		["https://github.com/acme/my app", "contains spaces or control characters"],
		// The path, decoded, must be plain owner/repository segments: never resolved into another repository.
		["https://github.com/a/%2e%2e/repo.git", "contains a . or .. path segment"],
		["https://github.com/a/%2E%2e/%2e%2E/repo", "contains a . or .. path segment"],
		["https://github.com/acme/./app", "contains a . or .. path segment"],
		["https://github.com/acme/%2e%2e%2fother", "has a path that is not plain owner/repository segments"],
		["https://github.com/acme/app%5c..%5cother", "contains a backslash"],
		["https://github.com/acme\\app", "contains a backslash"],
		["https://github.com/acme/app%0a", "contains spaces or control characters"],
		["https://github.com/acme/my%20app", "contains spaces or control characters"],
		["https://github.com/acme/app%zz", "has a badly encoded path"],
		["https://github.com/acme//app", "has a path that is not plain owner/repository segments"],
		["https://github.com/app.git", "has a path that is not plain owner/repository segments"],
		["https://github.com/acme/.git", "names no repository path"],
		["https:///acme/app", "has no host"],
		["", "is empty"],
	])("%s is refused: %s", (raw, why) => {
		const check = checkRepositoryUrl(raw, FLAG);
		expect(check).toEqual({ ok: false, message: expect.stringContaining(`${FLAG} ${why}.`) });
	});

	const secret = fc.stringMatching(/^[A-Za-z0-9]{12,24}$/);
	const host = fc.constantFrom("github.com", "gitlab.example.org", "git.corp:8443");
	const path = fc.constantFrom("/acme/app", "/acme/app.git", "/g/s/repo");

	test("a refused URL is never repeated in the message, whatever it carries", () => {
		const withSecret = fc.oneof(
			fc.tuple(secret, host, path).map(([s, h, p]) => `https://${s}@${h}${p}`),
			fc.tuple(secret, secret, host, path).map(([u, s, h, p]) => `https://${u}:${s}@${h}${p}`),
			fc.tuple(host, path, secret).map(([h, p, s]) => `https://${h}${p}?access_token=${s}`),
			fc.tuple(host, path, secret).map(([h, p, s]) => `https://${h}${p}#${s}`),
			fc.tuple(secret, host, path).map(([s, h, p]) => `http://x:${s}@${h}${p}`),
			fc.tuple(secret, host).map(([s, h]) => `git@${h}:${s}/app.git`),
		);
		fc.assert(
			fc.property(withSecret, (raw) => {
				const check = checkRepositoryUrl(raw, FLAG);
				expect(check.ok).toBe(false);
				if (check.ok) return;
				expect(check.message).not.toContain(raw);
				for (const part of raw.split(/[/:@?#]/).filter((p) => p.length >= 12))
					expect(check.message).not.toContain(part);
			}),
		);
	});

	test("anything accepted is plain https://host/path, and accepting its result again changes nothing", () => {
		fc.assert(
			fc.property(fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true, withFragments: true })), (raw) => {
				const check = checkRepositoryUrl(raw, FLAG);
				if (!check.ok) {
					expect(check.message.startsWith(`${FLAG} `)).toBe(true);
					return;
				}
				const url = new URL(check.url);
				expect(url.protocol).toBe("https:");
				expect(url.username + url.password + url.search + url.hash).toBe("");
				expect(check.url).not.toMatch(/(\/|\.git)$/);
				expect(checkRepositoryUrl(check.url, FLAG)).toEqual(check);
			}),
		);
	});
});

describe("git remotes in HTTPS form", () => {
	test.each([
		["git@github.com:acme/app.git", "https://github.com/acme/app"],
		["github.com:acme/app", "https://github.com/acme/app"],
		["ssh://git@github.com/acme/app.git", "https://github.com/acme/app"],
		["ssh://git@github.com:2222/acme/app.git", "https://github.com/acme/app"],
		["git+ssh://git@github.com/acme/app", "https://github.com/acme/app"],
		["git://github.com/acme/app.git", "https://github.com/acme/app"],
		["https://github.com/acme/app.git", "https://github.com/acme/app"],
		["https://x-access-token:ghp_abcdefghijklmnop@github.com/acme/app.git", "https://github.com/acme/app"],
		["https://git.corp:8443/acme/app", "https://git.corp:8443/acme/app"],
	])("%s → %s", (remote, url) => {
		expect(remoteToHttps(remote, "origin")).toEqual({ ok: true, url });
	});

	test.each([
		["http://github.com/acme/app.git", "uses http:"],
		["/home/me/repos/app", "is not a network repository"],
		["../app", "is not a network repository"],
		["file:///home/me/app", "is not a network repository"],
		["C:\\repos\\app", "is not a network repository"],
		["https://github.com/acme/app.git?ref=tok3nvalue", "has a query or fragment"],
		["git@github.com:acme/app?tok3nvalue", "has an unusable URL"],
		["ssh://git@github.com/acme/x/%2e%2e/app.git", "has an unusable URL"],
		["git@github.com:acme/../other.git", "has an unusable URL"],
	])("%s is refused (%s), naming the remote only", (remote, why) => {
		const check = remoteToHttps(remote, "upstream");
		expect(check).toEqual({ ok: false, message: expect.stringContaining(`The git remote "upstream" ${why}`) });
		if (!check.ok) expect(check.message).not.toContain(remote);
	});

	test("the same repository is recognised in any spelling of its URL", () => {
		const a = remoteToHttps("git@GitHub.com:Acme/App.git", "origin");
		const b = checkRepositoryUrl("https://github.com/acme/app/", FLAG);
		expect(a.ok && b.ok && sameRepository(a.url, b.url)).toBe(true);
		const c = checkRepositoryUrl("https://github.com/acme/other", FLAG);
		expect(a.ok && c.ok && sameRepository(a.url, c.url)).toBe(false);
	});
});
