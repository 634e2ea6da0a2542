// One copy of Pi: with our bundle loaded, the host's own Pi modules serve the extension. Watched from outside with
// strace: the files a Pi process opens must include no unbundled Pi library (`@earendil-works/*` or `@mariozechner/*`
// outside the host's own bundle) and no `typebox` file, whether the bundle sits in the checkout (Pi's packages
// installed beside it, as for `npm start` and `pi install git:`) or in an installed package with nothing beside it.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HomeRegistry, type PiHost, parseModelTable, piHosts, runPi } from "../support/pi.ts";
import { BUNDLE, REPO_ROOT } from "../support/toolchain.ts";

const homes = new HomeRegistry();
afterAll(() => homes.removeAll());

const LAYOUTS = { checkout: join(REPO_ROOT, "dist", "index.js"), installed: BUNDLE };

/** Files a process tree opened successfully, from an strace `-e trace=openat` log. */
function openedFiles(log: string): string[] {
	const files: string[] = [];
	for (const line of log.split("\n")) {
		const match = /openat\([^,]+, "([^"]+)",.*\) = \d+$/.exec(line);
		if (match?.[1]) files.push(match[1]);
	}
	return files;
}

/** Pi's libraries and TypeBox, as module files on disk. */
const PI_MODULE = /\/node_modules\/(@earendil-works|@mariozechner|typebox|@sinclair\/typebox)\/.*\.(c|m)?js$/;

/** The host's own bundle, whose lazily loaded chunks (the extension loader among them) belong to the one copy. */
const HOST_BUNDLE = /\/pi-coding-agent\/dist\/bundle\//;

/** Pi or TypeBox module files opened with our bundle that are neither the host's bundle nor opened by the host alone. */
function secondPiFiles(withBundle: string[], hostAlone: string[]): string[] {
	const host = new Set(hostAlone);
	const second = withBundle.filter((file) => PI_MODULE.test(file) && !HOST_BUNDLE.test(file) && !host.has(file));
	return [...new Set(second)];
}

test("the comparison flags Pi's libraries opened only because of the extension", () => {
	const host = ["/p/node_modules/@earendil-works/chord/dist/index.js"];
	const ours = [
		...host,
		"/p/node_modules/@earendil-works/pi-coding-agent/dist/bundle/chunks/virtual-modules-1.js",
		"/p/node_modules/@cursor/sdk/dist/esm/index.js",
		"/p/node_modules/@earendil-works/pi-coding-agent/package.json",
	];
	expect(secondPiFiles(ours, host)).toEqual([]);
	const second = [
		"/p/node_modules/@earendil-works/pi-coding-agent/dist/index.js",
		"/p/node_modules/typebox/build/index.mjs",
	];
	expect(secondPiFiles([...ours, ...second], host)).toEqual(second);
});

function traced(host: PiHost, log: string): PiHost {
	return { name: host.name, command: ["strace", "-f", "-qq", "-e", "trace=openat", "-o", log, ...host.command] };
}

/** `pi --list-models cursor` under strace: the files it opened, and how many cursor rows it listed. */
async function tracedListModels(host: PiHost, extensions: string[]): Promise<{ files: string[]; rows: number }> {
	const home = homes.create();
	const log = join(home.tmp, "openat.log");
	const result = await runPi(["--list-models", "cursor"], { host: traced(host, log), home, extensions });
	expect(result.stderr).not.toContain("Failed to load extension");
	expect(result.code).toBe(0);
	return { files: openedFiles(readFileSync(log, "utf8")), rows: parseModelTable(result.stdout).length };
}

for (const host of piHosts()) {
	describe(host.name, () => {
		let hostAlone: string[] = [];
		test("the host alone (baseline)", async () => {
			hostAlone = (await tracedListModels(host, [])).files;
			expect(hostAlone.some((file) => PI_MODULE.test(file)) || host.name.startsWith("compiled")).toBe(true);
		});
		for (const [layout, bundle] of Object.entries(LAYOUTS)) {
			test(`${layout} layout: --list-models cursor loads no second copy of Pi's libraries`, async () => {
				const { files, rows } = await tracedListModels(host, [bundle]);
				expect(rows).toBeGreaterThan(100);
				expect(files).toContain(bundle);
				expect(secondPiFiles(files, hostAlone)).toEqual([]);
			});
		}
	});
}
