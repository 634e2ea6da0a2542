// The runtime choice with generated values from every place it can come from (flag, session, PI_CURSOR_RUNTIME,
// project and user cursor-sdk.json): it never throws, never runs a turn on a guessed runtime, and a value it refuses
// is named with both valid values and never echoed at length.
import { afterAll, expect, test } from "bun:test";
import { readEnv } from "../../src/settings/env.ts";
import { RUNTIMES, type RuntimeInputs, resolveRuntime } from "../../src/settings/runtime.ts";
import { fc, nastyString, PropertyTarget } from "../support/property.ts";

const target = new PropertyTarget("runtime-choice");
afterAll(() => target.report());

const word = fc.oneof(fc.constantFrom(...RUNTIMES, "Local", " cloud ", "remote", "", "none"), nastyString);
const raw = fc.oneof(word, fc.jsonValue(), fc.constant(undefined));
const SOURCES = ["flag", "session", "env", "project", "user"] as const;

test("a runtime is one of local/cloud from the first source that sets one, or the turn fails closed", async () => {
	await target.check(
		fc.property(
			raw,
			fc.option(fc.constantFrom(...RUNTIMES), { nil: undefined }),
			word,
			raw,
			raw,
			(flag, session, envText, project, user) => {
				const env = readEnv({ PI_CURSOR_RUNTIME: envText }).runtime;
				const input: RuntimeInputs = { flag, session, env, project, user };
				const resolved = resolveRuntime(input);
				const values = [typeof flag === "string" ? flag.trim() : flag, session, env, project, user];
				const first = values.findIndex((v) => v !== undefined && v !== null && v !== "" && v !== false);
				if (resolved.ok) {
					expect(RUNTIMES).toContain(resolved.runtime);
					if (first === -1) expect(resolved.source).toBe("default");
					else {
						expect(resolved.source as string).toBe(SOURCES[first] as string);
						expect(values[first]).toBe(resolved.runtime);
					}
				} else {
					expect(first).toBeGreaterThanOrEqual(0);
					expect(RUNTIMES).not.toContain(values[first] as string);
					expect(resolved.error).toContain("Valid values: local, cloud.");
					expect(resolved.error.length).toBeLessThan(160);
					expect(resolved.fallback.runtime).toBe("local");
				}
			},
		),
		300,
	);
});
