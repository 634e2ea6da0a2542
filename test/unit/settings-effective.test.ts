import { describe, expect, test } from "bun:test";
import {
	type CursorModelInput,
	type EffectiveSettingsInput,
	FAST_FLAG_CONFLICT_MESSAGE,
	type FastResolution,
	formatCursorStatus,
	type HttpResolution,
	isFooterEnabled,
	type ModeResolution,
	parseCursorModeFlag,
	parseFastForceFlags,
	parseHttpCommand,
	parseModeCommand,
	planFastToggle,
	resolveEffectiveSettings,
	resolveFast,
	resolveHttp1,
	resolveMode,
} from "../../src/settings/effective.ts";
import { readEnv } from "../../src/settings/env.ts";

const gpt55: CursorModelInput = {
	isCursor: true,
	selectionKey: "gpt-5.5",
	baseId: "gpt-5.5",
	fastCapable: true,
	catalogFastDefault: false,
};
/** An unambiguous SDK alias of gpt-5.5. */
const gptAlias: CursorModelInput = { ...gpt55, selectionKey: "gpt-latest" };
const composer: CursorModelInput = {
	isCursor: true,
	selectionKey: "composer-2.5",
	baseId: "composer-2.5",
	fastCapable: true,
	catalogFastDefault: true,
};
const grokFast: CursorModelInput = {
	isCursor: true,
	selectionKey: "grok-4.6",
	baseId: "grok-4.6",
	fastCapable: true,
	catalogFastDefault: true,
};
const gemini: CursorModelInput = {
	isCursor: true,
	selectionKey: "gemini-3.1-pro",
	baseId: "gemini-3.1-pro",
	fastCapable: false,
};
const notCursor: CursorModelInput = {
	isCursor: false,
	selectionKey: "claude-sonnet",
	baseId: "claude-sonnet",
	fastCapable: false,
};

function fastRecord(entries: Record<string, boolean>): Record<string, boolean> {
	return Object.assign(Object.create(null) as Record<string, boolean>, entries);
}

