// The SDK's MCP timeouts. @cursor/sdk 1.0.32 bundles the MCP client (@modelcontextprotocol/sdk 1.25.1) and never
// passes it a per-request timeout, so every MCP request (initialize, tools/list, tools/call) gets the client's 60 s
// default and the SDK exposes no option to change it. Pi tools that wait for a human need far longer; an
// unreachable MCP server should stall the first reply for far less.
//
// The only seam reachable in every build of the SDK (webpack ESM/CJS under Node, the flat bundle under Bun) is the
// global `setTimeout`: the client's `Protocol.request` arms `setTimeout(onTimeout, 60000)` through `_setupTimeout`,
// synchronously under `Client.callTool`, `Client.listTools` or `Client.connect` (initialize). The wrapper installed
// here recognises exactly those timers from their call sites and swaps the delay; every other timer (including any
// other 60 s timer) passes through untouched. test/unit/mcp-timeouts-contract.test.ts pins this against the SDK on
// disk; test/e2e/bridge-sdk.test.ts and test/e2e/mcp-timeouts-pi.test.ts prove it against the real SDK's MCP client
// (alone, and inside npm Pi on Node and compiled Pi on Bun).
//
// This module must not import @cursor/sdk (src/sdk/cursor-sdk.ts is the only importer).

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, sep } from "node:path";
import { type CursorEnv, type EnvRecord, envProblems, readEnv } from "../settings/env.ts";

/** The MCP client's own default for every request (what stays in force when the override is unavailable). */
export const SDK_MCP_REQUEST_TIMEOUT_MS = 60_000;

export interface McpTimeoutSettings {
	/** `tools/call` requests. */
	readonly toolMs: number;
	/** `initialize` and `tools/list` requests. */
	readonly connectMs: number;
	/** One line per malformed variable (the default is used for it). */
	readonly problems: readonly string[];
}

/**
 * `PI_CURSOR_MCP_TOOL_TIMEOUT_MS|_SECONDS` and `PI_CURSOR_MCP_CONNECT_TIMEOUT_MS|_SECONDS` (parsed by
 * src/settings/env.ts: positive whole numbers, `_MS` wins, capped at the timer maximum; 3600 s and 10 s by default).
 */
export function readMcpTimeoutSettings(
	env: Pick<CursorEnv, "mcpToolTimeoutMs" | "mcpConnectTimeoutMs" | "problems">,
): McpTimeoutSettings {
	return {
		toolMs: env.mcpToolTimeoutMs,
		connectMs: env.mcpConnectTimeoutMs,
		problems: envProblems(env, "mcpToolTimeoutMs", "mcpConnectTimeoutMs"),
	};
}

/** Which MCP request armed a timer, from the function names of its call sites (innermost first). */
export type McpTimerKind = "tool" | "connect";

/**
 * Recognises the MCP client's request timer: `_setupTimeout` right under `setTimeout`, then `request`, then the
 * public client method that sent it. Anything else (including a 60 s timer from any other code) is `undefined`.
 */
export function classifyMcpTimer(functionNames: readonly (string | null | undefined)[]): McpTimerKind | undefined {
	const names = functionNames.map(
		(name) =>
			(name ?? "")
				.replace(/^async /, "")
				.split(".")
				.pop() ?? "",
	);
	const setup = names.indexOf("_setupTimeout");
	// [0] is the wrapper itself; _setupTimeout calls it (one frame of slack for a bound or wrapped setTimeout).
	if (setup < 0 || setup > 2) return undefined;
	const request = names.indexOf("request", setup + 1);
	if (request < 0 || request > setup + 4) return undefined;
	const caller = names.slice(request + 1).find((name) => name !== "");
	if (caller === "callTool") return "tool";
	if (caller === "listTools" || caller === "connect") return "connect";
	return undefined;
}

export type McpTimeoutInstall =
	| { readonly ok: true; readonly settings: McpTimeoutSettings }
	| { readonly ok: false; readonly settings: McpTimeoutSettings; readonly warning: string };

/** SDK versions whose bundled MCP client was checked against `MCP_CLIENT_SHAPE` (the contract test re-checks). */
export const VERIFIED_SDK_VERSIONS: readonly string[] = ["1.0.32"];

interface PatchRecord {
	readonly original: typeof setTimeout;
	settings: McpTimeoutSettings;
}

// The SDK is process-wide, so is its clock: one wrapper per process, shared by every extension instance (and by
// bundles Pi reloads), found again through a registered symbol. Its settings follow the latest install.
const PATCH_KEY = Symbol.for("pi-cursor-sdk.mcp-timeouts");

type PatchedGlobal = typeof globalThis & { [PATCH_KEY]?: PatchRecord };

/**
 * Installs (once per process) or re-configures the MCP timeout override. Only for an SDK version in
 * `VERIFIED_SDK_VERSIONS`; any other (or unknown) version keeps the SDK defaults and returns one warning for the
 * caller to show.
 */
