// The persisted session's store directory: where it is at session start, what a turn checks, and that a root
// change between turns moves the session to a new store (the pool then starts a new agent there).
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OWNER_FILE } from "../../src/session/cleanup.ts";
import { chooseStoreRoot } from "../../src/session/store-root.ts";
import { SessionStoreScope } from "../../src/session/store-scope.ts";
import { sessionStoreDir } from "../../src/session/stores.ts";
import { readEnv } from "../../src/settings/env.ts";

const scratch = mkdtempSync(join(tmpdir(), "store-scope-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const owner = { sessionId: "session-1", sessionFile: join(scratch, "session-1.jsonl") };
const sdkDefault = join(scratch, "sdk-default");

describe("SessionStoreScope", () => {
	test("fileless sessions have no store and need no root", () => {
		const scope = new SessionStoreScope();
		expect(scope.start(undefined, { kind: "default" }, () => sdkDefault)).toBeUndefined();
		expect(scope.forTurn(chooseStoreRoot(readEnv({ PI_CURSOR_SDK_STATE_ROOT: "relative" }), undefined))).toEqual({
			ok: true,
			storeDir: undefined,
			moved: false,
		});
	});

	test("a turn claims the store bound at start; a changed root moves it; an unsafe root fails", () => {
		const scope = new SessionStoreScope();
		const bound = scope.start(owner, { kind: "default" }, () => sdkDefault);
		expect(bound).toBe(sessionStoreDir(sdkDefault, owner.sessionId));
		expect(scope.forTurn(chooseStoreRoot(readEnv({}), undefined))).toEqual({ ok: true, storeDir: bound, moved: false });
		expect(readdirSync(bound as string)).toContain(OWNER_FILE);

		const custom = join(scratch, "custom-root");
		const moved = scope.forTurn(chooseStoreRoot(readEnv({}), custom));
		expect(moved).toEqual({ ok: true, storeDir: sessionStoreDir(custom, owner.sessionId), moved: true });
		expect(readdirSync(bound as string)).toEqual([OWNER_FILE]); // this process no longer holds the old store
		expect(scope.forTurn(chooseStoreRoot(readEnv({}), custom))).toMatchObject({ moved: false });

		const shared = join(scratch, "shared");
		mkdirSync(shared);
		chmodSync(shared, 0o777);
		const failed = scope.forTurn(chooseStoreRoot(readEnv({ PI_CURSOR_SDK_STATE_ROOT: shared }), custom));
		expect(failed.ok).toBe(false);
		if (!failed.ok) expect(failed.message).toContain("writable by");
		expect(existsSync(join(shared, "pi-sessions"))).toBe(false);
		scope.release();
	});
});