describe("fast precedence", () => {
	const cases: [string, EffectiveSettingsInput, FastResolution][] = [
		["catalog default (off)", { model: gpt55 }, { kind: "value", fast: false, source: "catalog" }],
		["catalog default (on)", { model: composer }, { kind: "value", fast: true, source: "catalog" }],
		[
			"missing catalog default is off",
			{ model: { ...gpt55, catalogFastDefault: undefined } },
			{ kind: "value", fast: false, source: "catalog" },
		],
		[
			"global default for the selected key beats the catalog",
			{ model: composer, config: { fastDefaults: { "composer-2.5": false } } },
			{ kind: "value", fast: false, source: "global" },
		],
		[
			"global default read fallback to the base id",
			{ model: gptAlias, config: { fastDefaults: { "gpt-5.5": true } } },
			{ kind: "value", fast: true, source: "global-base" },
		],
		[
			"global selected alias key beats the base-id key",
			{ model: gptAlias, config: { fastDefaults: { "gpt-latest": false, "gpt-5.5": true } } },
			{ kind: "value", fast: false, source: "global" },
		],
		[
			"global defaults for other models are ignored",
			{ model: gpt55, config: { fastDefaults: { "composer-2.5": true } } },
			{ kind: "value", fast: false, source: "catalog" },
		],
		[
			"inherited object properties are not preferences",
			{ model: { ...gpt55, selectionKey: "toString", baseId: "constructor" }, config: { fastDefaults: {} } },
			{ kind: "value", fast: false, source: "catalog" },
		],
		[
			"session state for the selected key beats the global default",
			{
				model: gpt55,
				session: { fast: fastRecord({ "gpt-5.5": true }) },
				config: { fastDefaults: { "gpt-5.5": false } },
			},
			{ kind: "value", fast: true, source: "session" },
		],
		[
			"session state for another key is ignored",
			{
				model: gpt55,
				session: { fast: fastRecord({ "composer-2.5": true }) },
				config: { fastDefaults: { "gpt-5.5": false } },
			},
			{ kind: "value", fast: false, source: "global" },
		],
		[
			"session state is keyed by the selected alias, not the base id",
			{ model: gptAlias, session: { fast: fastRecord({ "gpt-5.5": true }) } },
			{ kind: "value", fast: false, source: "catalog" },
		],
		[
			"--cursor-fast beats session state",
			{ model: gpt55, flags: { fast: true }, session: { fast: fastRecord({ "gpt-5.5": false }) } },
			{ kind: "value", fast: true, source: "flag" },
		],
		[
			"--cursor-no-fast beats session, global and catalog",
			{
				model: composer,
				flags: { noFast: true },
				session: { fast: fastRecord({ "composer-2.5": true }) },
				config: { fastDefaults: { "composer-2.5": true } },
			},
			{ kind: "value", fast: false, source: "flag" },
		],
		[
			"non-true flag values are not force flags",
			{ model: composer, flags: { fast: false, noFast: "true" } },
			{ kind: "value", fast: true, source: "catalog" },
		],
		[
			":slow alias beats --cursor-fast",
			{ model: { ...grokFast, aliasForcedFast: false }, flags: { fast: true } },
			{ kind: "value", fast: false, source: "alias" },
		],
		[
			":fast alias beats session and global",
			{
				model: { ...gpt55, aliasForcedFast: true },
				session: { fast: fastRecord({ "gpt-5.5": false }) },
				config: { fastDefaults: { "gpt-5.5": false } },
			},
			{ kind: "value", fast: true, source: "alias" },
		],
		[
			"both force flags → error (fallback = saved value)",
			{ model: gpt55, flags: { fast: true, noFast: true }, session: { fast: fastRecord({ "gpt-5.5": true }) } },
			{
				kind: "error",
				message: FAST_FLAG_CONFLICT_MESSAGE,
				fallback: { kind: "value", fast: true, source: "session" },
			},
		],
		[
			"both force flags with an alias → error (fallback = alias)",
			{ model: { ...grokFast, aliasForcedFast: false }, flags: { fast: true, noFast: true } },
			{
				kind: "error",
				message: FAST_FLAG_CONFLICT_MESSAGE,
				fallback: { kind: "value", fast: false, source: "alias" },
			},
		],
		["model without fast → n/a", { model: gemini }, { kind: "n/a" }],
		["model without fast ignores force flags → n/a", { model: gemini, flags: { fast: true } }, { kind: "n/a" }],
		["non-Cursor model → n/a", { model: notCursor, flags: { fast: true } }, { kind: "n/a" }],
		["no model → n/a", { model: undefined }, { kind: "n/a" }],
	];
	for (const [name, input, expected] of cases) {
		test(name, () => {
			expect(resolveFast(input)).toEqual(expected);
		});
	}

	test("parseFastForceFlags", () => {
		expect(parseFastForceFlags(undefined)).toEqual({ ok: true, force: undefined });
		expect(parseFastForceFlags({})).toEqual({ ok: true, force: undefined });
		expect(parseFastForceFlags({ fast: true })).toEqual({ ok: true, force: true });
		expect(parseFastForceFlags({ noFast: true })).toEqual({ ok: true, force: false });
		expect(parseFastForceFlags({ fast: true, noFast: true })).toEqual({ ok: false, error: FAST_FLAG_CONFLICT_MESSAGE });
		expect(FAST_FLAG_CONFLICT_MESSAGE).toContain("--cursor-fast");
		expect(FAST_FLAG_CONFLICT_MESSAGE).toContain("--cursor-no-fast");
	});
});

