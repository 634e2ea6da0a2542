// The state root of the per-session Cursor stores: which setting wins, and which directories are safe to use.
import { afterAll, describe, expect, test } from "bun:test";
import {
	chmodSync,
	chownSync,
	lchownSync,
	mkdirSync,
	mkdtempSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chooseStoreRoot, pathTextProblem, prepareStoreRoot, unsafeRootMessage } from "../../src/session/store-root.ts";
import { readEnv } from "../../src/settings/env.ts";

const scratch = mkdtempSync(join(tmpdir(), "store-root-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const uid = process.getuid?.() ?? -1;
/** Another user's id for ownership cases: as root we can hand files to it; otherwise we pretend to be it. */
const OTHER_UID = 4242;

describe("chooseStoreRoot", () => {
	test("PI_CURSOR_SDK_STATE_ROOT > user local.storeRoot > SDK default; blank values do not count", () => {
		expect(chooseStoreRoot(readEnv({ PI_CURSOR_SDK_STATE_ROOT: " /env/root " }), "/user/root")).toEqual({
			kind: "custom",
			path: "/env/root",
			source: "env",
		});
		expect(chooseStoreRoot(readEnv({ PI_CURSOR_SDK_STATE_ROOT: "  " }), "/user/root")).toEqual({
			kind: "custom",
			path: "/user/root",
			source: "user",
		});
		expect(chooseStoreRoot(readEnv({}), "")).toEqual({ kind: "default" });
	});

	test("an invalid winner is kept (it fails the turn later), never replaced by the next setting", () => {
		expect(chooseStoreRoot(readEnv({ PI_CURSOR_SDK_STATE_ROOT: "relative/dir" }), "/user/root")).toMatchObject({
			path: "relative/dir",
			source: "env",
		});
	});
});

describe("pathTextProblem", () => {
	test("absolute, non-root paths without dot components or variables are fine", () => {
		expect(pathTextProblem("/var/lib/cursor-state")).toBeUndefined();
		expect(pathTextProblem("/a/b/")).toBeUndefined();
	});
	test.each([
		["relative/dir", "absolute"],
		["./x", "absolute"],
		["/a/../b", ". or .."],
		["/a/./b", ". or .."],
		["/", "filesystem root"],
		["//", "filesystem root"],
		["~/state", "variable or ~"],
		["$HOME/state", "variable or ~"],
		["/x/%USERNAME%/state", "variable or ~"],
	])("%p is refused (%s)", (path, why) => {
		expect(pathTextProblem(path)).toContain(why);
	});
});

describe("prepareStoreRoot", () => {
	test("creates missing folders one by one, each 0700, and returns the normalized root", () => {
		const base = join(scratch, "fresh");
		mkdirSync(base, { mode: 0o700 });
		const result = prepareStoreRoot(`${base}/a//b/`);
		expect(result).toEqual({ ok: true, root: join(base, "a", "b") });
		expect(statSync(join(base, "a")).mode & 0o777).toBe(0o700);
		expect(statSync(join(base, "a", "b")).mode & 0o777).toBe(0o700);
		expect(prepareStoreRoot(join(base, "a", "b"))).toEqual(result); // idempotent
	});

	test("a group- or world-writable component is refused, naming it", () => {
		for (const mode of [0o770, 0o707]) {
			const dir = join(scratch, `shared-${mode.toString(8)}`);
			mkdirSync(dir);
			chmodSync(dir, mode);
			const result = prepareStoreRoot(join(dir, "state"));
			expect(result.ok).toBe(false);
			if (!result.ok) {
				expect(result.problem).toContain(dir);
				expect(result.problem).toContain("writable by");
			}
		}
	});

	test("a component that is a file is refused", () => {
		const file = join(scratch, "plain-file");
		writeFileSync(file, "x");
		const result = prepareStoreRoot(join(file, "state"));
		expect(result).toMatchObject({ ok: false });
	});

	test("a symbolic link someone controls is refused", () => {
		const target = join(scratch, "link-target");
		mkdirSync(target, { mode: 0o700 });
		const link = join(scratch, "link");
		symlinkSync(target, link);
		// As root our own link is a "root-owned system alias": hand it to another user to make it user-controlled.
		if (uid === 0) lchownSync(link, OTHER_UID, OTHER_UID);
		const result = prepareStoreRoot(join(link, "state"));
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.problem).toContain("symbolic link");
	});

	test("a component owned by another user is refused", () => {
		const dir = join(scratch, "foreign");
		mkdirSync(dir, { mode: 0o755 });
		if (uid === 0) chownSync(dir, OTHER_UID, OTHER_UID);
		const result =
			uid === 0 ? prepareStoreRoot(join(dir, "state")) : prepareStoreRoot(join(dir, "state"), { uid: OTHER_UID });
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.problem).toContain("owned by another user");
	});

	test("text problems are reported before touching the disk", () => {
		expect(prepareStoreRoot("relative/x")).toEqual({ ok: false, problem: "it is not an absolute path" });
	});
});

describe("unsafeRootMessage", () => {
	test("names the setting, the problem and the fix", () => {
		const message = unsafeRootMessage(
			{ kind: "custom", path: "/srv/shared", source: "env" },
			"/srv/shared is writable by its group (mode 775)",
		);
		expect(message).toContain('PI_CURSOR_SDK_STATE_ROOT="/srv/shared"');
		expect(message).toContain("writable by its group");
		expect(message).toContain("unset PI_CURSOR_SDK_STATE_ROOT");
		expect(unsafeRootMessage({ kind: "custom", path: "x", source: "user" }, "p")).toContain("local.storeRoot");
	});
});
