// The branch a cloud agent starts from, checked the way `git check-ref-format --branch` would before any request:
// Cursor takes it as a branch name, so `refs/heads/x` means `x`, while tags, `HEAD` and ranges are refused.

export type StartingRefCheck = { ok: true; ref: string } | { ok: false; message: string };

/** Why `name` is not a valid branch name (undefined: it is). Git's rules, plus `HEAD` and other refs refused. */
function problemOf(name: string): string | undefined {
	if (name === "") return "is empty";
	if (name === "HEAD" || name === "@") return `names ${name}, not a branch`;
	if (name.startsWith("refs/")) return "names a ref that is not a branch (only refs/heads/<branch> is accepted)";
	if (name.startsWith("-")) return "starts with '-'";
	if (/[\p{Cc}\s]/u.test(name)) return "contains spaces or control characters";
	if (/[~^:?*[\\]/.test(name)) return "contains one of ~ ^ : ? * [ \\";
	if (name.includes("..")) return "contains '..' (a range, not a branch)";
	if (name.includes("@{")) return "contains '@{'";
	if (name.startsWith("/") || name.endsWith("/") || name.includes("//")) return "has an empty path component";
	if (name.endsWith(".")) return "ends with '.'";
	for (const component of name.split("/")) {
		if (component.startsWith(".")) return "has a component starting with '.'";
		if (component.endsWith(".lock")) return "has a component ending with '.lock'";
	}
	return undefined;
}

/** Accepts a starting branch from `setting`, as the plain branch name Cursor expects. */
export function checkStartingRef(raw: string, setting: string): StartingRefCheck {
	const name = raw.startsWith("refs/heads/") ? raw.slice("refs/heads/".length) : raw;
	const problem = problemOf(name);
	if (problem === undefined) return { ok: true, ref: name };
	return { ok: false, message: `${setting} is not a branch name: it ${problem}. Give a branch such as main.` };
}