describe("mode precedence", () => {
	const cases: [string, EffectiveSettingsInput, ModeResolution][] = [
		["default is agent", { model: gpt55 }, { ok: true, mode: "agent", source: "default" }],
		["session plan", { model: gpt55, session: { mode: "plan" } }, { ok: true, mode: "plan", source: "session" }],
		["session agent", { model: gpt55, session: { mode: "agent" } }, { ok: true, mode: "agent", source: "session" }],
		[
			"--cursor-mode plan beats session agent",
			{ model: gpt55, flags: { mode: "plan" }, session: { mode: "agent" } },
			{ ok: true, mode: "plan", source: "flag" },
		],
		[
			"--cursor-mode agent beats session plan",
			{ model: gpt55, flags: { mode: "agent" }, session: { mode: "plan" } },
			{ ok: true, mode: "agent", source: "flag" },
		],
		[
			"blank flag is not given",
			{ model: gpt55, flags: { mode: "" }, session: { mode: "plan" } },
			{ ok: true, mode: "plan", source: "session" },
		],
		["flag value is trimmed", { model: gpt55, flags: { mode: " plan " } }, { ok: true, mode: "plan", source: "flag" }],
		[
			"invalid flag → error naming the valid values (fallback = session)",
			{ model: gpt55, flags: { mode: "ask" }, session: { mode: "plan" } },
			{
				ok: false,
				error: 'Invalid --cursor-mode value "ask". Valid values: agent, plan.',
				fallback: { ok: true, mode: "plan", source: "session" },
			},
		],
		[
			"modes are case-sensitive",
			{ model: gpt55, flags: { mode: "PLAN" } },
			{
				ok: false,
				error: 'Invalid --cursor-mode value "PLAN". Valid values: agent, plan.',
				fallback: { ok: true, mode: "agent", source: "default" },
			},
		],
		[
			"non-string flag value → error",
			{ model: gpt55, flags: { mode: true } },
			{
				ok: false,
				error: "Invalid --cursor-mode value. Valid values: agent, plan.",
				fallback: { ok: true, mode: "agent", source: "default" },
			},
		],
		[
			"malformed session mode falls back to agent",
			{ model: gpt55, session: { mode: "ask" as never } },
			{ ok: true, mode: "agent", source: "default" },
		],
	];
	for (const [name, input, expected] of cases) {
		test(name, () => {
			expect(resolveMode(input)).toEqual(expected);
		});
	}

	test("parseCursorModeFlag", () => {
		expect(parseCursorModeFlag(undefined)).toEqual({ ok: true, mode: undefined });
		expect(parseCursorModeFlag("agent")).toEqual({ ok: true, mode: "agent" });
		expect(parseCursorModeFlag("plan")).toEqual({ ok: true, mode: "plan" });
		const bad = parseCursorModeFlag("debug");
		expect(bad.ok).toBe(false);
		if (!bad.ok) expect(bad.error).toContain("agent, plan");
	});
});

describe("HTTP/1.1 precedence", () => {
	const cases: [string, EffectiveSettingsInput, HttpResolution][] = [
		["unset by default", { model: gpt55 }, { useHttp1: undefined, source: "default" }],
		[
			"user config true",
			{ model: gpt55, config: { local: { useHttp1ForAgent: true } } },
			{ useHttp1: true, source: "user" },
		],
		[
			"user config false is explicit",
			{ model: gpt55, config: { local: { useHttp1ForAgent: false } } },
			{ useHttp1: false, source: "user" },
		],
		[
			"env beats user (on)",
			{ model: gpt55, env: readEnv({ PI_CURSOR_HTTP_1_1: "1" }), config: { local: { useHttp1ForAgent: false } } },
			{ useHttp1: true, source: "env" },
		],
		[
			"env beats user (off)",
			{ model: gpt55, env: readEnv({ PI_CURSOR_HTTP_1_1: "false" }), config: { local: { useHttp1ForAgent: true } } },
			{ useHttp1: false, source: "env" },
		],
		[
			"unrecognized env falls through to user",
			{ model: gpt55, env: readEnv({ PI_CURSOR_HTTP_1_1: "http1" }), config: { local: { useHttp1ForAgent: true } } },
			{ useHttp1: true, source: "user" },
		],
		[
			"blank env falls through to default",
			{ model: gpt55, env: readEnv({ PI_CURSOR_HTTP_1_1: "" }) },
			{ useHttp1: undefined, source: "default" },
		],
		[
			"session beats env (off)",
			{ model: gpt55, session: { useHttp1: false }, env: readEnv({ PI_CURSOR_HTTP_1_1: "true" }) },
			{ useHttp1: false, source: "session" },
		],
		[
			"session beats env and user (on)",
			{
				model: gpt55,
				session: { useHttp1: true },
				env: readEnv({ PI_CURSOR_HTTP_1_1: "off" }),
				config: { local: { useHttp1ForAgent: false } },
			},
			{ useHttp1: true, source: "session" },
		],
		[
			"cleared (null) session falls through to env",
			{ model: gpt55, session: { useHttp1: null }, env: readEnv({ PI_CURSOR_HTTP_1_1: "yes" }) },
			{ useHttp1: true, source: "env" },
		],
		[
			"cleared (null) session falls through to user",
			{ model: gpt55, session: { useHttp1: null }, config: { local: { useHttp1ForAgent: true } } },
			{ useHttp1: true, source: "user" },
		],
	];
	for (const [name, input, expected] of cases) {
		test(name, () => {
			expect(resolveHttp1(input)).toEqual(expected);
		});
	}
});

