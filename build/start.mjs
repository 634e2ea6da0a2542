// `npm start`: the pinned Pi (devDependency) on Node >= 22.19 with this checkout's freshly built extension, loaded
// as a package so Pi lists it under the package name (see checkout-package.mjs). Pi works in the folder npm was
// started from (npm's INIT_CWD), so `cd <project> && npm --prefix <checkout> start` works on that project.
// Extra arguments go to Pi: `npm start -- --model cursor/composer-2`.
import { spawn } from "node:child_process";
import { PI_CLI, stageCheckoutPackage } from "./checkout-package.mjs";

const child = spawn(process.execPath, [PI_CLI, "-e", stageCheckoutPackage(), ...process.argv.slice(2)], {
	stdio: "inherit",
	cwd: process.env.INIT_CWD || process.cwd(),
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
