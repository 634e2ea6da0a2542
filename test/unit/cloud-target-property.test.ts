// What a cloud agent is pointed at (repository URL, starting branch) is exactly what the user named, or refused
// before any request with a message that never repeats the value: generated URLs with dot segments, backslashes,
// spaces and control characters, raw or percent-encoded, and generated ref names against git's own rules.
import { afterAll, expect, test } from "bun:test";
import { checkRepositoryUrl } from "../../src/cloud/repo-url.ts";
import { checkStartingRef } from "../../src/cloud/starting-ref.ts";
import { fc, PropertyTarget } from "../support/property.ts";

const target = new PropertyTarget("cloud-targets");
afterAll(() => target.report());

const FLAG = "--cursor-cloud-repo";
const plainSegment = fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,11}$/);
/** Something that must never survive inside a path segment, in any spelling. */
const hostile = fc.constantFrom("..", ".", "\\", " ", "\n", "\u0000", "\t", "/../", "\u007f");
const encode = (text: string, mode: number): string => {
	if (mode === 0) return text;
	const bytes = [...new TextEncoder().encode(text)].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
	return mode === 1 ? bytes : bytes.toUpperCase();
};

test("a plain https://host/owner/repo[.git] is sent as itself; an encoded letter is decoded, never re-pathed", async () => {
	await target.check(
		fc.property(
			fc.array(plainSegment, { minLength: 2, maxLength: 4 }),
			fc.boolean(),
			fc.boolean(),
			(segs, git, slash) => {
				const raw = `https://github.com/${segs.join("/")}${git ? ".git" : ""}${slash ? "/" : ""}`;
				const check = checkRepositoryUrl(raw, FLAG);
				const last = (segs.at(-1) ?? "").replace(/\.git$/i, "");
				if (last === "") return expect(check.ok).toBe(false);
				expect(check).toEqual({ ok: true, url: `https://github.com/${segs.join("/")}`.replace(/\.git$/i, "") });
			},
		),
		800,
	);
});

test("a path with a dot segment, backslash, space or control character (raw or encoded) is refused unechoed", async () => {
	await target.check(
		fc.property(
			fc.array(plainSegment, { minLength: 2, maxLength: 3 }),
			hostile,
			fc.integer({ min: 0, max: 2 }),
			fc.nat(3),
			(segs, bad, mode, at) => {
				const parts = [...segs];
				const index = Math.min(at, parts.length);
				// A whole dot segment, or the hostile text inside a segment.
				const spliced = bad === "." || bad === ".." ? encode(bad, mode) : `${parts[index] ?? "x"}${encode(bad, mode)}`;
				parts.splice(index, bad === "." || bad === ".." ? 0 : 1, spliced);
				const raw = `https://github.com/${parts.join("/")}/repo.git`;
				const check = checkRepositoryUrl(raw, FLAG);
				expect(check.ok).toBe(false);
				if (!check.ok) {
					expect(check.message.startsWith(`${FLAG} `)).toBe(true);
					expect(check.message).not.toContain(raw);
					for (const segment of segs) if (segment.length >= 6) expect(check.message).not.toContain(segment);
				}
			},
		),
		1500,
	);
});

/** git check-ref-format --branch, written out from git's documented rules (an independent oracle). */
function gitAccepts(name: string): boolean {
	if (name === "" || name === "@" || name === "HEAD" || name.startsWith("-") || name.startsWith("refs/")) return false;
	if ([...name].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f || " ~^:?*[\\".includes(c)))
		return false;
	if (name.includes("..") || name.includes("@{") || name.includes("//")) return false;
	if (name.startsWith("/") || name.endsWith("/") || name.endsWith(".")) return false;
	return name.split("/").every((c) => !c.startsWith(".") && !c.endsWith(".lock"));
}

test("starting refs: exactly the names git accepts as branches; refs/heads/x is x; the rest is refused", async () => {
	const piece = fc.constantFrom("main", "feat", "x", ".", "..", "/", "-", "@", "{", "lock", ".lock", "~", "^", ":");
	const name = fc.oneof(
		fc.array(piece, { minLength: 1, maxLength: 5 }).map((p) => p.join("")),
		fc.string({ maxLength: 12 }),
		fc.constantFrom("HEAD", "refs/tags/v1", "a..b", "refs/heads/main", "refs/remotes/origin/main", "@", "main.lock"),
	);
	await target.check(
		fc.property(name, fc.boolean(), (raw, qualified) => {
			const given = qualified ? `refs/heads/${raw}` : raw;
			const check = checkStartingRef(given, "--cursor-cloud-branch");
			const branch = given.startsWith("refs/heads/") ? given.slice("refs/heads/".length) : given;
			expect(check.ok).toBe(gitAccepts(branch));
			if (check.ok) expect(check.ref).toBe(branch);
			else expect(check.message).toStartWith("--cursor-cloud-branch is not a branch name: it ");
		}),
		2000,
	);
});
