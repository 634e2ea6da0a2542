// Which repository a cloud agent works on. A URL the user gives must be plain HTTPS: no userinfo, query or fragment
// (they can hold a token). Messages name the rule that failed and never repeat the URL. The workspace's git remote
// is converted to that form (`git@host:o/r.git` → `https://host/o/r`), its own credentials dropped.

export type RepoUrlCheck = { ok: true; url: string } | { ok: false; message: string };

const FORM = "Use the form https://<host>/<owner>/<repo>";

/** Where a setting came from, for messages: `--cursor-cloud-repo`, `PI_CURSOR_CLOUD_REPO`, `cloud.repo`, … */
export type SettingName = string;

/** The canonical form sent to Cursor: lower-case host, no trailing `/` or `.git`. */
function canonical(url: URL): string {
	const path = url.pathname.replace(/\/+$/, "").replace(/\.git$/i, "");
	return `https://${url.host.toLowerCase()}${path}`;
}

/** Why `raw` is not an acceptable repository URL (undefined: it is). Never includes `raw` itself. */
function problemOf(raw: string): string | undefined {
	if (raw.trim() === "") return "is empty";
	if (/[\s\p{Cc}]/u.test(raw)) return "contains spaces or control characters";
	const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1]?.toLowerCase();
	if (scheme === undefined) return "is not an https:// URL (SSH and scp-style addresses are not accepted)";
	if (scheme !== "https") return `uses ${scheme}: instead of https:`;
	if (!raw.slice(scheme.length + 1).startsWith("//")) return "is not an https:// URL";
	const authority = raw.slice(scheme.length + 3).split(/[/?#]/, 1)[0] ?? "";
	if (authority.includes("@")) return "contains a user name or password";
	if (raw.includes("?")) return "contains a query string";
	if (raw.includes("#")) return "contains a fragment";
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		return "is not a valid URL";
	}
	if (url.hostname === "") return "has no host";
	if (url.pathname.replace(/\/+$/, "").replace(/\.git$/i, "") === "") return "names no repository path";
	return undefined;
}

/** Accepts a repository URL given by the user (flag, environment, config), in canonical form. */
export function checkRepositoryUrl(raw: string, setting: SettingName): RepoUrlCheck {
	const problem = problemOf(raw);
	if (problem)
		return { ok: false, message: `${setting} ${problem}. ${FORM} (the value is not shown: it may hold a token).` };
	return { ok: true, url: canonical(new URL(raw)) };
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
		path = url.pathname;
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
