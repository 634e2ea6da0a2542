// Every environment variable pi-cursor-sdk reads, in one table: name, default, parser, meaning. Modules get the
// values from `readEnv` (the turn resolver reads the environment once per turn) or read one variable through
// `readEnvVar`; nothing else names a variable to read it. README's tables list the same names and defaults
// (test/unit/settings-env-readme.test.ts). Pure: the caller passes the environment (normally `process.env`).

import {
	booleanWord,
	DEFAULT_SETTING_SOURCES,
	decimalMs,
	MAX_TIMER_MS,
	type Parsed,
	type Parser,
	positiveWholeNumber,
	rawText,
	type SettingSourcesResult,
	settingSourcesList,
	trimmedText,
} from "./env-parse.ts";

/** A read-only view of an environment (`process.env` satisfies it). */
export type EnvRecord = Readonly<Record<string, string | undefined>>;

export interface EnvVar<T> {
	readonly name: string;
	/** The value when the variable is unset, or its value means nothing or is reported. */
	readonly default: T;
	readonly parse: Parser<T>;
	/** The default as README shows it, when it is not `on`/`off`/`unset` or the number itself. */
	readonly shown?: string;
	/** A second spelling read when the first is unset or unusable (e.g. `_SECONDS` after `_MS`). */
	readonly also?: { readonly name: string; readonly parse: Parser<T> };
	readonly meaning: string;
}

const entry = <T>(v: EnvVar<T>): EnvVar<T> => v;
const flag = (name: string, value: boolean, meaning: string) =>
	entry<boolean>({ name, default: value, parse: booleanWord, meaning });
/** A boolean that is `undefined` when unset, so another setting decides. */
const choice = (name: string, meaning: string) =>
	entry<boolean | undefined>({ name, default: undefined, parse: booleanWord, meaning });
const timer = (name: string, value: number, meaning: string) =>
	entry<number>({ name, default: value, parse: decimalMs(1, MAX_TIMER_MS), meaning });
const MCP_COMPLAINT = "is not a positive whole number; using the default.";
const mcpTimeout = (names: [ms: string, seconds: string], value: number, shown: string, meaning: string) =>
	entry<number>({
		name: names[0],
		default: value,
		parse: positiveWholeNumber(1, MAX_TIMER_MS, MCP_COMPLAINT),
		also: { name: names[1], parse: positiveWholeNumber(1000, MAX_TIMER_MS, MCP_COMPLAINT) },
		shown,
		meaning,
	});
const NATIVES = "set by us";
/** Trimmed text, unset when blank. */
const cloudText = (name: string, meaning: string) =>
	entry<string | undefined>({ name, default: undefined, parse: trimmedText, shown: "–", meaning });

