// Cursor's local safety controls (auto-review, sandbox): off by default, explicit enables only, shown in the footer.
import { describe, expect, test } from "bun:test";
import type { CursorSdkUserConfig } from "../../src/settings/config-schema.ts";
import { formatCursorStatus } from "../../src/settings/effective.ts";
import { readEnv } from "../../src/settings/env.ts";
import { resolveSafety, safetyAgentOptions } from "../../src/settings/safety.ts";

const on: CursorSdkUserConfig = { local: { autoReview: true, sandboxOptions: { enabled: true } } };
const off: CursorSdkUserConfig = { local: { autoReview: false, sandboxOptions: { enabled: false } } };

describe("resolveSafety", () => {
	test("off by default", () => {
		expect(resolveSafety({})).toEqual({ autoReview: false, sandbox: false });
		expect(resolveSafety({ env: readEnv({}), user: {}, project: {} })).toEqual({ autoReview: false, sandbox: false });
	});

	test("flags turn each control on for the run", () => {
		expect(resolveSafety({ flags: { autoReview: true } })).toEqual({ autoReview: true, sandbox: false });
		expect(resolveSafety({ flags: { sandbox: true }, env: readEnv({ PI_CURSOR_SANDBOX: "0" }) })).toEqual({
			autoReview: false,
			sandbox: true,
		});
	});

	test("env (shared boolean words) beats config; unrecognized values fall through", () => {
		expect(resolveSafety({ env: readEnv({ PI_CURSOR_AUTO_REVIEW: "yes", PI_CURSOR_SANDBOX: "on" }) })).toEqual({
			autoReview: true,
			sandbox: true,
		});
		expect(resolveSafety({ env: readEnv({ PI_CURSOR_AUTO_REVIEW: "off", PI_CURSOR_SANDBOX: "0" }), user: on })).toEqual(
			{
				autoReview: false,
				sandbox: false,
			},
		);
		expect(resolveSafety({ env: readEnv({ PI_CURSOR_SANDBOX: "maybe" }), user: on }).sandbox).toBe(true);
	});

	test("trusted project config beats user config, both ways", () => {
		expect(resolveSafety({ user: on, project: off })).toEqual({ autoReview: false, sandbox: false });
		expect(resolveSafety({ user: off, project: on })).toEqual({ autoReview: true, sandbox: true });
		expect(resolveSafety({ user: on, project: {} })).toEqual({ autoReview: true, sandbox: true });
	});
});

describe("safetyAgentOptions", () => {
	test("only enabled controls are passed to Agent.create({ local })", () => {
		expect(safetyAgentOptions({ autoReview: false, sandbox: false })).toEqual({});
		expect(safetyAgentOptions({ autoReview: true, sandbox: false })).toEqual({ autoReview: true });
		expect(safetyAgentOptions({ autoReview: false, sandbox: true })).toEqual({ sandboxOptions: { enabled: true } });
	});
});

describe("footer", () => {
	const model = { isCursor: true, selectionKey: "composer-2", baseId: "composer-2", fastCapable: false };
	test("`· review` and `· sandbox` when on, after http1 and before plan", () => {
		expect(formatCursorStatus({ model, flags: { autoReview: true, sandbox: true, mode: "plan" } })).toBe(
			"cursor:local · fast:n/a · review · sandbox · plan",
		);
		expect(
			formatCursorStatus({
				model,
				env: readEnv({ PI_CURSOR_HTTP_1_1: "1" }),
				config: { local: { sandboxOptions: { enabled: true } } },
			}),
		).toBe("cursor:local · fast:n/a · http1 · sandbox");
		expect(formatCursorStatus({ model, projectConfig: { local: { autoReview: true } } })).toBe(
			"cursor:local · fast:n/a · review",
		);
	});

	test("nothing extra when off; cloud never shows them", () => {
		expect(formatCursorStatus({ model })).toBe("cursor:local · fast:n/a");
		expect(formatCursorStatus({ model, flags: { sandbox: true, runtime: "cloud" } })).toBe("cursor:cloud · fast:n/a");
	});
});
