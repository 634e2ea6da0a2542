import { describe, expect, test } from "bun:test";
import { readEnv } from "../../src/settings/env.ts";
import { parseBooleanSetting, type SettingSources } from "../../src/settings/env-parse.ts";

const DEFAULT_MODEL_CACHE_TTL_MS = 86_400_000;

describe("boolean vocabulary", () => {
	const cases: [string | undefined, boolean | undefined][] = [
		["0", false],
		["false", false],
		["off", false],
		["none", false],
		["no", false],
		["disabled", false],
		["FALSE", false],
		[" Off ", false],
		["DiSaBlEd", false],
		["1", true],
		["true", true],
		["on", true],
		["yes", true],
		["enabled", true],
		["TRUE", true],
		["\tYes\n", true],
		["Enabled", true],
		[undefined, undefined],
		["", undefined],
		["   ", undefined],
		["2", undefined],
		["y", undefined],
		["nope", undefined],
		["truee", undefined],
		["-1", undefined],
	];
	for (const [input, expected] of cases) {
		test(`${JSON.stringify(input)} → ${String(expected)}`, () => {
			expect(parseBooleanSetting(input)).toBe(expected);
		});
	}

	test("a boolean variable falls back to its default for unset/blank/unrecognized", () => {
		// PI_CURSOR_FOOTER defaults to on, PI_CURSOR_HIDE_MODELS_WHEN_LOGGED_OUT to off.
		expect(readEnv({}).footer).toBe(true);
		expect(readEnv({ PI_CURSOR_HIDE_MODELS_WHEN_LOGGED_OUT: "" }).hideModelsWhenLoggedOut).toBe(false);
		expect(readEnv({ PI_CURSOR_FOOTER: "maybe" }).footer).toBe(true);
		expect(readEnv({ PI_CURSOR_FOOTER: "no" }).footer).toBe(false);
		expect(readEnv({ PI_CURSOR_HIDE_MODELS_WHEN_LOGGED_OUT: "yes" }).hideModelsWhenLoggedOut).toBe(true);
		expect(readEnv({ PI_CURSOR_FOOTER: "maybe", PI_CURSOR_HIDE_MODELS_WHEN_LOGGED_OUT: "" }).problems).toEqual([]);
	});
});

describe("PI_CURSOR_SETTING_SOURCES", () => {
	const ok: [string | undefined, SettingSources, boolean][] = [
		[undefined, ["all"], true],
		["", ["all"], true],
		["  ", ["all"], true],
		["all", ["all"], false],
		["ALL", ["all"], false],
		["none", [], false],
		[" None ", [], false],
		["project", ["project"], false],
		["project,user,plugins", ["project", "user", "plugins"], false],
		["plugins, project", ["plugins", "project"], false],
		["project,user,team,mdm,plugins", ["project", "user", "team", "mdm", "plugins"], false],
		["Project,USER", ["project", "user"], false],
		["project,project,user", ["project", "user"], false],
		["project,,user,", ["project", "user"], false],
		["all,all", ["all"], false],
	];
	for (const [input, sources, isDefault] of ok) {
		test(`${JSON.stringify(input)} → ${JSON.stringify(sources)}`, () => {
			const env = readEnv({ PI_CURSOR_SETTING_SOURCES: input });
			expect(env.settingSources).toEqual({ ok: true, sources, isDefault });
			expect(env.problems).toEqual([]);
		});
	}

	const bad: [string, RegExp][] = [
		["all,project", /cannot combine "all"/],
		["project,all", /cannot combine "all"/],
		["none,user", /cannot combine "none"/],
		["all,none", /cannot combine/],
		["projects", /unknown setting source "projects"/],
		["project,workspace,bogus", /unknown setting source "workspace", "bogus"/],
		["all,bogus", /unknown setting source "bogus"/],
		[",", /names no setting source/],
	];
	for (const [input, message] of bad) {
		test(`${JSON.stringify(input)} → error`, () => {
			const env = readEnv({ PI_CURSOR_SETTING_SOURCES: input });
			const result = env.settingSources;
			expect(result.ok).toBe(false);
			if (!result.ok) {
				expect(result.error).toMatch(message);
				expect(result.error).toContain("PI_CURSOR_SETTING_SOURCES");
				expect(result.error).toContain('Use "all", "none"');
				expect(result.raw).toBe(input);
				expect(env.problems).toEqual([{ key: "settingSources", message: result.error }]);
			}
		});
	}
});

