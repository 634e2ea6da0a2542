// Runs the cloud fake in its own process: `bun test/support/cloud-fake/main.ts`. Prints one JSON line
// {"url":"http://127.0.0.1:NNNN","pid":N} when ready; exits when stdin (a pipe) closes, or on SIGTERM / SIGINT.

import { fstatSync } from "node:fs";
import { startCloudFakeServer } from "./server.ts";

const server = await startCloudFakeServer();

let stopping = false;
const stop = () => {
	if (stopping) return;
	stopping = true;
	setTimeout(() => process.exit(0), 1000).unref?.();
	server.close().then(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
// Exit with the parent: watch stdin only when it is a pipe or socket (a file, /dev/null or a TTY would end at once
// or never).
let stdinIsPipe = false;
try {
	const stat = fstatSync(0);
	stdinIsPipe = stat.isFIFO() || stat.isSocket();
} catch {
	// no stdin
}
if (stdinIsPipe) {
	for (const event of ["end", "close", "error"]) process.stdin.on(event, stop);
	process.stdin.resume();
}

process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid })}\n`);
