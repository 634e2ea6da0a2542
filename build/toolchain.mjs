#!/usr/bin/env node
// The project's toolchain, obtained only from the npm registry and cached in `.toolchain/` (git-ignored).
// Runs on any Node >= 18 (machines here have Node 20; Pi needs Node >= 22.19).
//
//   node build/toolchain.mjs build                           build dist/index.js (also without devDependencies)
//   node build/toolchain.mjs --run <bun|node24|pi> [args…]   run a tool with the toolchain on PATH
//   node build/toolchain.mjs ensure <node24|bun|pi@<version>|pi-bin@<version>>   print the tool's absolute path

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { underDirLock } from "./dir-lock.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CACHE = join(ROOT, ".toolchain");
const NODE_MAJOR = 24;
const PI_DEV_VERSION = "1.6.0";
const exe = process.platform === "win32" ? ".exe" : "";
/** What build/bundle.ts inlines into dist/index.js: devDependencies, so that installing the package skips them. */
const BUNDLED = ["hono", "@hono/node-server", "@modelcontextprotocol/server", "@modelcontextprotocol/hono"];

function fail(message) {
	console.error(`toolchain: ${message}`);
	process.exit(1);
}

function nodeIsRecentEnough(version) {
	const [major, minor] = version.replace(/^v/, "").split(".").map(Number);
	return major > 22 || (major === 22 && minor >= 19);
}

/** A lock older than this is left over from a killed install (an install takes a minute or two). */
const STALE_LOCK_MS = 15 * 60_000;

/**
 * Runs `make` (which creates `.toolchain/<name>` and its `.complete` marker) unless the marker exists, holding the
 * lock `.toolchain/<name>.lock` meanwhile: test files running side by side each ask for the same tools, and only the
 * first installs them while the others wait for it.
 */
function once(name, make) {
	const marker = join(CACHE, name, ".complete");
	if (existsSync(marker)) return;
	mkdirSync(CACHE, { recursive: true });
	// `fail` exits the process from inside `make`: the lock goes with it.
	underDirLock(join(CACHE, `${name}.lock`), () => existsSync(marker), make, { pauseMs: 250, staleMs: STALE_LOCK_MS });
}

/** Installs `spec` into `.toolchain/<name>` once (npm registry only) and returns that prefix. */
function npmPrefix(name, specs) {
	const prefix = join(CACHE, name);
	once(name, () => installPrefix(prefix, specs));
	return prefix;
}