export function installMcpTimeoutOverride(
	settings: McpTimeoutSettings,
	sdkVersion: string | undefined,
	target: PatchedGlobal = globalThis,
): McpTimeoutInstall {
	if (sdkVersion === undefined || !VERIFIED_SDK_VERSIONS.includes(sdkVersion)) {
		return {
			ok: false,
			settings: { ...settings, toolMs: SDK_MCP_REQUEST_TIMEOUT_MS, connectMs: SDK_MCP_REQUEST_TIMEOUT_MS },
			warning: `@cursor/sdk ${sdkVersion ?? "(version unknown)"} is not a version pi-cursor-sdk has checked; MCP calls keep the SDK's 60 s timeouts and PI_CURSOR_MCP_* timeout settings are ignored.`,
		};
	}
	const existing = target[PATCH_KEY];
	if (existing) {
		existing.settings = settings;
		return { ok: true, settings };
	}
	const original = target.setTimeout;
	const record: PatchRecord = { original, settings };
	const wrapped = function setTimeout(this: unknown, handler: unknown, delay?: number, ...args: unknown[]) {
		if (delay === SDK_MCP_REQUEST_TIMEOUT_MS) {
			const kind = classifyMcpTimer(callerNames());
			if (kind === "tool") delay = record.settings.toolMs;
			else if (kind === "connect") delay = record.settings.connectMs;
		}
		return Reflect.apply(original, this, [handler, delay, ...args]);
	};
	// Keep `util.promisify(setTimeout)` and any other own properties (Node's timers carry a promisify hook).
	for (const key of Reflect.ownKeys(original)) {
		if (key === "length" || key === "name" || key === "prototype") continue;
		const descriptor = Object.getOwnPropertyDescriptor(original, key);
		if (descriptor) Object.defineProperty(wrapped, key, descriptor);
	}
	Object.defineProperty(target, PATCH_KEY, { value: record, configurable: true });
	target.setTimeout = wrapped as typeof setTimeout;
	return { ok: true, settings };
}

/** The installed `@cursor/sdk` version, found from `fromUrl` like Node would resolve it; undefined when unknown. */
export function installedSdkVersion(fromUrl: string = import.meta.url): string | undefined {
	try {
		const entry = createRequire(fromUrl).resolve("@cursor/sdk");
		const marker = `${sep}@cursor${sep}sdk${sep}`;
		const at = entry.lastIndexOf(marker);
		if (at < 0) return undefined;
		const manifest = JSON.parse(readFileSync(join(entry.slice(0, at + marker.length), "package.json"), "utf8"));
		return manifest?.name === "@cursor/sdk" && typeof manifest.version === "string" ? manifest.version : undefined;
	} catch {
		return undefined;
	}
}

/** Reads the settings from `env` and installs the override for the installed SDK. */
export function installMcpTimeouts(env: EnvRecord, fromUrl?: string): McpTimeoutInstall {
	return installMcpTimeoutOverride(readMcpTimeoutSettings(readEnv(env)), installedSdkVersion(fromUrl));
}

/** Undoes the process-wide override (tests only). */
export function uninstallMcpTimeoutOverride(target: PatchedGlobal = globalThis): void {
	const record = target[PATCH_KEY];
	if (!record) return;
	target.setTimeout = record.original;
	delete target[PATCH_KEY];
}

/** The function names of the current call sites, innermost first (V8 and JavaScriptCore both offer CallSites). */
function callerNames(): (string | null)[] {
	const previousPrepare = Error.prepareStackTrace;
	const previousLimit = Error.stackTraceLimit;
	try {
		Error.stackTraceLimit = 16;
		Error.prepareStackTrace = (_error, sites) => sites;
		const holder: { stack?: unknown } = {};
		Error.captureStackTrace(holder, callerNames);
		const sites = holder.stack as NodeJS.CallSite[] | undefined;
		if (!Array.isArray(sites)) return [];
		return sites.map((site) => site.getFunctionName() ?? site.getMethodName());
	} catch {
		return [];
	} finally {
		Error.prepareStackTrace = previousPrepare;
		Error.stackTraceLimit = previousLimit;
	}
}

/** Source fragments the override relies on, in the SDK file that bundles the MCP client (checked by the contract test). */
export const MCP_CLIENT_SHAPE = [
	// Protocol._setupTimeout arms the request timer with the global setTimeout.
	/_setupTimeout\([^)]*\)\s*\{\s*this\._timeoutInfo\.set\([^,]+,\s*\{\s*timeoutId:\s*setTimeout\(/,
	// Client.callTool / listTools / connect call this.request synchronously (connect after awaiting super.connect).
	/async callTool\([^)]*\)\s*\{[\s\S]{0,400}?await this\.request\(\{\s*method:\s*"tools\/call"/,
	/async listTools\([^)]*\)\s*\{[\s\S]{0,80}?await this\.request\(\{\s*method:\s*"tools\/list"/,
	/async connect\([^)]*\)\s*\{[\s\S]{0,160}?await this\.request\(\{\s*method:\s*"initialize"/,
] as const;

/** Protocol.request: the caller's timeout or the 60 s default (a literal or a named constant) feeds _setupTimeout. */
const REQUEST_DEFAULT = /timeout\s*\?\?\s*(6e4|60000|[A-Za-z_$][\w$]*)\s*[,;][\s\S]{0,200}?this\._setupTimeout\(/;

/** True when `source` (one SDK file holding the bundled MCP client) has every fragment the override relies on. */
export function hasMcpClientShape(source: string): boolean {
	const fallback = REQUEST_DEFAULT.exec(source)?.[1];
	if (fallback === undefined) return false;
	if (fallback !== "6e4" && fallback !== "60000") {
		const escaped = fallback.replace(/\$/g, "\\$");
		if (!new RegExp(`\\b${escaped}\\s*=\\s*(?:6e4|60000)\\b`).test(source)) return false;
	}
	return MCP_CLIENT_SHAPE.every((pattern) => pattern.test(source));
}

/** What the user should be told about an install: malformed settings, and the SDK check failing. */
export function mcpTimeoutNotices(install: McpTimeoutInstall | undefined): string[] {
	if (!install) return [];
	return [...install.settings.problems, ...(install.ok ? [] : [install.warning])];
}