describe("status text", () => {
	const cases: [string, EffectiveSettingsInput, string | undefined][] = [
		// Fast Behavior examples
		["cursor:local · fast:off (gpt-5.5 default)", { model: gpt55 }, "cursor:local · fast:off"],
		["cursor:local · fast:on (composer default)", { model: composer }, "cursor:local · fast:on"],
		[
			"cursor:local · fast:on · http1",
			{ model: composer, env: readEnv({ PI_CURSOR_HTTP_1_1: "true" }) },
			"cursor:local · fast:on · http1",
		],
		// Cursor SDK Mode Behavior examples
		["cursor:local · fast:n/a · plan", { model: gemini, session: { mode: "plan" } }, "cursor:local · fast:n/a · plan"],
		["cursor:local · fast:off · plan", { model: gpt55, flags: { mode: "plan" } }, "cursor:local · fast:off · plan"],
		["cursor:local · fast:on · plan", { model: composer, session: { mode: "plan" } }, "cursor:local · fast:on · plan"],
		[
			"cursor:cloud · fast:n/a · plan",
			{ model: composer, flags: { runtime: "cloud" }, session: { mode: "plan" } },
			"cursor:cloud · fast:n/a · plan",
		],
		// Footer Behavior examples
		["cursor:local · fast:n/a", { model: gemini }, "cursor:local · fast:n/a"],
		[
			"cursor:cloud · fast:n/a (fast-capable model)",
			{ model: composer, flags: { runtime: "cloud" } },
			"cursor:cloud · fast:n/a",
		],
		[
			"http1 only for enabled local runtime (cloud)",
			{ model: gpt55, flags: { runtime: "cloud" }, session: { useHttp1: true } },
			"cursor:cloud · fast:n/a",
		],
		["explicit HTTP/2 shows no marker", { model: gpt55, session: { useHttp1: false } }, "cursor:local · fast:off"],
		[
			"http1 from user config",
			{ model: gemini, config: { local: { useHttp1ForAgent: true } } },
			"cursor:local · fast:n/a · http1",
		],
		[
			"http1 and plan together",
			{ model: composer, session: { mode: "plan", useHttp1: true } },
			"cursor:local · fast:on · http1 · plan",
		],
		["agent mode is not shown", { model: gpt55, session: { mode: "agent" } }, "cursor:local · fast:off"],
		[
			"--cursor-mode agent hides session plan",
			{ model: gpt55, flags: { mode: "agent" }, session: { mode: "plan" } },
			"cursor:local · fast:off",
		],
		["alias :fast", { model: { ...gpt55, aliasForcedFast: true } }, "cursor:local · fast:on"],
		["--cursor-no-fast", { model: grokFast, flags: { noFast: true } }, "cursor:local · fast:off"],
		[
			"invalid --cursor-mode shows the fallback mode",
			{ model: gpt55, flags: { mode: "bogus" }, session: { mode: "plan" } },
			"cursor:local · fast:off · plan",
		],
		[
			"conflicting fast flags show the saved value",
			{ model: composer, flags: { fast: true, noFast: true } },
			"cursor:local · fast:on",
		],
		// Hidden
		["non-Cursor model → no status", { model: notCursor, session: { mode: "plan" } }, undefined],
		["no model → no status", { model: undefined }, undefined],
		["PI_CURSOR_FOOTER=0 → no status", { model: gpt55, env: readEnv({ PI_CURSOR_FOOTER: "0" }) }, undefined],
		["PI_CURSOR_FOOTER=off → no status", { model: gpt55, env: readEnv({ PI_CURSOR_FOOTER: "off" }) }, undefined],
		[
			"PI_CURSOR_FOOTER=1 → status",
			{ model: gpt55, env: readEnv({ PI_CURSOR_FOOTER: "1" }) },
			"cursor:local · fast:off",
		],
		[
			"unrecognized PI_CURSOR_FOOTER keeps default",
			{ model: gpt55, env: readEnv({ PI_CURSOR_FOOTER: "x" }) },
			"cursor:local · fast:off",
		],
	];
	for (const [name, input, expected] of cases) {
		test(name, () => {
			expect(formatCursorStatus(input)).toBe(expected);
			expect(resolveEffectiveSettings(input).status).toBe(expected);
		});
	}

	test("detailed examples: composer fast toggle and gpt-5.3-codex default", () => {
		const composerOff = { model: composer, session: { fast: fastRecord({ "composer-2.5": false }) } };
		expect(formatCursorStatus(composerOff)).toBe("cursor:local · fast:off");
		const codex: CursorModelInput = { ...composer, selectionKey: "gpt-5.3-codex", baseId: "gpt-5.3-codex" };
		expect(formatCursorStatus({ model: codex })).toBe("cursor:local · fast:on");
		const gptToggled = { model: gpt55, session: { fast: fastRecord({ "gpt-5.5": true }) } };
		expect(formatCursorStatus(gptToggled)).toBe("cursor:local · fast:on");
	});

	test("isFooterEnabled", () => {
		expect(isFooterEnabled(undefined)).toBe(true);
		expect(isFooterEnabled(readEnv({}))).toBe(true);
		expect(isFooterEnabled(readEnv({ PI_CURSOR_FOOTER: "no" }))).toBe(false);
		expect(isFooterEnabled(readEnv({ PI_CURSOR_FOOTER: "ON" }))).toBe(true);
	});

	test("resolveEffectiveSettings returns every part", () => {
		expect(
			resolveEffectiveSettings({
				model: grokFast,
				flags: { mode: "plan" },
				env: readEnv({ PI_CURSOR_HTTP_1_1: "1" }),
			}),
		).toEqual({
			fast: { kind: "value", fast: true, source: "catalog" },
			mode: { ok: true, mode: "plan", source: "flag" },
			http: { useHttp1: true, source: "env" },
			runtime: { ok: true, runtime: "local", source: "default" },
			status: "cursor:local · fast:on · http1 · plan",
		});
	});
});

