// stdout blocks on a pipe or socket (so that what Pi prints before process.exit reaches a busy reader), and is left
// as it is on files, terminals and hosts without Node's handle.
import { afterAll, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blockOnPipes } from "../../src/process/blocking-stdout.ts";

const dir = mkdtempSync(join(tmpdir(), "pi-cursor-stdout-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fakeStream(result = 0) {
	const calls: boolean[] = [];
	const setBlocking = (blocking: boolean) => {
		calls.push(blocking);
		return result;
	};
	const stream = { _handle: { setBlocking } } as unknown as NodeJS.WriteStream;
	return { stream, calls };
}

test("a pipe: set blocking", () => {
	const fifo = join(dir, "fifo");
	execFileSync("mkfifo", [fifo]);
	const fd = openSync(fifo, "r+"); // read-write: opening does not wait for the other end
	try {
		const { stream, calls } = fakeStream();
		expect(blockOnPipes(stream, fd)).toBe(true);
		expect(calls).toEqual([true]);
		expect(blockOnPipes(fakeStream(-22).stream, fd)).toBe(false);
		// A host without Node's stdio handle (a compiled Pi) is left alone.
		expect(blockOnPipes({} as NodeJS.WriteStream, fd)).toBe(false);
	} finally {
		closeSync(fd);
	}
});

test("a file or a closed descriptor: left as it is", () => {
	const fd = openSync(join(dir, "out.txt"), "w");
	const { stream, calls } = fakeStream();
	expect(blockOnPipes(stream, fd)).toBe(false);
	closeSync(fd);
	expect(blockOnPipes(stream, fd)).toBe(false);
	expect(calls).toEqual([]);
});
