// Pi's `--list-models` calls process.exit(0) right after printing its table, one write per row. On a pipe or socket
// Node's stdout is non-blocking: when the reader is busy the writes that do not fit are queued, and the exit drops
// them (a piped `pi --list-models cursor` lost its last ~70 of ~240 rows). A blocking stdout makes every write
// complete before the next line of Pi runs. Files and terminals already block; a Pi without Node's handle (a
// compiled binary) is left as it is.
import { fstatSync } from "node:fs";

interface StdioHandle {
	setBlocking?(blocking: boolean): number;
}

/** Makes `stream` (on file descriptor `fd`) block when it is a pipe or a socket; true when it now does. */
export function blockOnPipes(stream: NodeJS.WriteStream, fd: number): boolean {
	let kind: { isFIFO(): boolean; isSocket(): boolean };
	try {
		kind = fstatSync(fd);
	} catch {
		return false;
	}
	if (!kind.isFIFO() && !kind.isSocket()) return false;
	const handle = (stream as unknown as { _handle?: StdioHandle })._handle;
	if (typeof handle?.setBlocking !== "function") return false;
	return handle.setBlocking(true) === 0;
}
