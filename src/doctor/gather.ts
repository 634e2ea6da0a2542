// /cursor-doctor's facts: a thin, bounded gatherer over injected sources. Nothing here prints or returns the key.

import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { locateNativePaths, type NativePaths } from "../process/native-paths.ts";
import { bounded } from "../sdk/bounded.ts";
import { classifyCursorError, scrubText } from "../sdk/errors.ts";
import { type CursorEnv, ENV_VARS } from "../settings/env.ts";
import type { BackendFact, DoctorFacts, NativeFact } from "./checks.ts";

/** `Cursor.me` is awaited at most this long (the SDK's REST calls have no timeout). */
export const ME_TIMEOUT_MS = 5_000;

export interface DoctorSources {
	env: Pick<CursorEnv, "treeSitterVendorDir" | "ripgrepPath" | "backendUrl">;
	/** The key Pi resolved for the Cursor provider, and where it came from. */
	auth(): Promise<{ apiKey: string | undefined; source: string | undefined }>;
	/** What the resolved key is (src/auth/): environment, pasted, or account sign-in with its expiry. */
	credential?(apiKey: string | undefined, source: string | undefined): { detail: string; warning?: string };
	me(apiKey: string): Promise<{ apiKeyName?: unknown }>;
	piVersion: string | undefined;
	transport: { useHttp1: boolean | undefined; source: string };
	catalog: { source: "fallback" | "cache" | "live"; rows: number; capturedOn: string };
	/** When the cached catalog for this key was fetched. */
	cachedAt(apiKey: string): number | undefined;
	settingSources: DoctorFacts["settingSources"];
	/** The state root the session stores go to (checked like a turn checks it), or why it is unusable. */
	storeRoot(): { ok: true; path: string; label: string } | { ok: false; label: string; message: string };
	bridge: DoctorFacts["bridge"];
	runtime: DoctorFacts["runtime"];
	cloudTarget?: DoctorFacts["cloudTarget"];
	lastError: DoctorFacts["lastError"];
	now: number;
	/** For tests: where the natives are (default: the installed platform package). */
	natives?: NativePaths;
	/** For tests: the installed SDK version (default: read from its package.json). */
	sdkVersion?: string | undefined;
}

async function backendFact(apiKey: string | undefined, me: DoctorSources["me"]): Promise<BackendFact> {
	if (!apiKey) return { kind: "skipped" };
	try {
		const user = await bounded(me(apiKey), ME_TIMEOUT_MS);
		return { kind: "accepted", keyName: typeof user?.apiKeyName === "string" ? user.apiKeyName : undefined };
	} catch (error) {
		const classified = classifyCursorError(error, [apiKey]);
		if (classified.kind === "auth") {
			const reason = scrubText(error instanceof Error ? error.message : String(error), [apiKey]);
			return { kind: "rejected", message: `Cursor rejected the key (${reason})` };
		}
		if (classified.kind === "network" || /no answer within/.test(classified.message)) {
			return { kind: "unreachable", message: classified.message };
		}
		return { kind: "error", message: classified.message };
	}
}

/** The installed `@cursor/sdk` version, read from its package.json (found upward from its entry file). */
export function installedSdkVersion(fromUrl: string = import.meta.url): string | undefined {
	try {
		let dir = dirname(createRequire(fromUrl).resolve("@cursor/sdk"));
		for (let i = 0; i < 6; i++) {
			const manifest = join(dir, "package.json");
			if (existsSync(manifest)) {
				const parsed = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; version?: string };
				if (parsed.name === "@cursor/sdk") return parsed.version;
			}
			dir = dirname(dir);
		}
	} catch {
		// not installed
	}
	return undefined;
}

function parserValid(dir: string | undefined): boolean {
	return (
		!!dir && existsSync(join(dir, "tree-sitter", "index.js")) && existsSync(join(dir, "tree-sitter-bash", "index.js"))
	);
}

function ripgrepValid(path: string | undefined): boolean {
	if (!path) return false;
	try {
		const stat = statSync(path);
		return stat.isFile() && (process.platform === "win32" || (stat.mode & 0o111) !== 0);
	} catch {
		return false;
	}
}

function nativeFact(
	variable: string,
	value: string | undefined,
	located: string | undefined,
	valid: boolean,
): NativeFact {
	return { variable, value, explicit: value !== undefined && value !== "" && value !== located, valid };
}

/** Can we create and remove a file in the store root (creating the root like the pool does)? */
function probeWritable(dir: string): { writable: boolean; error?: string } {
	try {
		mkdirSync(dir, { recursive: true, mode: 0o700 });
		const probe = join(dir, `.pi-cursor-doctor-${process.pid}`);
		writeFileSync(probe, "", { mode: 0o600 });
		rmSync(probe, { force: true });
		return { writable: true };
	} catch (error) {
		return { writable: false, error: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
	}
}

function storeRootFact(sources: DoctorSources): DoctorFacts["storeRoot"] {
	let root: ReturnType<DoctorSources["storeRoot"]>;
	try {
		root = sources.storeRoot();
	} catch (error) {
		return { path: undefined, label: "the SDK's default state root", writable: false, error: (error as Error).message };
	}
	if (!root.ok) return { path: undefined, label: root.label, writable: false, error: root.message };
	return { path: root.path, label: root.label, ...probeWritable(root.path) };
}

export async function gatherDoctorFacts(sources: DoctorSources): Promise<DoctorFacts> {
	const { env } = sources;
	let error: string | undefined;
	const auth = await sources.auth().catch((cause: unknown) => {
		// An expired account sign-in fails Pi's resolution with the way out ("sign in again with /login").
		error = scrubText(cause instanceof Error ? cause.message : String(cause));
		return { apiKey: undefined, source: undefined };
	});
	const credential = auth.apiKey ? sources.credential?.(auth.apiKey, auth.source) : undefined;
	const backend = await backendFact(auth.apiKey, sources.me);
	const located = sources.natives ?? locateNativePaths();
	const parserDir = env.treeSitterVendorDir;
	const ripgrep = env.ripgrepPath;
	const backendUrl = env.backendUrl;
	return {
		key: {
			present: !!auth.apiKey,
			source: auth.source,
			...(credential ? { credential } : {}),
			...(error ? { error } : {}),
		},
		backend,
		backendUrl: backendUrl ? scrubText(backendUrl, [auth.apiKey]) : undefined,
		versions: {
			sdk: "sdkVersion" in sources ? sources.sdkVersion : installedSdkVersion(),
			pi: sources.piVersion,
			node: process.versions.node,
			bun: process.versions.bun,
		},
		natives: {
			parser: nativeFact(
				ENV_VARS.treeSitterVendorDir.name,
				parserDir,
				located.treeSitterVendorDir,
				parserValid(parserDir),
			),
			ripgrep: nativeFact(ENV_VARS.ripgrepPath.name, ripgrep, located.ripgrepPath, ripgrepValid(ripgrep)),
		},
		transport: { ...sources.transport, customBackendHttp: !!backendUrl && /^http:/i.test(backendUrl) },
		settingSources: sources.settingSources,
		catalog: {
			...sources.catalog,
			fetchedAt: sources.catalog.source !== "fallback" && auth.apiKey ? sources.cachedAt(auth.apiKey) : undefined,
		},
		bridge: sources.bridge,
		runtime: sources.runtime,
		...(sources.cloudTarget ? { cloudTarget: sources.cloudTarget } : {}),
		storeRoot: storeRootFact(sources),
		lastError: sources.lastError,
		now: sources.now,
	};
}
