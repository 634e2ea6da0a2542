// Start flags set where a run starts; a command typed later changes it for the rest of the run. Generated flags
// (valid, invalid, conflicting), session entries from before the run, user defaults and commands: after any command,
// the value it announced is the value the precedence rules give (what a turn sends) and the footer shows it.
import { afterAll, expect, test } from "bun:test";
import {
	type CursorFlagsInput,
	type CursorModelInput,
	type EffectiveSettingsInput,
	parseModeCommand,
	planFastToggle,
	resolveEffectiveSettings,
} from "../../src/settings/effective.ts";
import {
	applySessionEntry,
	type CursorSessionState,
	emptySessionState,
	fastEntry,
	modeEntry,
	restoreSessionState,
	runtimeEntry,
	type SessionStateEntry,
} from "../../src/settings/session-state.ts";
import { fc, PropertyTarget } from "../support/property.ts";

const target = new PropertyTarget("start-flags");
afterAll(() => target.report());

const KEY = "gpt-5.5";
const model = fc.record({
	isCursor: fc.constant(true),
	selectionKey: fc.constant(KEY),
	baseId: fc.constant(KEY),
	fastCapable: fc.constant(true),
	catalogFastDefault: fc.boolean(),
}) satisfies fc.Arbitrary<CursorModelInput>;

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const flags: fc.Arbitrary<CursorFlagsInput> = fc.record({
	fast: maybe(fc.constant(true)),
	noFast: maybe(fc.constant(true)),
	mode: maybe(fc.constantFrom("agent", "plan", " plan ", "", "bogus")),
	runtime: maybe(fc.constantFrom("local", "cloud", "", "remote")),
});

/** An entry a command records (the session's entries, before or during the run). */
const entry: fc.Arbitrary<SessionStateEntry> = fc.oneof(
	fc.boolean().map((fast) => fastEntry(KEY, fast)),
	fc.constantFrom("agent", "plan" as const).map((mode) => modeEntry(mode)),
	fc.constantFrom("local", "cloud" as const).map((runtime) => runtimeEntry(runtime)),
);

/** A command the user types, with what it must lead to. */
const command = fc.oneof(
	fc.constantFrom("", "on", "off", "toggle").map((args) => ({ kind: "fast" as const, args })),
	fc.constantFrom("agent", "plan").map((args) => ({ kind: "mode" as const, args })),
	fc.constantFrom("local", "cloud" as const).map((runtime) => ({ kind: "runtime" as const, runtime })),
);

const apply = (state: CursorSessionState, e: SessionStateEntry) => applySessionEntry(state, e.customType, e.data);

test("after any command, what it said, the effective value (the request) and the footer agree, whatever the flags", async () => {
	await target.check(
		fc.property(
			model,
			flags,
			fc.array(entry, { maxLength: 4 }),
			fc.array(entry, { maxLength: 3 }),
			maybe(fc.boolean()),
			fc.array(command, { minLength: 1, maxLength: 4 }),
			(m, f, before, during, savedFast, commands) => {
				let session = [...before, ...during].reduce(apply, emptySessionState());
				let run = during.reduce(apply, emptySessionState());
				const config = savedFast === undefined ? {} : { fastDefaults: { [KEY]: savedFast } };
				const input = (): EffectiveSettingsInput => ({ model: m, flags: f, session, run, config });
				for (const c of commands) {
					let recorded: SessionStateEntry;
					let announced = false;
					if (c.kind === "fast") {
						const plan = planFastToggle(input(), c.args);
						if (plan.kind !== "toggle") throw new Error(`unexpected ${plan.kind}`);
						expect(plan.message).toBe(`Cursor fast ${plan.fast ? "on" : "off"} for ${KEY}.`);
						recorded = fastEntry(plan.modelKey, plan.fast);
						announced = plan.fast;
					} else if (c.kind === "mode") {
						const plan = parseModeCommand(c.args);
						if (plan.kind !== "set") throw new Error(`unexpected ${plan.kind}`);
						recorded = modeEntry(plan.mode);
					} else {
						recorded = runtimeEntry(c.runtime);
					}
					session = apply(session, recorded);
					run = apply(run, recorded);
					const effective = resolveEffectiveSettings(input());
					const runtime = effective.runtime.ok ? effective.runtime.runtime : undefined;
					if (c.kind === "fast") {
						const fast = effective.fast.kind === "error" ? effective.fast.fallback : effective.fast;
						expect(fast).toMatchObject({ kind: "value", fast: announced });
						if (runtime === "local") expect(effective.status).toContain(`fast:${announced ? "on" : "off"}`);
					} else if (c.kind === "mode") {
						expect(effective.mode).toMatchObject({ ok: true, mode: c.args });
						expect(effective.status?.endsWith(" · plan")).toBe(c.args === "plan");
					} else {
						expect(effective.runtime).toMatchObject({ ok: true, runtime: c.runtime });
						expect(effective.status?.startsWith(`cursor:${c.runtime} · `)).toBe(true);
					}
				}
			},
		),
		1000,
	);
});

test("with no command typed in this run, a valid start flag decides over anything the session recorded before", async () => {
	await target.check(
		fc.property(model, flags, fc.array(entry, { maxLength: 5 }), (m, f, before) => {
			const session = before.reduce(apply, emptySessionState());
			const effective = resolveEffectiveSettings({ model: m, flags: f, session, run: emptySessionState() });
			const mode = typeof f.mode === "string" ? f.mode.trim() : "";
			if (mode === "agent" || mode === "plan") expect(effective.mode).toMatchObject({ ok: true, mode });
			if (f.runtime === "local" || f.runtime === "cloud")
				expect(effective.runtime).toMatchObject({ ok: true, runtime: f.runtime });
			if (f.fast !== f.noFast)
				expect(effective.fast).toMatchObject({ kind: "value", fast: f.fast === true, source: "flag" });
		}),
		500,
	);
});

test("a run's choices are the branch's entries Pi stamped since the run started", async () => {
	const stamped = fc.tuple(entry, fc.integer({ min: 0, max: 100 }), fc.boolean()).map(([e, t, readable]) => ({
		type: "custom",
		customType: e.customType,
		data: e.data,
		...(readable ? { timestamp: new Date(1_700_000_000_000 + t).toISOString() } : {}),
	}));
	await target.check(
		fc.property(fc.array(stamped, { maxLength: 8 }), fc.integer({ min: 0, max: 100 }), (branch, since) => {
			const start = 1_700_000_000_000 + since;
			const later = branch.filter((e) => e.timestamp !== undefined && Date.parse(e.timestamp) >= start);
			expect(restoreSessionState(branch, start)).toEqual(restoreSessionState(later));
		}),
		500,
	);
});