describe("command planning", () => {
	test("/cursor-fast flips the saved value of the unsuffixed model", () => {
		expect(planFastToggle({ model: gpt55 })).toEqual({
			kind: "toggle",
			modelKey: "gpt-5.5",
			fast: true,
			message: "Cursor fast on for gpt-5.5.",
		});
		expect(planFastToggle({ model: composer, config: { fastDefaults: { "composer-2.5": false } } })).toMatchObject({
			kind: "toggle",
			modelKey: "composer-2.5",
			fast: true,
		});
		expect(
			planFastToggle({
				model: composer,
				session: { fast: fastRecord({ "composer-2.5": true }) },
				config: { fastDefaults: { "composer-2.5": false } },
			}),
		).toMatchObject({ kind: "toggle", fast: false });
	});

	test("/cursor-fast saves under the selected alias key", () => {
		expect(planFastToggle({ model: gptAlias, config: { fastDefaults: { "gpt-5.5": true } } })).toMatchObject({
			kind: "toggle",
			modelKey: "gpt-latest",
			fast: false,
		});
	});

	test("/cursor-fast flips the value this run uses, a start flag's included", () => {
		// Saved on, started with --cursor-no-fast: the run is off, so the toggle turns it on.
		const saved = { fastDefaults: { "gpt-5.5": true } };
		expect(planFastToggle({ model: gpt55, flags: { noFast: true }, config: saved })).toEqual({
			kind: "toggle",
			modelKey: "gpt-5.5",
			fast: true,
			message: "Cursor fast on for gpt-5.5.",
		});
		expect(planFastToggle({ model: gpt55, flags: { fast: true } })).toMatchObject({ fast: false });
	});

	test("/cursor-fast on|off|toggle; anything else is refused with the usage", () => {
		const started = { model: gpt55, flags: { noFast: true } };
		expect(planFastToggle(started, "on")).toMatchObject({ kind: "toggle", fast: true });
		expect(planFastToggle(started, " OFF ")).toMatchObject({ kind: "toggle", fast: false });
		expect(planFastToggle(started, "toggle")).toMatchObject({ kind: "toggle", fast: true });
		expect(planFastToggle(started, "maybe")).toEqual({
			kind: "invalid",
			message: 'Unknown value "maybe". Usage: /cursor-fast [on|off|toggle]',
		});
	});

	test("a command typed during the run wins over the start flag; before the run, the flag wins", () => {
		const run = { fast: fastRecord({ "gpt-5.5": true }), mode: "agent" as const, runtime: "local" as const };
		const started = {
			model: gpt55,
			flags: { noFast: true, mode: "plan", runtime: "cloud" },
			session: { ...run, fast: fastRecord({ "gpt-5.5": true }) },
		};
		// The same entries, recorded before this run started: the flags decide.
		expect(resolveEffectiveSettings(started)).toMatchObject({
			fast: { fast: false, source: "flag" },
			mode: { mode: "plan", source: "flag" },
			runtime: { runtime: "cloud", source: "flag" },
			status: "cursor:cloud · fast:n/a · plan",
		});
		// Recorded during this run: the commands decide.
		expect(resolveEffectiveSettings({ ...started, run })).toMatchObject({
			fast: { fast: true, source: "session" },
			mode: { mode: "agent", source: "session" },
			runtime: { runtime: "local", source: "session" },
			status: "cursor:local · fast:on",
		});
		// A run's fast choice belongs to its model: another model still starts from the flag.
		expect(resolveFast({ ...started, run, model: composer })).toMatchObject({ fast: false, source: "flag" });
		// A command's mode stands in for an invalid flag.
		expect(resolveMode({ model: undefined, flags: { mode: "bogus" }, run: { mode: "plan" } })).toEqual({
			ok: true,
			mode: "plan",
			source: "session",
		});
	});

	test("/cursor-fast no-ops", () => {
		expect(planFastToggle({ model: gemini })).toEqual({
			kind: "unsupported",
			message: "Fast mode not supported by gemini-3.1-pro",
		});
		expect(planFastToggle({ model: notCursor }).kind).toBe("not-cursor");
		expect(planFastToggle({ model: undefined }).kind).toBe("not-cursor");
		const alias = planFastToggle({ model: { ...grokFast, aliasForcedFast: false } });
		expect(alias.kind).toBe("alias-selected");
		expect(alias.message).toContain("grok-4.6:slow");
	});

	test("/cursor-mode arguments", () => {
		expect(parseModeCommand("")).toEqual({ kind: "report" });
		expect(parseModeCommand("  ")).toEqual({ kind: "report" });
		expect(parseModeCommand("plan")).toEqual({ kind: "set", mode: "plan" });
		expect(parseModeCommand(" agent ")).toEqual({ kind: "set", mode: "agent" });
		const bad = parseModeCommand("ask");
		expect(bad.kind).toBe("invalid");
		if (bad.kind === "invalid") expect(bad.message).toContain("Usage: /cursor-mode [agent|plan]");
	});

	test("/cursor-http arguments", () => {
		const unset: HttpResolution = { useHttp1: undefined, source: "default" };
		const on: HttpResolution = { useHttp1: true, source: "env" };
		const off: HttpResolution = { useHttp1: false, source: "user" };
		expect(parseHttpCommand("", unset)).toEqual({ kind: "report" });
		expect(parseHttpCommand("on", unset)).toEqual({ kind: "set", useHttp1: true });
		expect(parseHttpCommand("OFF", on)).toEqual({ kind: "set", useHttp1: false });
		expect(parseHttpCommand("toggle", unset)).toEqual({ kind: "set", useHttp1: true });
		expect(parseHttpCommand("toggle", off)).toEqual({ kind: "set", useHttp1: true });
		expect(parseHttpCommand("toggle", on)).toEqual({ kind: "set", useHttp1: false });
		const bad = parseHttpCommand("fast", unset);
		expect(bad.kind).toBe("invalid");
		if (bad.kind === "invalid") expect(bad.message).toContain("Usage: /cursor-http [on|off|toggle]");
	});
});
