// Where pooled SDK agents keep their conversation state.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface StoreLocation {
	dir: string;
	/** Temporary stores are removed when their agent is disposed. */
	temporary: boolean;
}

/** `<state root>/pi-sessions/<hash of the Pi session id>`: one store per persisted Pi session. */
export function sessionStoreDir(stateRoot: string, sessionId: string): string {
	const digest = createHash("sha256").update(sessionId).digest("hex").slice(0, 24);
	return join(stateRoot, "pi-sessions", digest);
}

export function persistentStore(dir: string): StoreLocation {
	mkdirSync(dir, { recursive: true, mode: 0o700 });
	return { dir, temporary: false };
}

export function temporaryStore(): StoreLocation {
	return { dir: mkdtempSync(join(tmpdir(), "pi-cursor-sdk-store-")), temporary: true };
}

export function removeStore(store: StoreLocation): void {
	if (store.temporary) rmSync(store.dir, { recursive: true, force: true });
}