export const ENV_VARS = {
	apiKey: entry<string | undefined>({
		name: "CURSOR_API_KEY",
		default: undefined,
		// A key of blanks only is no key: no catalog fetch or turn is attempted with it.
		parse: trimmedText,
		shown: "–",
		meaning: "the Cursor API key when Pi has none stored",
	}),
	hideModelsWhenLoggedOut: flag("PI_CURSOR_HIDE_MODELS_WHEN_LOGGED_OUT", false, "hide Cursor models without a key"),
	modelCacheTtlMs: entry<number>({
		name: "PI_CURSOR_SDK_MODEL_CACHE_TTL_MS",
		default: 86_400_000,
		parse: decimalMs(0),
		meaning: "how long a cached catalog is fresh (0: always stale)",
	}),
	disableModelCache: flag("PI_CURSOR_SDK_DISABLE_MODEL_CACHE", false, "never read or write the catalog cache"),
	modelRefreshTimeoutMs: entry<number>({
		name: "PI_CURSOR_SDK_MODEL_REFRESH_TIMEOUT_MS",
		default: 15_000,
		parse: decimalMs(1),
		meaning: "bound of one live catalog request",
	}),
	footer: flag("PI_CURSOR_FOOTER", true, "show the Cursor footer status"),
	settingSources: entry<SettingSourcesResult>({
		name: "PI_CURSOR_SETTING_SOURCES",
		default: DEFAULT_SETTING_SOURCES,
		parse: settingSourcesList,
		shown: "`all`",
		meaning: "which Cursor settings the agent loads",
	}),
	preservePiAgentsMd: flag("PI_CURSOR_PRESERVE_PI_AGENTS_MD", false, "keep Pi's context files Cursor loads itself"),
	useHttp1: choice("PI_CURSOR_HTTP_1_1", "force the HTTP/1.1 transport on or off"),
	localResume: flag("PI_CURSOR_LOCAL_RESUME", true, "resume a saved session's Cursor conversation"),
	prewarm: flag("PI_CURSOR_PREWARM", true, "prepare the first send in the background once Pi has started"),
	stateRoot: entry<string | undefined>({
		name: "PI_CURSOR_SDK_STATE_ROOT",
		default: undefined,
		parse: trimmedText,
		shown: "SDK default",
		meaning: "absolute directory of the per-session Cursor stores",
	}),
	eventDebug: flag("PI_CURSOR_SDK_EVENT_DEBUG", false, "capture every SDK event under the state root"),
	autoReview: choice("PI_CURSOR_AUTO_REVIEW", "Cursor's auto-review on or off (beats the config files)"),
	sandbox: choice("PI_CURSOR_SANDBOX", "Cursor's sandbox on or off (beats the config files)"),
	firstResponseTimeoutMs: timer("PI_CURSOR_FIRST_RESPONSE_TIMEOUT_MS", 45_000, "wait for Cursor's first event"),
	streamIdleTimeoutMs: timer("PI_CURSOR_STREAM_IDLE_TIMEOUT_MS", 300_000, "silence allowed mid-answer"),
	liveRunIdleDisposeMs: timer("PI_CURSOR_LIVE_RUN_IDLE_DISPOSE_MS", 300_000, "keep a run waiting for Pi's tools"),
	nativeToolDisplay: flag("PI_CURSOR_NATIVE_TOOL_DISPLAY", true, "replay Cursor's tool calls as Pi tool cards"),
	taskPresentation: entry<"subagent" | "task">({
		name: "PI_CURSOR_TASK_PRESENTATION",
		default: "subagent",
		parse: (raw): Parsed<"subagent" | "task"> => (raw.trim().toLowerCase() === "task" ? { value: "task" } : {}),
		shown: "`subagent`",
		meaning: '`task` titles Cursor\'s subagent calls "Cursor task"',
	}),
	registerNativeTools: flag("PI_CURSOR_REGISTER_NATIVE_TOOLS", true, "shadow Pi's tool names for the cards"),
	treeSitterVendorDir: entry<string | undefined>({
		name: "CURSOR_TREE_SITTER_VENDOR_DIR",
		default: undefined,
		parse: rawText,
		shown: NATIVES,
		meaning: "the SDK's native parser folder (set at load when unset)",
	}),
	ripgrepPath: entry<string | undefined>({
		name: "CURSOR_RIPGREP_PATH",
		default: undefined,
		parse: rawText,
		shown: NATIVES,
		meaning: "the SDK's ripgrep binary (set at load when unset)",
	}),
	backendUrl: entry<string | undefined>({
		name: "CURSOR_BACKEND_URL",
		default: undefined,
		parse: trimmedText,
		meaning: "the SDK's backend address (read only for /cursor-doctor)",
	}),
	piToolBridge: flag("PI_CURSOR_PI_TOOL_BRIDGE", true, "serve Pi's tools to Cursor"),
	exposeBuiltinTools: flag("PI_CURSOR_EXPOSE_BUILTIN_TOOLS", false, "also bridge Pi's built-in tools"),
	exposeBuiltinToolsUnderSafety: flag(
		"PI_CURSOR_EXPOSE_BUILTIN_TOOLS_UNDER_SAFETY",
		false,
		"also bridge Pi's built-ins on sandboxed or auto-review runs (they run in Pi, outside Cursor's sandbox)",
	),
	toolManifest: flag("PI_CURSOR_TOOL_MANIFEST", true, "list the bridged tools in the first message"),
	bridgeCallTimeoutMs: entry<number | undefined>({
		name: "PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS",
		default: undefined,
		parse: positiveWholeNumber(1, Number.MAX_SAFE_INTEGER, "is not a positive whole number of milliseconds."),
		shown: "MCP tool timeout",
		meaning: "deadline of one bridged call (never above the MCP tool timeout)",
	}),
	bridgeDebug: flag("PI_CURSOR_PI_TOOL_BRIDGE_DEBUG", false, "one JSON line per bridge event on stderr"),
	mcpToolTimeoutMs: mcpTimeout(
		["PI_CURSOR_MCP_TOOL_TIMEOUT_MS", "PI_CURSOR_MCP_TOOL_TIMEOUT_SECONDS"],
		3_600_000,
		"3600 s",
		"the SDK's MCP tool-call wait",
	),
	mcpConnectTimeoutMs: mcpTimeout(
		["PI_CURSOR_MCP_CONNECT_TIMEOUT_MS", "PI_CURSOR_MCP_CONNECT_TIMEOUT_SECONDS"],
		10_000,
		"10 s",
		"the SDK's MCP connect/list wait",
	),
	askQuestion: flag("PI_CURSOR_ASK_QUESTION", false, "register cursor_ask_question"),
	runtime: entry<string | undefined>({
		name: "PI_CURSOR_RUNTIME",
		default: undefined,
		parse: trimmedText,
		shown: "local",
		meaning: "`local` or `cloud`; any other value fails Cursor turns closed",
	}),
	// Cursor Cloud (src/cloud/).
	cloudAck: choice("PI_CURSOR_CLOUD_ACK", "confirm cloud turns without the TUI"),
	cloudRepo: cloudText("PI_CURSOR_CLOUD_REPO", "HTTPS repository a cloud agent works on"),
	cloudBranch: cloudText("PI_CURSOR_CLOUD_BRANCH", "the branch a cloud agent starts from"),
	cloudContext: cloudText("PI_CURSOR_CLOUD_CONTEXT", "`bootstrap` sends the prior conversation (default `fresh`)"),
	cloudDirectPush: choice("PI_CURSOR_CLOUD_DIRECT_PUSH", "work on the current branch"),
	cloudAutoCreatePr: choice("PI_CURSOR_CLOUD_AUTO_CREATE_PR", "open a pull request when done"),
	cloudSkipReviewerRequest: choice("PI_CURSOR_CLOUD_SKIP_REVIEWER_REQUEST", "request no reviewer on that PR"),
	cloudAllowLocalState: choice("PI_CURSOR_CLOUD_ALLOW_LOCAL_STATE", "skip the local git state check"),
	cloudEnvType: cloudText("PI_CURSOR_CLOUD_ENV_TYPE", "Cursor environment type: cloud, pool or machine"),
	cloudEnvName: cloudText("PI_CURSOR_CLOUD_ENV_NAME", "Cursor environment name"),
	cloudEnv: cloudText("PI_CURSOR_CLOUD_ENV", "env forwarding: not supported, fails closed"),
	cloudEnvFromFiles: choice("PI_CURSOR_CLOUD_ENV_FROM_FILES", "env forwarding: not supported, fails closed"),
};

