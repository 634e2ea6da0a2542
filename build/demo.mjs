// `npm run demo`: the product working without a Cursor key. Starts the project's loopback fake Cursor backend with a
// scripted conversation (demo-script.mjs), points the real SDK at it, and launches the pinned Pi with this extension
// and a Cursor model, in a throwaway workspace with a temporary HOME. Everything the demo writes lives in one
// temporary folder, removed when Pi exits or the demo is interrupted (SIGINT, SIGTERM, SIGHUP).
//
//   node build/demo.mjs [--no-build] [pi arguments…]     e.g. `npm run demo -- -p "hello"`
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PI_CLI, ROOT, stageCheckoutPackage } from "./checkout-package.mjs";
import { DEMO_FILES, DEMO_MODEL, demoBanner, demoScenario } from "./demo-script.mjs";

const TOOLCHAIN = join(ROOT, "build", "toolchain.mjs");
const FAKE_BACKEND = join(ROOT, "test", "support", "fake-backend", "main.ts");
const BANNER_EXTENSION = join(ROOT, "build", "demo-banner.mjs");
/** Any key works with the fake backend; this one says what it is if it ever shows up. */
const DEMO_KEY = "demo-key-for-the-local-fake-backend";

function fail(message) {
	console.error(`demo: ${message}`);
	process.exit(1);
}

function ensureTool(name) {
	const result = spawnSync(process.execPath, [TOOLCHAIN, "ensure", name], {
		stdio: ["ignore", "pipe", "inherit"],
		encoding: "utf8",
	});
	if (result.status !== 0) fail(`could not get ${name} from the toolchain`);
	return result.stdout.trim();
}

/** Items of the captured Cursor catalog: the SDK checks model ids against the backend's model list. */
function capturedCatalog() {
	const data = JSON.parse(readFileSync(join(ROOT, "data", "cursor-model-catalog.json"), "utf8"));
	return Array.isArray(data) ? data : (data.models ?? data.items ?? []);
}

function createDemoFolders() {
	const root = mkdtempSync(join(tmpdir(), "pi-cursor-demo-"));
	const dirs = { root, home: join(root, "home"), workspace: join(root, "workspace"), tmp: join(root, "tmp") };
	dirs.agent = join(dirs.home, ".pi", "agent");
	for (const dir of [dirs.agent, dirs.workspace, dirs.tmp]) mkdirSync(dir, { recursive: true });
	for (const [name, text] of Object.entries(DEMO_FILES)) writeFileSync(join(dirs.workspace, name), text);
	return dirs;
}

/** The user's environment minus anything that points Pi or Cursor elsewhere, plus the demo's own folders. */
function demoEnv(dirs, backendUrl) {
	const env = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!/^(PI_|CURSOR_|XDG_)/.test(key)) env[key] = value;
	}
	return {
		...env,
		HOME: dirs.home,
		USERPROFILE: dirs.home,
		TMPDIR: dirs.tmp,
		TMP: dirs.tmp,
		TEMP: dirs.tmp,
		XDG_CONFIG_HOME: join(dirs.home, ".config"),
		XDG_CACHE_HOME: join(dirs.home, ".cache"),
		XDG_DATA_HOME: join(dirs.home, ".local", "share"),
		XDG_STATE_HOME: join(dirs.home, ".local", "state"),
		PI_CODING_AGENT_DIR: dirs.agent,
		PI_OFFLINE: "1",
		PI_SKIP_VERSION_CHECK: "1",
		PI_TELEMETRY: "0",
		...(backendUrl ? { CURSOR_BACKEND_URL: backendUrl, CURSOR_API_KEY: DEMO_KEY } : {}),
	};
}

