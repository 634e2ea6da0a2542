// Every PI_CURSOR_* variable with generated values: readers never throw, a valid value applies, anything else keeps
// the default, and where a reader reports problems the invalid variable is named exactly once (a valid one never).
import { afterAll, expect, test } from "bun:test";
import { readBridgeSettings } from "../../src/bridge/settings.ts";
import { readMcpTimeoutSettings } from "../../src/process/mcp-timeouts.ts";
import { chooseStoreRoot, pathTextProblem } from "../../src/session/store-root.ts";
import { ENV_VARS, type EnvKey, type EnvRecord, readEnv } from "../../src/settings/env.ts";
import { parseBooleanSetting } from "../../src/settings/env-parse.ts";
import { resolveSafety } from "../../src/settings/safety.ts";
import { fc, nastyString, PropertyTarget } from "../support/property.ts";

const target = new PropertyTarget("env-values");
afterAll(() => target.report());

/** A variable's value as the table reads it, by the variable's name. */
function readByName(env: EnvRecord, name: string): unknown {
	const key = (Object.keys(ENV_VARS) as EnvKey[]).find((k) => ENV_VARS[k].name === name);
	if (!key) throw new Error(`${name} is not in the environment table`);
	return readEnv(env)[key];
}

const TRUE_WORDS = ["1", "true", "on", "yes", "enabled"];
const FALSE_WORDS = ["0", "false", "off", "none", "no", "disabled"];
const MAX_TIMER = 2_147_483_647;

/** Case and surrounding whitespace variants of a word. */
const spelled = (words: string[]) =>
	fc
		.tuple(fc.constantFrom(...words), fc.constantFrom("", " ", "\t"), fc.boolean())
		.map(([word, pad, upper]) => `${pad}${upper ? word.toUpperCase() : word}${pad}`);

/** Number-like text a user may type, most of which is not a plain positive decimal integer. */
const numberish = fc.oneof(
	fc.nat({ max: 10_000_000 }).map(String),
	fc.constantFrom("0", "-1", "+5", "1e3", "0x10", "1.5", "١٢٣", " 42", "42 ", "9007199254740993", "2147483648"),
	fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String),
	nastyString,
);

type Outcome = { value: unknown; problem?: boolean };

interface EnvVar {
	name: string;
	values: fc.Arbitrary<string>;
	/** What the code should make of `raw` (undefined: unset). */
	expect(raw: string | undefined): Outcome;
	/** What the code does make of the environment. */
	observe(env: Record<string, string | undefined>): unknown;
	/** The problem lines that may name this variable (empty for readers that report nothing). */
	problems?(env: Record<string, string | undefined>): readonly string[];
}

const boolValues = fc.oneof(spelled(TRUE_WORDS), spelled(FALSE_WORDS), nastyString, numberish);
function boolExpect(fallback: boolean | undefined) {
	return (raw: string | undefined): Outcome => {
		const word = raw?.trim().toLowerCase();
		if (word !== undefined && TRUE_WORDS.includes(word)) return { value: true };
		if (word !== undefined && FALSE_WORDS.includes(word)) return { value: false };
		return { value: fallback };
	};
}
const bool = (name: string, fallback: boolean | undefined, observe: EnvVar["observe"]): EnvVar => ({
	name,
	values: boolValues,
	expect: boolExpect(fallback),
	observe,
});
const plainBool = (name: string, fallback: boolean) => bool(name, fallback, (env) => readByName(env, name));

/** Decimal milliseconds from `min` up to `max`, else the default (never reported). */
function millisExpect(fallback: number, min: number, max: number) {
	return (raw: string | undefined): Outcome => {
		if (raw === undefined || !/^\d+$/.test(raw)) return { value: fallback };
		const n = Number(raw);
		return { value: Number.isSafeInteger(n) && n >= min && n <= max ? n : fallback };
	};
}

/** A positive whole number, reported when malformed (bridge deadline, MCP timeouts). */
function reportedPositive(raw: string | undefined, scale: number, fallback: number, cap: number): Outcome {
	if (raw === undefined || raw.trim() === "") return { value: fallback };
	const text = raw.trim();
	const n = /^\d+$/.test(text) ? Number(text) * scale : Number.NaN;
	if (Number.isSafeInteger(n) && n > 0) return { value: Math.min(n, cap) };
	return { value: fallback, problem: true };
}