function installPrefix(prefix, specs) {
	const marker = join(prefix, ".complete");
	const name = prefix.slice(CACHE.length + 1);
	rmSync(prefix, { recursive: true, force: true });
	mkdirSync(prefix, { recursive: true });
	console.error(`toolchain: installing ${specs.join(" ")} into .toolchain/${name}`);
	const npm = process.platform === "win32" ? "npm.cmd" : "npm";
	const result = spawnSync(
		npm,
		["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", "--loglevel=error", ...specs],
		// npm's progress goes to stderr: our stdout is the tool path `ensure` prints.
		{ stdio: ["ignore", 2, 2], env: { ...process.env, npm_config_package_lock: "false" } },
	);
	if (result.status !== 0) fail(`npm install ${specs.join(" ")} failed`);
	mkdirSync(prefix, { recursive: true });
	spawnSync(process.execPath, ["-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "")`]);
}

function ensureNode24() {
	if (process.env.PI_CURSOR_NODE && existsSync(process.env.PI_CURSOR_NODE)) return process.env.PI_CURSOR_NODE;
	if (nodeIsRecentEnough(process.version)) return process.execPath;
	const pkg = `node-${process.platform}-${process.arch}`;
	const prefix = npmPrefix(`node${NODE_MAJOR}`, [`${pkg}@${NODE_MAJOR}`]);
	const bin = join(prefix, "node_modules", pkg, "bin", `node${exe}`);
	if (!existsSync(bin)) fail(`${pkg}@${NODE_MAJOR} installed but ${bin} is missing`);
	return bin;
}

/** The version of a devDependency, as package.json pins it. */
function devVersion(name) {
	const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
	const version = manifest.devDependencies?.[name];
	if (!version) fail(`package.json has no devDependency ${name}`);
	return version;
}

/** Bun's executable in a node_modules folder, if the `bun` package is installed there. */
function bunIn(modules) {
	const platform = `bun-${process.platform}-${process.arch === "arm64" ? "aarch64" : process.arch}`;
	const platformBin = join(modules, "@oven", platform, "bin", `bun${exe}`);
	if (existsSync(platformBin)) return platformBin;
	const wrapper = join(modules, "bun", "bin", `bun${exe === "" ? ".exe" : exe}`);
	return existsSync(wrapper) ? wrapper : undefined;
}

/**
 * The devDependency's Bun; without devDependencies (Pi's `npm install --omit=dev` of a git install) the same version
 * installed into `.toolchain/`.
 */
function ensureBun() {
	const own = bunIn(join(ROOT, "node_modules"));
	if (own) return own;
	const version = devVersion("bun");
	const bun = bunIn(join(npmPrefix(`bun-${version}`, [`bun@${version}`]), "node_modules"));
	if (!bun) fail(`bun@${version} installed but its executable for ${process.platform}-${process.arch} is missing`);
	return bun;
}

/**
 * Where Bun finds the packages the bundle inlines: the checkout's node_modules (undefined), or, without
 * devDependencies, the same versions installed into `.toolchain/` (the node_modules folder build/bundle.ts uses).
 */
function bundleInputs() {
	if (BUNDLED.every((name) => existsSync(join(ROOT, "node_modules", name, "package.json")))) return undefined;
	const specs = BUNDLED.map((name) => `${name}@${devVersion(name)}`);
	const id = createHash("sha256").update(specs.join(" ")).digest("hex").slice(0, 12);
	return join(npmPrefix(`bundle-inputs-${id}`, specs), "node_modules");
}

/** Pi's npm package at `version`: the project's own devDependency, or a cached install. */
function ensurePi(version) {
	const own = join(ROOT, "node_modules", "@earendil-works", "pi-coding-agent");
	if (version === PI_DEV_VERSION && existsSync(join(own, "package.json"))) return own;
	const prefix = npmPrefix(`pi-${version}`, [`@earendil-works/pi-coding-agent@${version}`]);
	return join(prefix, "node_modules", "@earendil-works", "pi-coding-agent");
}

/** A compiled (Bun) Pi binary built locally from Pi's npm package (the recipe Pi documents for compiled binaries). */
function ensurePiBinary(version) {
	const out = join(CACHE, `pi-bin-${version}`);
	once(`pi-bin-${version}`, () => compilePi(version, out));
	return join(out, `pi${exe}`);
}

function compilePi(version, out) {
	const bin = join(out, `pi${exe}`);
	const pkg = ensurePi(version);
	const modules = dirname(dirname(pkg));
	rmSync(out, { recursive: true, force: true });
	mkdirSync(out, { recursive: true });
	const entries = ["dist/bun/cli.js", "dist/utils/image-resize-worker.js", "dist/extensions/codemode/worker.js"].filter(
		(entry) => existsSync(join(pkg, entry)),
	);
	console.error(`toolchain: compiling Pi ${version} into .toolchain/pi-bin-${version}`);
	const result = spawnSync(
		ensureBun(),
		[
			"build",
			"--compile",
			"--no-compile-autoload-bunfig",
			"--no-compile-autoload-dotenv",
			"--compile-autoload-package-json",
			...entries.map((entry) => join(pkg, entry)),
			"--outfile",
			bin,
		],
		{ stdio: ["ignore", "ignore", "inherit"] },
	);
	if (result.status !== 0) fail(`bun build --compile of Pi ${version} failed`);
	for (const file of ["package.json", "README.md", "CHANGELOG.md", "docs", "examples"]) {
		if (existsSync(join(pkg, file))) cpSync(join(pkg, file), join(out, file), { recursive: true });
	}
	const photon = join(modules, "@silvia-odwyer", "photon-node", "photon_rs_bg.wasm");
	if (existsSync(photon)) cpSync(photon, join(out, "photon_rs_bg.wasm"));
	const copyMatching = (from, to, pattern) => {
		if (!existsSync(from)) return;
		mkdirSync(to, { recursive: true });
		for (const name of readdirSync(from)) if (pattern.test(name)) cpSync(join(from, name), join(to, name));
	};
	copyMatching(join(pkg, "dist/modes/interactive/theme"), join(out, "theme"), /\.json$/);
	copyMatching(join(pkg, "dist/modes/interactive/assets"), join(out, "assets"), /\.png$/);
	copyMatching(join(pkg, "dist/core/export-html"), join(out, "export-html"), /^template\./);
	copyMatching(join(pkg, "dist/core/export-html/vendor"), join(out, "export-html/vendor"), /\.js$/);
	spawnSync(process.execPath, ["-e", `require("fs").writeFileSync(${JSON.stringify(join(out, ".complete"))}, "")`]);
}

function ensure(tool) {
	if (tool === "node24") return ensureNode24();
	if (tool === "bun") return ensureBun();
	const match = /^(pi|pi-bin)@(\d+\.\d+\.\d+)$/.exec(tool);
	if (match?.[1] === "pi") return join(ensurePi(match[2]), "dist", "bundle", "cli.js");
	if (match?.[1] === "pi-bin") return ensurePiBinary(match[2]);
	fail(`unknown tool ${tool}`);
}

const [command, tool, ...args] = process.argv.slice(2);
if (command === "ensure" && tool) {
	console.log(ensure(tool));
} else if (command === "build") {
	const inputs = bundleInputs();
	const env = inputs ? { ...process.env, PI_CURSOR_BUNDLE_INPUTS: inputs } : process.env;
	const result = spawnSync(ensureBun(), [join(ROOT, "build", "bundle.ts")], { stdio: "inherit", env, cwd: ROOT });
	if (result.error) fail(`bun: ${result.error.message}`);
	process.exit(result.status ?? 1);
} else if (command === "--run" && tool) {
	const node24 = ensureNode24();
	const bun = ensureBun();
	const env = {
		...process.env,
		PI_CURSOR_NODE: node24,
		PI_CURSOR_BUN: bun,
		PATH: [dirname(node24), dirname(bun), join(ROOT, "node_modules", ".bin"), process.env.PATH].join(
			process.platform === "win32" ? ";" : ":",
		),
	};
	const program = tool === "node24" ? node24 : tool === "bun" ? bun : tool;
	const result = spawnSync(program, args, { stdio: "inherit", env, cwd: ROOT });
	if (result.error) fail(`${tool}: ${result.error.message}`);
	process.exit(result.status ?? 1);
} else {
	fail("usage: toolchain.mjs build | --run <bun|node24|program> [args…] | ensure <node24|bun|pi@x.y.z|pi-bin@x.y.z>");
}