export type EnvKey = keyof typeof ENV_VARS;
type ValueOf<V> = V extends EnvVar<infer T> ? T : never;
export type EnvValues = { readonly [K in EnvKey]: ValueOf<(typeof ENV_VARS)[K]> };

export interface EnvProblem {
	readonly key: EnvKey;
	/** Names the variable and its value. The default is used instead (an unusable setting-sources list fails turns). */
	readonly message: string;
}

/** The parsed environment, with one problem per unusable value that is worth reporting. */
export type CursorEnv = EnvValues & { readonly problems: readonly EnvProblem[] };

function readOne<T>(env: EnvRecord, variable: EnvVar<T>, problems: string[]): T {
	for (const spelling of variable.also ? [variable, variable.also] : [variable]) {
		const raw = env[spelling.name];
		if (raw === undefined) continue;
		const parsed = spelling.parse(raw, spelling.name);
		if (parsed.problem !== undefined) problems.push(parsed.problem);
		if ("value" in parsed) return parsed.value;
	}
	return variable.default;
}

/** Reads and parses every variable of the table. */
export function readEnv(env: EnvRecord): CursorEnv {
	const values: Record<string, unknown> = {};
	const problems: EnvProblem[] = [];
	for (const key of Object.keys(ENV_VARS) as EnvKey[]) {
		const messages: string[] = [];
		values[key] = readOne<unknown>(env, ENV_VARS[key] as EnvVar<unknown>, messages);
		for (const message of messages) problems.push({ key, message });
	}
	return { ...(values as EnvValues), problems };
}

/** Reads one variable through the table (for code that runs outside a turn). */
export function readEnvVar<K extends EnvKey>(env: EnvRecord, key: K): EnvValues[K] {
	return readOne<unknown>(env, ENV_VARS[key] as EnvVar<unknown>, []) as EnvValues[K];
}

/** The problem messages of some variables, in table order. */
export function envProblems(env: Pick<CursorEnv, "problems">, ...keys: EnvKey[]): string[] {
	return env.problems.filter((problem) => keys.includes(problem.key)).map((problem) => problem.message);
}

/** A variable's default as README's tables show it. */
export function shownDefault(variable: EnvVar<unknown>): string {
	if (variable.shown !== undefined) return variable.shown;
	if (variable.default === undefined) return "unset";
	if (typeof variable.default === "boolean") return variable.default ? "on" : "off";
	return String(variable.default);
}
