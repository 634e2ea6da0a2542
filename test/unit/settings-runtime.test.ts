import { describe, expect, test } from "bun:test";
import {
	describeRuntime,
	parseRuntimeCommand,
	type RuntimeInputs,
	resolveRuntime,
} from "../../src/settings/runtime.ts";

describe("which runtime runs a turn", () => {
	const cases: [string, RuntimeInputs, string, string][] = [
		["nothing set", {}, "local", "default"],
		["the flag beats everything", { flag: "cloud", session: "local", env: "local", user: "local" }, "cloud", "flag"],
		["a blank flag is unset", { flag: " ", session: "cloud" }, "cloud", "session"],
		["the session beats the environment", { session: "local", env: "cloud" }, "local", "session"],
		["the environment beats the config files", { env: "cloud", project: "local", user: "local" }, "cloud", "env"],
		["the trusted project beats the user", { project: "cloud", user: "local" }, "cloud", "project"],
		["the user's default", { user: "cloud" }, "cloud", "user"],
	];
	for (const [name, input, runtime, source] of cases) {
		test(name, () => expect(resolveRuntime(input)).toEqual({ ok: true, runtime, source } as never));
	}

	const invalid: [string, RuntimeInputs, string][] = [
		["--cursor-runtime remote", { flag: "remote" }, "--cursor-runtime"],
		["PI_CURSOR_RUNTIME=Cloud", { env: "Cloud" }, "PI_CURSOR_RUNTIME"],
		["a project runtime that is a number", { project: 3 }, ".pi/cursor-sdk.json"],
		["a user runtime of the wrong word", { user: "remote" }, "cursor-sdk.json"],
	];
	for (const [name, input, setting] of invalid) {
		test(`${name} fails closed, naming the setting and both valid values`, () => {
			const resolved = resolveRuntime(input);
			expect(resolved.ok).toBe(false);
			if (resolved.ok) return;
			expect(resolved.error).toContain(setting);
			expect(resolved.error).toContain("Valid values: local, cloud.");
			expect(resolved.fallback.runtime).toBe("local");
		});
	}

	test("an invalid lower source is not consulted when a higher one decides", () => {
		expect(resolveRuntime({ flag: "local", env: "bogus" })).toMatchObject({ ok: true, runtime: "local" });
	});
});

describe("/cursor-runtime", () => {
	test("arguments", () => {
		expect(parseRuntimeCommand("")).toEqual({ kind: "report" });
		expect(parseRuntimeCommand(" cloud ")).toEqual({ kind: "set", runtime: "cloud", save: undefined });
		expect(parseRuntimeCommand("local --save-user")).toEqual({ kind: "set", runtime: "local", save: "user" });
		expect(parseRuntimeCommand("--save-project cloud")).toEqual({ kind: "set", runtime: "cloud", save: "project" });
		for (const bad of ["remote", "cloud local", "cloud --save-user --save-project", "--save-user"]) {
			const plan = parseRuntimeCommand(bad);
			expect(plan.kind).toBe("invalid");
			expect(plan.kind === "invalid" && plan.message).toContain("/cursor-runtime [local|cloud]");
		}
	});

	test("the report says the runtime, where it came from and how to change it", () => {
		const text = describeRuntime(resolveRuntime({ env: "cloud" }));
		expect(text).toContain("Cursor runtime: cloud (set by PI_CURSOR_RUNTIME;");
		expect(text).toContain("Usage: /cursor-runtime");
		expect(describeRuntime(resolveRuntime({}))).toContain("local (the default; turns run on this machine)");
	});
});