describe("PI_CURSOR_SDK_MODEL_CACHE_TTL_MS", () => {
	const cases: [string | undefined, number][] = [
		[undefined, DEFAULT_MODEL_CACHE_TTL_MS],
		["", DEFAULT_MODEL_CACHE_TTL_MS],
		["0", 0],
		["1000", 1000],
		["86400000", 86_400_000],
		[" 1000", DEFAULT_MODEL_CACHE_TTL_MS],
		["-5", DEFAULT_MODEL_CACHE_TTL_MS],
		["1e3", DEFAULT_MODEL_CACHE_TTL_MS],
		["12.5", DEFAULT_MODEL_CACHE_TTL_MS],
		["abc", DEFAULT_MODEL_CACHE_TTL_MS],
		["99999999999999999999", DEFAULT_MODEL_CACHE_TTL_MS],
	];
	for (const [input, expected] of cases) {
		test(`${JSON.stringify(input)} → ${expected}`, () => {
			expect(readEnv({ PI_CURSOR_SDK_MODEL_CACHE_TTL_MS: input }).modelCacheTtlMs).toBe(expected);
		});
	}
});

describe("readEnv", () => {
	test("defaults", () => {
		expect(readEnv({})).toEqual({
			apiKey: undefined,
			useHttp1: undefined,
			footer: true,
			taskPresentation: "subagent",
			runtime: undefined,
			cloudAck: undefined,
			cloudRepo: undefined,
			cloudBranch: undefined,
			cloudContext: undefined,
			cloudDirectPush: undefined,
			cloudAutoCreatePr: undefined,
			cloudSkipReviewerRequest: undefined,
			cloudAllowLocalState: undefined,
			cloudEnvType: undefined,
			cloudEnvName: undefined,
			cloudEnv: undefined,
			cloudEnvFromFiles: undefined,
			settingSources: { ok: true, sources: ["all"], isDefault: true },
			hideModelsWhenLoggedOut: false,
			disableModelCache: false,
			modelCacheTtlMs: 86_400_000,
			modelRefreshTimeoutMs: 15_000,
			firstResponseTimeoutMs: 45_000,
			streamIdleTimeoutMs: 300_000,
			liveRunIdleDisposeMs: 300_000,
			preservePiAgentsMd: false,
			localResume: true,
			prewarm: true,
			stateRoot: undefined,
			eventDebug: false,
			autoReview: undefined,
			sandbox: undefined,
			nativeToolDisplay: true,
			registerNativeTools: true,
			treeSitterVendorDir: undefined,
			ripgrepPath: undefined,
			backendUrl: undefined,
			piToolBridge: true,
			exposeBuiltinTools: false,
			exposeBuiltinToolsUnderSafety: false,
			toolManifest: true,
			bridgeCallTimeoutMs: undefined,
			bridgeDebug: false,
			mcpToolTimeoutMs: 3_600_000,
			mcpConnectTimeoutMs: 10_000,
			askQuestion: false,
			problems: [],
		});
	});

	test("explicit values", () => {
		expect(
			readEnv({
				PI_CURSOR_HTTP_1_1: "true",
				PI_CURSOR_FOOTER: "0",
				PI_CURSOR_SETTING_SOURCES: "none",
				PI_CURSOR_HIDE_MODELS_WHEN_LOGGED_OUT: "1",
				PI_CURSOR_SDK_DISABLE_MODEL_CACHE: "yes",
				PI_CURSOR_SDK_MODEL_CACHE_TTL_MS: "60000",
				PI_CURSOR_SDK_MODEL_REFRESH_TIMEOUT_MS: "2000",
				PI_CURSOR_FIRST_RESPONSE_TIMEOUT_MS: "3000",
				PI_CURSOR_STREAM_IDLE_TIMEOUT_MS: "2147483647",
				PI_CURSOR_LIVE_RUN_IDLE_DISPOSE_MS: "5000",
			}),
		).toMatchObject({
			useHttp1: true,
			footer: false,
			settingSources: { ok: true, sources: [], isDefault: false },
			hideModelsWhenLoggedOut: true,
			disableModelCache: true,
			modelCacheTtlMs: 60_000,
			modelRefreshTimeoutMs: 2_000,
			firstResponseTimeoutMs: 3_000,
			streamIdleTimeoutMs: 2_147_483_647,
			liveRunIdleDisposeMs: 5_000,
			problems: [],
		});
	});

	test("the refresh timeout must be a positive whole number of milliseconds", () => {
		for (const value of ["0", "-5", "1.5", " 100", "abc"]) {
			expect(readEnv({ PI_CURSOR_SDK_MODEL_REFRESH_TIMEOUT_MS: value }).modelRefreshTimeoutMs).toBe(15_000);
		}
		expect(readEnv({ PI_CURSOR_SDK_MODEL_REFRESH_TIMEOUT_MS: "1" }).modelRefreshTimeoutMs).toBe(1);
	});

	test("turn deadlines take decimal milliseconds from 1 to 2^31 − 1, anything else keeps the default", () => {
		for (const value of ["0", "-5", "1.5", " 100", "100 ", "1e3", "abc", "", "2147483648"]) {
			const env = readEnv({
				PI_CURSOR_FIRST_RESPONSE_TIMEOUT_MS: value,
				PI_CURSOR_STREAM_IDLE_TIMEOUT_MS: value,
			});
			expect([env.firstResponseTimeoutMs, env.streamIdleTimeoutMs]).toEqual([45_000, 300_000]);
		}
		const env = readEnv({ PI_CURSOR_FIRST_RESPONSE_TIMEOUT_MS: "1", PI_CURSOR_STREAM_IDLE_TIMEOUT_MS: "250" });
		expect([env.firstResponseTimeoutMs, env.streamIdleTimeoutMs]).toEqual([1, 250]);
	});

	test("HTTP/1.1 is tri-state and unrecognized footer values keep the default", () => {
		expect(readEnv({ PI_CURSOR_HTTP_1_1: "off" }).useHttp1).toBe(false);
		expect(readEnv({ PI_CURSOR_HTTP_1_1: "whatever" }).useHttp1).toBeUndefined();
		expect(readEnv({ PI_CURSOR_FOOTER: "hide" }).footer).toBe(true);
		expect(readEnv({ PI_CURSOR_FOOTER: "disabled" }).footer).toBe(false);
	});
});

