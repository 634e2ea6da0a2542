// Runs the real Pi CLI (npm package on Node 24, or a compiled Bun binary) with an isolated HOME.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
	existsSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type ProcessResult, runProcess } from "./processes.ts";
import { BUNDLE, CHECKOUT_ID, ensureTool, sharedFolder } from "./toolchain.ts";

export interface PiHost {
	name: string;
	/** argv prefix that starts Pi (before Pi's own arguments). */
	command: string[];
}

/** The hosts we support: npm Pi 1.6.0 and 0.87.1 on Node 24, and a compiled Pi 1.6.0 binary. */
export function piHosts(): PiHost[] {
	const node = ensureTool("node24");
	return [
		{ name: "npm pi 1.6.0 on node", command: [node, ensureTool("pi@1.6.0")] },
		{ name: "npm pi 0.87.1 on node", command: [node, ensureTool("pi@0.87.1")] },
		{ name: "compiled pi 1.6.0", command: [ensureTool("pi-bin@1.6.0")] },
	];
}

export function defaultHost(): PiHost {
	return { name: "npm pi 1.6.0 on node", command: [ensureTool("node24"), ensureTool("pi@1.6.0")] };
}

/**
 * Pi's extension loader (jiti) transpiles our bundle once and caches the result in `$TMPDIR/jiti`, as it does for a
 * user; Node (Pi calls `module.enableCompileCache()`) caches Pi's compiled code in `$TMPDIR/node-compile-cache`.
 * Every temp HOME has its own TMPDIR, so each Pi a test starts would transpile the bundle and compile Pi again
 * (seconds of CPU): the temp homes of all test files share both caches, filled by one Pi before any test starts
 * Pi. Both are safe to share: jiti checks a cached file's trailer (a partly written one is a miss), and Node writes a
 * cache entry to a private file and renames it, and checks its checksum when reading.
 */
let sharedCaches: string | undefined;
function piCaches(): string {
	if (sharedCaches) return sharedCaches;
	const host = defaultHost();
	const bundle = createHash("sha256").update(readFileSync(BUNDLE)).update(host.command.join(" ")).digest("hex");
	const prefix = `pi-cursor-caches-${CHECKOUT_ID}-`;
	sharedCaches = sharedFolder(
		join(tmpdir(), `${prefix}${bundle.slice(0, 12)}`),
		(folder) => {
			const home = join(folder, "home");
			mkdirSync(home);
			const [program = "", ...args] = host.command;
			spawnSync(program, [...args, "-ne", "-e", BUNDLE, "--list-models", "cursor"], {
				env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TMPDIR: folder, PI_OFFLINE: "1" },
				stdio: "ignore",
			});
			rmSync(home, { recursive: true, force: true });
			for (const cache of ["jiti", "node-compile-cache"]) mkdirSync(join(folder, cache), { recursive: true });
		},
		prefix,
	);
	return sharedCaches;
}

/** Every regular file under `dir` (symlinks not followed: the shared jiti cache is not the test's). */
export function filesUnder(dir: string): string[] {
	const out: string[] = [];
	for (const name of readdirSync(dir)) {
		const path = join(dir, name);
		const stat = lstatSync(path);
		if (stat.isDirectory()) out.push(...filesUnder(path));
		else if (stat.isFile()) out.push(path);
	}
	return out;
}

/** A throwaway HOME with Pi's agent dir inside; never the real home. */
export class TempHome {
	readonly dir = mkdtempSync(join(tmpdir(), "pi-cursor-test-"));
	readonly agentDir = join(this.dir, ".pi", "agent");
	readonly tmp = join(this.dir, "tmp");

	constructor() {
		mkdirSync(this.agentDir, { recursive: true });
		mkdirSync(this.tmp, { recursive: true });
		for (const cache of ["jiti", "node-compile-cache"]) {
			if (!existsSync(join(this.tmp, cache))) symlinkSync(join(piCaches(), cache), join(this.tmp, cache), "dir");
		}
	}

	writeAgentFile(name: string, content: string | object): string {
		const path = join(this.agentDir, name);
		mkdirSync(dirname(path), { recursive: true });
		writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
		return path;
	}

	/** The environment of a Pi in this home, with `extra` on top (`undefined` removes a variable, e.g. PI_OFFLINE). */
	env(extra: Record<string, string | undefined> = {}): Record<string, string> {
		const env: Record<string, string> = {
			PATH: process.env.PATH ?? "/usr/bin:/bin",
			HOME: this.dir,
			TMPDIR: this.tmp,
			PI_CODING_AGENT_DIR: this.agentDir,
			PI_OFFLINE: "1",
			PI_SKIP_VERSION_CHECK: "1",
			PI_TELEMETRY: "0",
		};
		for (const [key, value] of Object.entries(extra)) {
			if (value === undefined) delete env[key];
			else env[key] = value;
		}
		return env;
	}

	remove(): void {
		rmSync(this.dir, { recursive: true, force: true });
	}
}

/** Temp homes created by a test file, removed (and checked for leftover processes) at the end. */
export class HomeRegistry {
	readonly homes: TempHome[] = [];

	create(settings?: object): TempHome {
		const home = new TempHome();
		if (settings) home.writeAgentFile("settings.json", settings);
		this.homes.push(home);
		return home;
	}

	removeAll(): void {
		for (const home of this.homes) home.remove();
	}
}

export type PiResult = ProcessResult;

export interface RunPiOptions {
	host?: PiHost;
	home: TempHome;
	env?: Record<string, string | undefined>;
	cwd?: string;
	input?: string;
	extensions?: string[];
	timeoutMs?: number;
}

/** Runs `pi -ne -e <installed bundle> <args>` to completion. */
export function runPi(args: string[], options: RunPiOptions): Promise<PiResult> {
	const host = options.host ?? defaultHost();
	const extensions = options.extensions ?? [BUNDLE];
	const [program, ...prefix] = host.command;
	if (!program) throw new Error(`host ${host.name} has no command`);
	return runProcess(program, [...prefix, "-ne", ...extensions.flatMap((e) => ["-e", e]), ...args], {
		cwd: options.cwd ?? options.home.dir,
		env: options.home.env(options.env),
		input: options.input,
		timeoutMs: options.timeoutMs ?? 45_000,
	});
}

/** Parses `pi --list-models` output into rows keyed by column name. */
export function parseModelTable(stdout: string): Record<string, string>[] {
	const lines = stdout.split("\n").filter((line) => line.trim() !== "");
	const header = lines.shift();
	if (!header) return [];
	const columns = header.trim().split(/\s+/);
	return lines.map((line) => {
		const cells = line.trim().split(/\s+/);
		return Object.fromEntries(columns.map((column, i) => [column, cells[i] ?? ""]));
	});
}
