import { describe, expect, test } from "bun:test";
import type { Model } from "@earendil-works/pi-ai";
import { CatalogState } from "../../src/catalog/state.ts";
import type { CursorFlagsInput } from "../../src/settings/effective.ts";
import type { LocalAgentConfig } from "../../src/settings/local-config.ts";
import { SessionSettings } from "../../src/settings/session-settings.ts";
import {
	applySessionEntry,
	emptySessionState,
	FAST_ENTRY_TYPE,
	fastEntry,
	HTTP_ENTRY_TYPE,
	httpEntry,
	MODE_ENTRY_TYPE,
	modeEntry,
	restoreSessionState,
} from "../../src/settings/session-state.ts";

let nextId = 0;
function custom(customType: string, data: unknown) {
	nextId += 1;
	return { type: "custom", customType, data, id: `e${nextId}`, parentId: null, timestamp: "2026-01-01T00:00:00Z" };
}

describe("entry builders", () => {
	test("use the documented custom types and data shapes", () => {
		expect(fastEntry("gpt-5.5", true)).toEqual({
			customType: "pi-cursor-sdk:fast",
			data: { modelKey: "gpt-5.5", fast: true },
		});
		expect(modeEntry("plan")).toEqual({ customType: "pi-cursor-sdk:mode", data: { mode: "plan" } });
		expect(httpEntry(null)).toEqual({ customType: "pi-cursor-sdk:http", data: { useHttp1: null } });
		expect(httpEntry(false)).toEqual({ customType: "pi-cursor-sdk:http", data: { useHttp1: false } });
	});
});

describe("restoreSessionState", () => {
	test("empty branch", () => {
		const state = restoreSessionState([]);
		expect({ ...state.fast }).toEqual({});
		expect(state.mode).toBeUndefined();
		expect(state.useHttp1).toBeUndefined();
	});

	test("last write wins per kind and per model key", () => {
		const state = restoreSessionState([
			{ type: "model_change", provider: "cursor", modelId: "gpt-5.5@1m" },
			custom(FAST_ENTRY_TYPE, { modelKey: "gpt-5.5", fast: true }),
			custom(MODE_ENTRY_TYPE, { mode: "plan" }),
			custom(FAST_ENTRY_TYPE, { modelKey: "composer-2.5", fast: false }),
			custom(HTTP_ENTRY_TYPE, { useHttp1: true }),
			{ type: "message", message: { role: "user", content: "hi" } },
			custom(FAST_ENTRY_TYPE, { modelKey: "gpt-5.5", fast: false }),
			custom(MODE_ENTRY_TYPE, { mode: "agent" }),
			custom(HTTP_ENTRY_TYPE, { useHttp1: false }),
		]);
		expect({ ...state.fast }).toEqual({ "gpt-5.5": false, "composer-2.5": false });
		expect(state.mode).toBe("agent");
		expect(state.useHttp1).toBe(false);
	});

	test("an HTTP entry with null clears the session preference", () => {
		const state = restoreSessionState([
			custom(HTTP_ENTRY_TYPE, { useHttp1: true }),
			custom(HTTP_ENTRY_TYPE, { useHttp1: null }),
		]);
		expect(state.useHttp1).toBeNull();
	});

	test("malformed entries are ignored and do not erase earlier state", () => {
		const state = restoreSessionState([
			custom(FAST_ENTRY_TYPE, { modelKey: "gpt-5.5", fast: true }),
			custom(MODE_ENTRY_TYPE, { mode: "plan" }),
			custom(HTTP_ENTRY_TYPE, { useHttp1: true }),
			custom(FAST_ENTRY_TYPE, { modelKey: "gpt-5.5", fast: "false" }),
			custom(FAST_ENTRY_TYPE, { modelKey: "", fast: false }),
			custom(FAST_ENTRY_TYPE, { modelKey: 42, fast: false }),
			custom(FAST_ENTRY_TYPE, { fast: false }),
			custom(FAST_ENTRY_TYPE, null),
			custom(FAST_ENTRY_TYPE, [false]),
			custom(MODE_ENTRY_TYPE, { mode: "ask" }),
			custom(MODE_ENTRY_TYPE, { mode: "PLAN" }),
			custom(MODE_ENTRY_TYPE, "agent"),
			custom(HTTP_ENTRY_TYPE, { useHttp1: "yes" }),
			custom(HTTP_ENTRY_TYPE, {}),
			custom(HTTP_ENTRY_TYPE, undefined),
			{ type: "custom_message", customType: MODE_ENTRY_TYPE, data: { mode: "agent" } },
			{ type: "custom", customType: 7, data: { mode: "agent" } },
			{ customType: MODE_ENTRY_TYPE, data: { mode: "agent" } },
			custom("other-extension:mode", { mode: "agent" }),
			null,
			"garbage",
			42,
		]);
		expect({ ...state.fast }).toEqual({ "gpt-5.5": true });
		expect(state.mode).toBe("plan");
		expect(state.useHttp1).toBe(true);
	});

	test("model keys such as __proto__ are stored as data", () => {
		const state = restoreSessionState([custom(FAST_ENTRY_TYPE, { modelKey: "__proto__", fast: true })]);
		expect(Object.hasOwn(state.fast, "__proto__")).toBe(true);
		expect(Object.getOwnPropertyDescriptor(state.fast, "__proto__")?.value).toBe(true);
		expect(Object.hasOwn(state.fast, "constructor")).toBe(false);
	});
});