describe("text variables and reported problems", () => {
	test("paths and addresses are trimmed and blank means unset; an empty key is no key; natives stay as given", () => {
		const env = readEnv({
			PI_CURSOR_SDK_STATE_ROOT: " /srv/state ",
			CURSOR_BACKEND_URL: "  ",
			CURSOR_API_KEY: "",
			CURSOR_RIPGREP_PATH: "",
		});
		expect(env.stateRoot).toBe("/srv/state");
		expect(env.backendUrl).toBeUndefined();
		expect(env.apiKey).toBeUndefined();
		expect(env.ripgrepPath).toBe("");
		expect(readEnv({ PI_CURSOR_SDK_STATE_ROOT: "\t" }).stateRoot).toBeUndefined();
	});

	test("a malformed _MS value is reported and the _SECONDS spelling still counts", () => {
		const env = readEnv({ PI_CURSOR_MCP_TOOL_TIMEOUT_MS: "soon", PI_CURSOR_MCP_TOOL_TIMEOUT_SECONDS: "30" });
		expect(env.mcpToolTimeoutMs).toBe(30_000);
		expect(env.problems).toEqual([
			{
				key: "mcpToolTimeoutMs",
				message: 'PI_CURSOR_MCP_TOOL_TIMEOUT_MS="soon" is not a positive whole number; using the default.',
			},
		]);
	});

	test("each reported problem names its variable; silent fallbacks report nothing", () => {
		const env = readEnv({
			PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS: "-1",
			PI_CURSOR_SETTING_SOURCES: "everything",
			PI_CURSOR_FIRST_RESPONSE_TIMEOUT_MS: "soon",
			PI_CURSOR_TOOL_MANIFEST: "perhaps",
		});
		expect(env.problems.map((problem) => problem.key)).toEqual(["settingSources", "bridgeCallTimeoutMs"]);
		expect(env.firstResponseTimeoutMs).toBe(45_000);
		expect(env.toolManifest).toBe(true);
	});
});