/** Starts the fake backend (Bun) and resolves with its URL; it also exits by itself when this process dies. */
function startBackend(bun, dirs) {
	const config = join(dirs.root, "fake-backend.json");
	// Billed usage (`/cursor-usage refresh`) is what the scripted turns reported, at no cost.
	const rest = { models: capturedCatalog(), usageFromRuns: true };
	writeFileSync(config, JSON.stringify({ rest, defaultScenario: demoScenario() }));
	// stdin stays a pipe: the backend exits when it closes, even if this launcher is killed outright.
	const child = spawn(bun, [FAKE_BACKEND, config], { cwd: ROOT, env: demoEnv(dirs), stdio: ["pipe", "pipe", "pipe"] });
	let stderr = "";
	child.stderr.on("data", (chunk) => {
		stderr = (stderr + chunk).slice(-4000);
	});
	const ready = new Promise((resolve, reject) => {
		let stdout = "";
		const timer = setTimeout(() => reject(new Error(`the fake backend did not start in time\n${stderr}`)), 30_000);
		child.stdout.on("data", (chunk) => {
			stdout += chunk;
			const newline = stdout.indexOf("\n");
			if (newline < 0) return;
			clearTimeout(timer);
			child.stdout.resume();
			resolve(JSON.parse(stdout.slice(0, newline)).url);
		});
		child.once("exit", (code) => {
			clearTimeout(timer);
			reject(new Error(`the fake backend exited (${code})\n${stderr}`));
		});
	});
	const exited = new Promise((resolve) => child.once("exit", resolve));
	const stop = async () => {
		if (child.exitCode !== null || child.signalCode !== null) return;
		child.stdin.end();
		child.kill("SIGTERM");
		const timer = setTimeout(() => child.kill("SIGKILL"), 2000);
		await exited;
		clearTimeout(timer);
	};
	return { ready, stop };
}

const args = process.argv.slice(2);
const piArgs = args.filter((arg) => arg !== "--no-build");
if (!args.includes("--no-build")) {
	const build = spawnSync(process.execPath, [TOOLCHAIN, "--run", "bun", "build/bundle.ts"], {
		cwd: ROOT,
		stdio: ["ignore", 2, 2],
	});
	if (build.status !== 0) fail("building dist/index.js failed");
}
const node = ensureTool("node24");
const bun = ensureTool("bun");
let pkg;
try {
	pkg = stageCheckoutPackage();
} catch (error) {
	fail(error.message);
}

const dirs = createDemoFolders();
const backend = startBackend(bun, dirs);
let pi;
let cleaned;
const cleanup = () => {
	cleaned ??= backend.stop().finally(() => rmSync(dirs.root, { recursive: true, force: true }));
	return cleaned;
};

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
	process.on(signal, () => {
		if (!pi) {
			cleanup().then(() => process.exit(1));
			return;
		}
		// Pi's TUI treats ctrl+c as a key, not a signal: ask it to terminate, then insist.
		pi.kill("SIGTERM");
		setTimeout(() => pi.kill("SIGKILL"), 5000).unref();
	});
}

let backendUrl;
try {
	backendUrl = await backend.ready;
} catch (error) {
	await cleanup();
	fail(error.message);
}
const modelArg = piArgs.indexOf("--model");
const model = modelArg >= 0 ? piArgs[modelArg + 1] : DEMO_MODEL;
process.stderr.write(`${demoBanner({ backendUrl, workspace: dirs.workspace, model })}\n`);

// No session file: the demo's folder is gone when Pi exits, so Pi must not offer to resume the session.
const defaults = ["--no-session", ...(modelArg >= 0 ? [] : ["--model", DEMO_MODEL])];
pi = spawn(node, [PI_CLI, "-ne", "-e", pkg, "-e", BANNER_EXTENSION, ...defaults, ...piArgs], {
	cwd: dirs.workspace,
	env: demoEnv(dirs, backendUrl),
	stdio: "inherit",
});
pi.on("error", async (error) => {
	await cleanup();
	fail(`could not start Pi: ${error.message}`);
});
pi.on("exit", async (code, signal) => {
	await cleanup();
	process.exit(code ?? (signal ? 1 : 0));
});