describe("applySessionEntry", () => {
	test("returns a new state and leaves the input untouched", () => {
		const start = emptySessionState();
		const next = applySessionEntry(start, FAST_ENTRY_TYPE, { modelKey: "grok-4.6", fast: false });
		expect(next).not.toBe(start);
		expect({ ...start.fast }).toEqual({});
		expect({ ...next.fast }).toEqual({ "grok-4.6": false });
	});

	test("returns the same state for ignored entries", () => {
		const start = emptySessionState();
		expect(applySessionEntry(start, "unrelated", { mode: "plan" })).toBe(start);
		expect(applySessionEntry(start, MODE_ENTRY_TYPE, { mode: "nope" })).toBe(start);
	});

	test("a builder's entry round-trips through the reducer", () => {
		let state = emptySessionState();
		for (const entry of [fastEntry("composer-2.5", false), modeEntry("plan"), httpEntry(true)]) {
			state = applySessionEntry(state, entry.customType, entry.data);
		}
		expect({ ...state.fast }).toEqual({ "composer-2.5": false });
		expect(state.mode).toBe("plan");
		expect(state.useHttp1).toBe(true);
	});
});

describe("SessionSettings: a run's commands over its start flags", () => {
	const RUN_START = Date.parse("2026-01-02T00:00:00Z");
	const stamped = (customType: string, data: unknown, timestamp: string) => ({
		...custom(customType, data),
		timestamp,
	});

	function settingsWith(flags: CursorFlagsInput) {
		const appended: [string, unknown][] = [];
		const settings = new SessionSettings({
			catalog: new CatalogState(),
			local: { current: { user: {}, project: undefined } } as unknown as LocalAgentConfig,
			flags: () => flags,
			appendEntry: (customType, data) => appended.push([customType, data]),
			env: {},
			runStart: RUN_START,
		});
		settings.activeModel = { provider: "cursor", id: "composer-2" } as Model<string>;
		return { settings, appended };
	}

	test("entries from before the run yield to the flag; entries since the run started, and new commands, win", () => {
		const { settings, appended } = settingsWith({ mode: "plan" });
		settings.restore([stamped(MODE_ENTRY_TYPE, { mode: "agent" }, "2026-01-01T00:00:00Z")]);
		expect(settings.status()).toEndWith(" · plan");
		settings.restore([
			stamped(MODE_ENTRY_TYPE, { mode: "agent" }, "2026-01-01T00:00:00Z"),
			stamped(MODE_ENTRY_TYPE, { mode: "agent" }, "2026-01-02T00:00:01Z"), // typed in this run, before a reload
		]);
		expect(settings.status()).not.toContain("plan");
		settings.record(modeEntry("plan"));
		expect(settings.status()).toEndWith(" · plan");
		settings.record(modeEntry("agent"));
		expect(settings.status()).not.toContain("plan");
		// Only the commands wrote the session; the flag never did.
		expect(appended).toEqual([
			[MODE_ENTRY_TYPE, { mode: "plan" }],
			[MODE_ENTRY_TYPE, { mode: "agent" }],
		]);
	});
});