const MCP_TOOL_DEFAULT = 3_600_000;
const bridgeProblems = (env: Record<string, string | undefined>) =>
	readBridgeSettings(readEnv(env), MCP_TOOL_DEFAULT).problems;

const VARS: EnvVar[] = [
	bool("PI_CURSOR_HTTP_1_1", undefined, (env) => readEnv(env).useHttp1),
	bool("PI_CURSOR_FOOTER", true, (env) => readEnv(env).footer),
	bool("PI_CURSOR_HIDE_MODELS_WHEN_LOGGED_OUT", false, (env) => readEnv(env).hideModelsWhenLoggedOut),
	bool("PI_CURSOR_SDK_DISABLE_MODEL_CACHE", false, (env) => readEnv(env).disableModelCache),
	bool("PI_CURSOR_PI_TOOL_BRIDGE", true, (env) => readBridgeSettings(readEnv(env), MCP_TOOL_DEFAULT).enabled),
	bool(
		"PI_CURSOR_EXPOSE_BUILTIN_TOOLS",
		false,
		(env) => readBridgeSettings(readEnv(env), MCP_TOOL_DEFAULT).exposeBuiltins,
	),
	bool("PI_CURSOR_PI_TOOL_BRIDGE_DEBUG", false, (env) => readBridgeSettings(readEnv(env), MCP_TOOL_DEFAULT).debug),
	bool("PI_CURSOR_AUTO_REVIEW", false, (env) => resolveSafety({ env: readEnv(env) }).autoReview),
	bool("PI_CURSOR_SANDBOX", false, (env) => resolveSafety({ env: readEnv(env) }).sandbox),
	plainBool("PI_CURSOR_TOOL_MANIFEST", true),
	plainBool("PI_CURSOR_ASK_QUESTION", false),
	plainBool("PI_CURSOR_LOCAL_RESUME", true),
	plainBool("PI_CURSOR_PRESERVE_PI_AGENTS_MD", false),
	plainBool("PI_CURSOR_NATIVE_TOOL_DISPLAY", true),
	plainBool("PI_CURSOR_REGISTER_NATIVE_TOOLS", true),
	plainBool("PI_CURSOR_SDK_EVENT_DEBUG", false),
	{
		name: "PI_CURSOR_SDK_MODEL_CACHE_TTL_MS",
		values: numberish,
		expect: millisExpect(86_400_000, 0, Number.MAX_SAFE_INTEGER),
		observe: (env) => readEnv(env).modelCacheTtlMs,
	},
	{
		name: "PI_CURSOR_SDK_MODEL_REFRESH_TIMEOUT_MS",
		values: numberish,
		expect: millisExpect(15_000, 1, Number.MAX_SAFE_INTEGER),
		observe: (env) => readEnv(env).modelRefreshTimeoutMs,
	},
	...(
		[
			["PI_CURSOR_FIRST_RESPONSE_TIMEOUT_MS", 45_000, "firstResponseTimeoutMs"],
			["PI_CURSOR_STREAM_IDLE_TIMEOUT_MS", 300_000, "streamIdleTimeoutMs"],
			["PI_CURSOR_LIVE_RUN_IDLE_DISPOSE_MS", 300_000, "liveRunIdleDisposeMs"],
		] as const
	).map(
		([name, fallback, field]): EnvVar => ({
			name,
			values: numberish,
			expect: millisExpect(fallback, 1, MAX_TIMER),
			observe: (env) => readEnv(env)[field],
		}),
	),
	{
		name: "PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS",
		values: numberish,
		expect: (raw) => reportedPositive(raw, 1, MCP_TOOL_DEFAULT, MCP_TOOL_DEFAULT),
		observe: (env) => readBridgeSettings(readEnv(env), MCP_TOOL_DEFAULT).callTimeoutMs,
		problems: bridgeProblems,
	},
	...(
		[
			["PI_CURSOR_MCP_TOOL_TIMEOUT_MS", "PI_CURSOR_MCP_TOOL_TIMEOUT_SECONDS", 1, MCP_TOOL_DEFAULT, "toolMs"],
			["PI_CURSOR_MCP_TOOL_TIMEOUT_SECONDS", "PI_CURSOR_MCP_TOOL_TIMEOUT_MS", 1000, MCP_TOOL_DEFAULT, "toolMs"],
			["PI_CURSOR_MCP_CONNECT_TIMEOUT_MS", "PI_CURSOR_MCP_CONNECT_TIMEOUT_SECONDS", 1, 10_000, "connectMs"],
			["PI_CURSOR_MCP_CONNECT_TIMEOUT_SECONDS", "PI_CURSOR_MCP_CONNECT_TIMEOUT_MS", 1000, 10_000, "connectMs"],
		] as const
	).map(
		([name, partner, scale, fallback, field]): EnvVar => ({
			// Each of a pair alone (`_MS` wins over `_SECONDS`: the unit tests cover the precedence).
			name,
			values: numberish,
			expect: (raw) => reportedPositive(raw, scale, fallback, MAX_TIMER),
			observe: (env) => readMcpTimeoutSettings(readEnv({ ...env, [partner]: undefined }))[field],
			problems: (env) => readMcpTimeoutSettings(readEnv({ ...env, [partner]: undefined })).problems,
		}),
	),
	{
		name: "PI_CURSOR_SETTING_SOURCES",
		values: fc.oneof(
			fc
				.array(fc.constantFrom("project", "user", "team", "mdm", "plugins", "PROJECT", " user "), { maxLength: 4 })
				.map((items) => items.join(",")),
			fc.constantFrom("all", "none", "all,user", "bogus", ",", " , "),
			nastyString,
		),
		expect: (raw) => {
			if (raw === undefined || raw.trim() === "") return { value: ["all"] };
			const items = raw
				.split(",")
				.map((item) => item.trim().toLowerCase())
				.filter((item) => item !== "");
			const known = ["project", "user", "team", "mdm", "plugins"];
			const unique = [...new Set(items)];
			if (unique.length === 0 || unique.some((i) => i !== "all" && i !== "none" && !known.includes(i))) {
				return { value: "error", problem: true };
			}
			if (unique.includes("all") || unique.includes("none")) {
				if (unique.length > 1) return { value: "error", problem: true };
				return { value: unique[0] === "all" ? ["all"] : [] };
			}
			return { value: unique };
		},
		observe: (env) => {
			const sources = readEnv(env).settingSources;
			return sources.ok ? [...sources.sources] : "error";
		},
		problems: (env) => {
			const sources = readEnv(env).settingSources;
			return sources.ok ? [] : [sources.error];
		},
	},
	{
		name: "PI_CURSOR_SDK_STATE_ROOT",
		values: fc.oneof(
			fc.constantFrom("/tmp/x", "relative/dir", "~/state", "/", "/a/../b", "$HOME/x", "  /tmp/y  "),
			nastyString,
		),
		expect: (raw) => {
			const path = raw?.trim();
			return { value: path ? { path, textProblem: pathTextProblem(path) !== undefined } : "default" };
		},
		observe: (env) => {
			const choice = chooseStoreRoot(readEnv(env), undefined);
			return choice.kind === "default"
				? "default"
				: { path: choice.path, textProblem: pathTextProblem(choice.path) !== undefined };
		},
	},
];

