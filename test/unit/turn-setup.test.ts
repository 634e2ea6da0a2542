// The turn setup's selection and key: a cloud turn never carries a fast parameter (Cursor Cloud has none, and the
// footer says fast:n/a), whatever forces one locally; a key of blanks only is no key.
import { describe, expect, test } from "bun:test";
import { CatalogState } from "../../src/catalog/state.ts";
import { readEnv } from "../../src/settings/env.ts";
import { resolveTurnSetup, type TurnSetupInput } from "../../src/turn/setup.ts";

const catalog = new CatalogState();

function input(modelId: string, flags: Record<string, unknown>, apiKey = "key_unit"): TurnSetupInput {
	const row = catalog.resolve(modelId);
	if (!row) throw new Error(`no row ${modelId}`);
	const m = row.meta;
	return {
		modelId,
		row,
		options: { apiKey },
		settings: {
			model: {
				isCursor: true,
				selectionKey: m.selectionId,
				baseId: m.baseId,
				fastCapable: m.capabilities.fast,
				catalogFastDefault: true,
				...(m.forcedFast !== undefined ? { aliasForcedFast: m.forcedFast } : {}),
			},
			flags,
		},
		env: readEnv({}),
		subagents: undefined,
		summary: false,
	} as unknown as TurnSetupInput;
}

const fastOf = (setup: ReturnType<typeof resolveTurnSetup>) =>
	"selection" in setup ? setup.selection.params?.find((p) => p.id === "fast")?.value : "no setup";

describe("fast on each runtime", () => {
	test("local: --cursor-fast and a :fast row send fast=true", () => {
		expect(fastOf(resolveTurnSetup(input("composer-2.5", { fast: true })))).toBe("true");
		expect(fastOf(resolveTurnSetup(input("composer-2.5:slow", {})))).toBe("false");
	});

	test("cloud: no fast parameter at all, forced or not", () => {
		for (const [id, flags] of [
			["composer-2.5", { fast: true, runtime: "cloud" }],
			["composer-2.5", { noFast: true, runtime: "cloud" }],
			["composer-2.5:fast", { runtime: "cloud" }],
			["composer-2.5", { runtime: "cloud" }],
		] as const) {
			const setup = resolveTurnSetup(input(id, flags));
			expect({ id, flags, runtime: "runtime" in setup && setup.runtime, fast: fastOf(setup) }).toEqual({
				id,
				flags,
				runtime: "cloud",
				fast: undefined,
			});
		}
	});
});

test("an API key of blanks only counts as missing", () => {
	for (const key of ["", "   ", "\t\n"]) {
		expect(resolveTurnSetup(input("composer-2.5", {}, key))).toMatchObject({
			kind: "auth",
			message: expect.stringContaining("No Cursor API key"),
		});
	}
	expect(readEnv({ CURSOR_API_KEY: "  " }).apiKey).toBeUndefined();
	expect(readEnv({ CURSOR_API_KEY: " key_x " }).apiKey).toBe("key_x");
});
