// cursor-sdk.json is written by hand: for any content, every known field is either kept or named in the warning
// (never both, never neither), what is kept is valid, an invalid file is never rewritten, and an edit of a valid
// file keeps every field it does not touch.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { editConfigText, setFastDefault } from "../../src/settings/config-edits.ts";
import { parseUserConfigText, validateDocument } from "../../src/settings/config-schema.ts";

const FILE = "/home/u/.pi/agent/cursor-sdk.json";
const LOCAL_FIELDS = ["useHttp1ForAgent", "autoReview", "sandboxOptions", "storeRoot"] as const;

/** A value that is often right for a field and often wrong. */
const anyValue = fc.oneof(fc.boolean(), fc.string(), fc.constantFrom({}, { enabled: true }, " "), fc.jsonValue());
const unknownFields = fc.dictionary(
	fc.string().filter((key) => !["fastDefaults", "local", "subagents"].includes(key)),
	fc.jsonValue(),
	{ maxKeys: 3 },
);
const localValue = fc.oneof(
	fc.record(
		{
			useHttp1ForAgent: anyValue,
			autoReview: anyValue,
			sandboxOptions: anyValue,
			storeRoot: anyValue,
			extra: fc.jsonValue(),
		},
		{ requiredKeys: [] },
	),
	anyValue,
);
const documentArb = fc.record(
	{
		fastDefaults: fc.oneof(fc.dictionary(fc.string(), anyValue, { maxKeys: 4 }), anyValue),
		local: localValue,
		subagents: anyValue,
	},
	{ requiredKeys: [] },
);

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The known field paths present in a document, with whether the parsed config kept each. */
function knownFields(document: Record<string, unknown>, config: Record<string, unknown>): [string, boolean][] {
	const fields: [string, boolean][] = [];
	const kept = (container: unknown, key: string) => isObject(container) && Object.hasOwn(container, key);
	for (const key of ["fastDefaults", "local", "subagents"]) {
		if (!Object.hasOwn(document, key)) continue;
		const value = document[key];
		const container = isObject(value) && key !== "subagents";
		// A container with fields of its own is named per field; only a wrong container is named as a whole.
		if (!container) fields.push([key, kept(config, key)]);
		if (key === "fastDefaults" && isObject(value)) {
			for (const name of Object.keys(value)) fields.push([`fastDefaults.${name}`, kept(config.fastDefaults, name)]);
		}
		if (key === "local" && isObject(value)) {
			for (const name of LOCAL_FIELDS) {
				const blankRoot = name === "storeRoot" && typeof value[name] === "string" && value[name].trim() === "";
				if (Object.hasOwn(value, name) && !blankRoot) fields.push([`local.${name}`, kept(config.local, name)]);
			}
		}
	}
	return fields;
}

describe("cursor-sdk.json validation", () => {
	test("every known field is kept or named, the kept part is valid, and only a clean file can be saved", () => {
		fc.assert(
			fc.property(documentArb, unknownFields, (known, unknown) => {
				const document = { ...unknown, ...known };
				const text = JSON.stringify(document);
				const { config, problems } = validateDocument(JSON.parse(text));
				for (const [path, kept] of knownFields(document, config as Record<string, unknown>)) {
					const named = problems.some((problem) => problem.startsWith(`"${path}" must be `));
					expect({ path, kept, named }).toEqual({ path, kept, named: !kept });
				}
				expect(validateDocument(JSON.parse(JSON.stringify(config))).problems).toEqual([]);

				const parsed = parseUserConfigText(text, FILE);
				expect(parsed.document === undefined).toBe(problems.length > 0);
				expect(parsed.warning?.split("\n") ?? [""]).toHaveLength(1);
				const edit = editConfigText(text, FILE, (raw) => setFastDefault(raw, "gpt-5.5", true));
				if (problems.length > 0) {
					expect(edit).toEqual({ ok: false, reason: "invalid-file", message: parsed.warning ?? "" });
				} else {
					expect(edit.ok).toBe(true);
				}
			}),
			{ numRuns: 400 },
		);
	});

	test("saving a fast default keeps every other field of a valid file exactly", () => {
		fc.assert(
			fc.property(
				unknownFields,
				fc.dictionary(fc.string(), fc.boolean(), { maxKeys: 4 }),
				fc.dictionary(
					fc.string().filter((key) => !(LOCAL_FIELDS as readonly string[]).includes(key)),
					fc.jsonValue(),
					{ maxKeys: 3 },
				),
				fc.string(),
				fc.boolean(),
				(unknown, fastDefaults, localExtra, modelKey, fast) => {
					const local = { ...localExtra, autoReview: true };
					const document = { ...unknown, fastDefaults, local };
					const edit = editConfigText(JSON.stringify(document, null, 2), FILE, (raw) =>
						setFastDefault(raw, modelKey, fast),
					);
					if (!edit.ok) throw new Error(edit.message);
					const saved = JSON.parse(edit.text ?? JSON.stringify(document));
					const expectedFast = { ...fastDefaults };
					Object.defineProperty(expectedFast, modelKey, { value: fast, enumerable: true });
					expect(saved).toEqual({ ...JSON.parse(JSON.stringify(document)), fastDefaults: expectedFast });
				},
			),
			{ numRuns: 300 },
		);
	});
});
