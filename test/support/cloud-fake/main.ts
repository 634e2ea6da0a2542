// Runs the cloud fake in its own process: `bun test/support/cloud-fake/main.ts`. Prints one JSON line
// {"url":"http://127.0.0.1:NNNN","pid":N} when ready; exits when stdin (a pipe) closes, or on SIGTERM / SIGINT.

import { stopWithParent } from "../processes.ts";
import { startCloudFakeServer } from "./server.ts";

const server = await startCloudFakeServer();

let stopping = false;
const stop = () => {
	if (stopping) return;
	stopping = true;
	setTimeout(() => process.exit(0), 1000).unref?.();
	server.close().then(() => process.exit(0));
};
stopWithParent(stop);

process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid })}\n`);