/** Each variable unset, or set to one of its generated values. */
const envArb = fc.record(
	Object.fromEntries(VARS.map((v) => [v.name, fc.option(v.values, { nil: undefined, freq: 2 })])),
	{ requiredKeys: [] },
) as fc.Arbitrary<Record<string, string | undefined>>;

test("every PI_CURSOR_* value: valid values apply, anything else keeps the default, reported problems name it once", async () => {
	await target.check(
		fc.property(envArb, (env) => {
			for (const variable of VARS) {
				const raw = env[variable.name];
				const expected = variable.expect(raw);
				expect({ name: variable.name, raw, value: variable.observe(env) }).toEqual({
					name: variable.name,
					raw,
					value: expected.value,
				});
				if (!variable.problems) continue;
				const named =
					variable
						.problems(env)
						.join("\n")
						.split(new RegExp(`\\b${variable.name}\\b`)).length - 1;
				expect({ name: variable.name, raw, named }).toEqual({
					name: variable.name,
					raw,
					named: expected.problem ? 1 : 0,
				});
			}
		}),
		1500,
	);
});

test("the boolean vocabulary is total: any text parses to true, false or unset, and never throws", async () => {
	await target.check(
		fc.property(fc.oneof(boolValues, fc.string({ unit: "binary" })), (raw) => {
			expect([true, false, undefined]).toContain(parseBooleanSetting(raw));
		}),
		2000,
	);
});
