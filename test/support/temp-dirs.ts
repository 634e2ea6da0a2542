// Scratch directories of one test file, removed after its last test.
import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** `const tempDir = tempDirs("pi-cursor-doctor-")`: each call makes a new directory under the system temp dir. */
export function tempDirs(prefix: string): () => string {
	const dirs: string[] = [];
	afterAll(() => {
		for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
	});
	return () => {
		const dir = mkdtempSync(join(tmpdir(), prefix));
		dirs.push(dir);
		return dir;
	};
}
