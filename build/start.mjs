// `npm start`: the pinned Pi (devDependency) on Node >= 22.19 with this checkout's freshly built extension.
// Extra arguments go to Pi: `npm start -- --model cursor/composer-2`.
import { spawn } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");
const child = spawn(process.execPath, [cli, "-e", join(root, "dist", "index.js"), ...process.argv.slice(2)], {
	stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
