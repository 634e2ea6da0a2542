// Which repository a cloud agent works on. A URL the user gives must be plain HTTPS: no userinfo, query or fragment
// (they can hold a token), and a path of plain `owner/repository[.git]` segments once decoded (no dot segments,
// backslashes, spaces or control characters, encoded or not): a URL is never normalized into another repository.
// Messages name the rule that failed and never repeat the URL. The workspace's git remote is converted to that form
// (`git@host:o/r.git` → `https://host/o/r`), its own credentials dropped.

export type RepoUrlCheck = { ok: true; url: string } | { ok: false; message: string };

const FORM = "Use the form https://<host>/<owner>/<repo>";

/** Where a setting came from, for messages: `--cursor-cloud-repo`, `PI_CURSOR_CLOUD_REPO`, `cloud.repo`, … */
export type SettingName = string;

/** The canonical form sent to Cursor: lower-case host, the decoded plain path without trailing `/` or `.git`. */
function canonical(url: URL, segments: readonly string[]): string {
	return `https://${url.host.toLowerCase()}/${segments.join("/").replace(/\.git$/i, "")}`;
}

/** One plain path segment: letters, digits, `.`, `_`, `-`, `~`, but never `.` or `..` alone. */
const SEGMENT = /^[A-Za-z0-9._~-]+$/;

/**
 * The decoded segments of a URL's path as written (before any URL parser resolves dot segments or backslashes),
 * or why they are not plain `owner/repository[.git]` segments.
 */
function pathSegments(rawPath: string): { ok: true; segments: string[] } | { ok: false; problem: string } {
	const trimmed = rawPath.replace(/\/+$/, "");
	if (trimmed === "" || trimmed.replace(/\.git$/i, "") === "")
		return { ok: false, problem: "names no repository path" };
	const segments: string[] = [];
	for (const raw of trimmed.slice(1).split("/")) {
		let segment: string;
		try {
			segment = decodeURIComponent(raw);
		} catch {
			return { ok: false, problem: "has a badly encoded path" };
		}
		if (/[\s\p{Cc}]/u.test(segment)) return { ok: false, problem: "contains spaces or control characters" };
		if (segment.includes("\\")) return { ok: false, problem: "contains a backslash" };
		if (segment === "." || segment === "..") return { ok: false, problem: "contains a . or .. path segment" };
		if (segment === "" || !SEGMENT.test(segment))
			return { ok: false, problem: "has a path that is not plain owner/repository segments" };
		segments.push(segment);
	}
	if ((segments.at(-1) ?? "").replace(/\.git$/i, "") === "") return { ok: false, problem: "names no repository path" };
	if (segments.length < 2) return { ok: false, problem: "has a path that is not plain owner/repository segments" };
	return { ok: true, segments };
}

/** Why `raw` is not an acceptable repository URL, or its canonical form. Never includes `raw` itself. */
function examine(raw: string): { problem: string } | { url: string } {
	const problem = (why: string) => ({ problem: why });
	if (raw.trim() === "") return problem("is empty");
	if (/[\s\p{Cc}]/u.test(raw)) return problem("contains spaces or control characters");
	if (raw.includes("\\")) return problem("contains a backslash");
	const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1]?.toLowerCase();
	if (scheme === undefined) return problem("is not an https:// URL (SSH and scp-style addresses are not accepted)");
	if (scheme !== "https") return problem(`uses ${scheme}: instead of https:`);
	if (!raw.slice(scheme.length + 1).startsWith("//")) return problem("is not an https:// URL");
	const authority = raw.slice(scheme.length + 3).split(/[/?#]/, 1)[0] ?? "";
	if (authority.includes("@")) return problem("contains a user name or password");
	if (authority === "") return problem("has no host");
	if (raw.includes("?")) return problem("contains a query string");
	if (raw.includes("#")) return problem("contains a fragment");
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		return problem("is not a valid URL");
	}
	if (url.hostname === "") return problem("has no host");
	// The path exactly as written: the URL parser would resolve `%2e%2e` and friends into another repository.
	const path = pathSegments(raw.slice(scheme.length + 3 + authority.length));
	if (!path.ok) return problem(path.problem);
	return { url: canonical(url, path.segments) };
}

/** Accepts a repository URL given by the user (flag, environment, config), in canonical form. */
export function checkRepositoryUrl(raw: string, setting: SettingName): RepoUrlCheck {
	const result = examine(raw);
	if ("problem" in result)
		return {
			ok: false,
			message: `${setting} ${result.problem}. ${FORM} (the value is not shown: it may hold a token).`,
		};
	return { ok: true, url: result.url };
}

/**
 * The HTTPS form of a git remote URL: `git@host:o/r(.git)`, `ssh://[user@]host[:port]/o/r`, `git://host/o/r` and
 * `https://[user[:token]@]host/o/r(.git)` all become `https://host/o/r`. Anything else (http:, local paths,
 * file:, queries or fragments) is refused, naming the remote but never its URL.
 */
export function remoteToHttps(remoteUrl: string, remoteName: string): RepoUrlCheck {
	const refuse = (why: string): RepoUrlCheck => ({
		ok: false,
		message: `The git remote "${remoteName}" ${why}, so Cursor Cloud cannot use it. Set --cursor-cloud-repo (or PI_CURSOR_CLOUD_REPO) to the repository's HTTPS URL.`,
	});
	const raw = remoteUrl.trim();
	if (raw === "" || /[\s\p{Cc}]/u.test(raw)) return refuse("has an unusable URL");
	let host: string;
	let path: string;
	const scp = /^(?:[^@/:]+@)?([^/:]+):(?!\/\/)(.+)$/.exec(raw);
	const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]?.toLowerCase();
	if (scheme === undefined && scp && (scp[1]?.length ?? 0) > 1) {
		// scp-like `[user@]host:path` (a one-letter "host" is a Windows drive)
		host = scp[1] ?? "";
		path = `/${(scp[2] ?? "").replace(/^\/+/, "")}`;
	} else if (scheme === "ssh" || scheme === "git+ssh" || scheme === "git" || scheme === "https") {
		if (raw.includes("?") || raw.includes("#")) return refuse("has a query or fragment in its URL");
		let url: URL;
		try {
			url = new URL(raw.replace(/^[a-z+]+:/i, "https:"));
		} catch {
			return refuse("has an unusable URL");
		}
		// An SSH or git port says nothing about HTTPS; an HTTPS port is kept.
		host = scheme === "https" ? url.host : url.hostname;
		// The path as written (the URL parser would resolve dot segments); checked below like a user's URL.
		const authority = raw.slice(scheme.length + 3).split("/", 1)[0] ?? "";
		path = raw.slice(scheme.length + 3 + authority.length);
	} else if (scheme === "http") {
		return refuse("uses http: (not https:)");
	} else {
		return refuse("is not a network repository (a local path or an unsupported protocol)");
	}
	const candidate = `https://${host}${path}`;
	const check = checkRepositoryUrl(candidate, `The git remote "${remoteName}"`);
	return check.ok ? check : refuse("has an unusable URL");
}

/** Whether two canonical repository URLs name the same repository (host and path compared without case). */
export function sameRepository(a: string, b: string): boolean {
	return a.toLowerCase() === b.toLowerCase();
}
