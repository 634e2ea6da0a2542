// Generated `cursor-sdk.json` files (user and trusted project): the valid parts apply, each invalid field is named once
// in one warning, and the file's bytes never change unless a command writes a valid value into a valid file.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CursorSdkConfigFile } from "../../src/settings/config-file.ts";
import { readLocalConfig } from "../../src/settings/local-config.ts";
import { anyJson, fc, PropertyTarget, wrongTyped } from "../support/property.ts";

const target = new PropertyTarget("config-files");
const dir = mkdtempSync(join(tmpdir(), "pi-cursor-config-property-"));
afterAll(() => {
	target.report();
	rmSync(dir, { recursive: true, force: true });
});

/** A field that is either valid (`ok`) or wrongly typed; `path` is how the warning names it. */
interface Field {
	value: unknown;
	ok: boolean;
}

const modelKey = fc.stringMatching(/^[a-z][a-z0-9.@:-]{0,10}$/);
const notBoolean = wrongTyped.filter((v) => typeof v !== "boolean" && v !== undefined);
const booleanField: fc.Arbitrary<Field> = fc.oneof(
	fc.boolean().map((value) => ({ value, ok: true })),
	notBoolean.map((value) => ({ value, ok: false })),
);
const notObject = wrongTyped.filter(
	(v) => v === null || typeof v !== "object" || Array.isArray(v) || v === undefined,
) as fc.Arbitrary<unknown>;

/** A generated document: every known field valid, wrongly typed or absent, plus unknown fields. */
const documentArb = fc.record(
	{
		fastDefaults: fc.oneof(
			fc.dictionary(modelKey, booleanField, { maxKeys: 5 }).map((entries) => ({ kind: "object" as const, entries })),
			notObject.filter((v) => v !== undefined).map((value) => ({ kind: "wrong" as const, value })),
		),
		local: fc.oneof(
			fc
				.record(
					{
						useHttp1ForAgent: booleanField,
						autoReview: booleanField,
						sandboxOptions: fc.oneof(
							fc.boolean().map((enabled) => ({ value: { enabled }, ok: true })),
							fc.constant({ value: {}, ok: true }),
							notObject.filter((v) => v !== undefined).map((value) => ({ value, ok: false })),
							notBoolean.map((enabled) => ({ value: { enabled }, ok: false })),
						),
						storeRoot: fc.oneof(
							fc.string({ maxLength: 12 }).map((value) => ({ value, ok: true })),
							wrongTyped.filter((v) => typeof v !== "string" && v !== undefined).map((value) => ({ value, ok: false })),
						),
					},
					{ requiredKeys: [] },
				)
				.map((fields) => ({ kind: "object" as const, fields })),
			notObject.filter((v) => v !== undefined).map((value) => ({ kind: "wrong" as const, value })),
		),
		subagents: fc.oneof(
			fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), anyJson, { maxKeys: 3 }).map((value) => ({ value, ok: true })),
			notObject.filter((v) => v !== undefined).map((value) => ({ value, ok: false })),
		),
		unknown: fc.dictionary(
			fc.string({ maxLength: 8 }).filter((k) => !["fastDefaults", "local", "subagents", "__proto__"].includes(k)),
			anyJson,
			{ maxKeys: 3 },
		),
	},
	{ requiredKeys: ["unknown"] },
);
type GeneratedDocument = typeof documentArb extends fc.Arbitrary<infer T> ? T : never;

/** The JSON document, the config a reader must return, and the field paths a warning must name. */
function expectations(doc: GeneratedDocument) {
	const json: Record<string, unknown> = { ...doc.unknown };
	const config: Record<string, unknown> = {};
	const invalid: string[] = [];
	if (doc.fastDefaults?.kind === "wrong") {
		json.fastDefaults = doc.fastDefaults.value;
		invalid.push("fastDefaults");
	} else if (doc.fastDefaults) {
		const raw: Record<string, unknown> = {};
		const valid: Record<string, boolean> = {};
		for (const [key, field] of Object.entries(doc.fastDefaults.entries)) {
			raw[key] = field.value;
			if (field.ok) valid[key] = field.value as boolean;
			else invalid.push(`fastDefaults.${key}`);
		}
		json.fastDefaults = raw;
		config.fastDefaults = valid;
	}
	if (doc.local?.kind === "wrong") {
		json.local = doc.local.value;
		invalid.push("local");
	} else if (doc.local) {
		const raw: Record<string, unknown> = {};
		const valid: Record<string, unknown> = {};
		for (const [key, field] of Object.entries(doc.local.fields) as [string, Field][]) {
			raw[key] = field.value;
			if (!field.ok) invalid.push(`local.${key}`);
			else if (key !== "storeRoot" || (field.value as string).trim() !== "") valid[key] = field.value;
		}
		json.local = raw;
		config.local = valid;
	}
	if (doc.subagents) {
		json.subagents = doc.subagents.value;
		if (doc.subagents.ok) config.subagents = doc.subagents.value;
		else invalid.push("subagents");
	}
	return { text: JSON.stringify(json, null, 2), config, invalid };
}

const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
/** The case's folder: one per test, its files overwritten by each case (no per-case folders to create and remove). */
const freshDir = (name: string) => {
	const path = join(dir, name);
	mkdirSync(join(path, ".pi"), { recursive: true });
	return path;
};

test("user and project files: the valid parts apply, each invalid field is named once, reading changes no byte", async () => {
	await target.check(
		fc.property(documentArb, documentArb, (userDoc, projectDoc) => {
			const home = freshDir("read");
			const user = expectations(userDoc);
			const project = expectations(projectDoc);
			const userPath = join(home, "cursor-sdk.json");
			const projectPath = join(home, ".pi", "cursor-sdk.json");
			writeFileSync(userPath, user.text);
			writeFileSync(projectPath, project.text);
			const read = readLocalConfig(new CursorSdkConfigFile(userPath), new CursorSdkConfigFile(projectPath));
			expect(plain(read.user)).toEqual(plain(user.config));
			expect(plain(read.project)).toEqual(plain(project.config));
			for (const [path, expected] of [
				[userPath, user],
				[projectPath, project],
			] as const) {
				const warnings = read.warnings.filter((w) => w.startsWith(`Cursor settings file ${path} `));
				expect(warnings.length).toBe(expected.invalid.length > 0 ? 1 : 0);
				const warning = warnings[0] ?? "";
				const named = expected.invalid.filter((field) => warning.includes(`"${field}" must`));
				for (const field of named) expect(warning.split(`"${field}" must`).length).toBe(2);
				expect(named.length).toBe(Math.min(expected.invalid.length, 6));
				if (expected.invalid.length > 6) expect(warning).toContain(`and ${expected.invalid.length - 6} more`);
			}
			expect(readFileSync(userPath, "utf8")).toBe(user.text);
			expect(readFileSync(projectPath, "utf8")).toBe(project.text);
		}),
		600,
	);
});

test("any bytes: one warning, nothing applied, the file untouched by reads and refused by writes", async () => {
	const bytes = fc.oneof(
		fc.string({ unit: "binary", maxLength: 120 }).map((text) => Buffer.from(text)),
		fc.uint8Array({ maxLength: 120 }).map((b) => Buffer.from(b)),
		anyJson
			.filter((v) => v === null || typeof v !== "object" || Array.isArray(v))
			.map((v) => Buffer.from(JSON.stringify(v))),
		fc.constantFrom("{", '{"fastDefaults": {', "\ufeff[]", '{"local": {"autoReview": tru}}').map((t) => Buffer.from(t)),
	);
	await target.check(
		fc.asyncProperty(bytes, fc.boolean(), async (content, http1) => {
			const path = join(freshDir("bytes"), "cursor-sdk.json");
			writeFileSync(path, content);
			const before = readFileSync(path);
			const text = before.toString("utf8");
			const file = new CursorSdkConfigFile(path);
			const read = file.readSync();
			const update = await file.setUseHttp1ForAgent(http1);
			if (text.replace(/^\ufeff/, "").trim() === "") {
				expect(read.warning).toBeUndefined(); // an empty file is an empty config
				return;
			}
			let parsed: unknown;
			try {
				parsed = JSON.parse(text.replace(/^\ufeff/, ""));
			} catch {
				parsed = undefined;
			}
			if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return; // an object: see above
			expect(read.config).toEqual({});
			expect(read.warning).toContain(path);
			expect(update.ok).toBe(false);
			expect(readFileSync(path)).toEqual(before);
		}),
		400,
	);
});

test("a command writes only a valid value into a valid file; unknown fields and other keys survive", async () => {
	await target.check(
		fc.asyncProperty(documentArb, modelKey, fc.boolean(), async (doc, key, fast) => {
			const path = join(freshDir("write"), "cursor-sdk.json");
			const expected = expectations(doc);
			writeFileSync(path, expected.text);
			const file = new CursorSdkConfigFile(path);
			const result = await file.setFastDefault(key, fast);
			if (expected.invalid.length > 0) {
				expect(result.ok).toBe(false);
				expect(readFileSync(path, "utf8")).toBe(expected.text);
				return;
			}
			expect(result.ok).toBe(true);
			const after = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
			const before = JSON.parse(expected.text) as Record<string, unknown>;
			expect((after.fastDefaults as Record<string, unknown>)[key]).toBe(fast);
			for (const [name, value] of Object.entries(before)) {
				if (name !== "fastDefaults") expect(after[name]).toEqual(value);
			}
			for (const [name, value] of Object.entries((before.fastDefaults as Record<string, unknown>) ?? {})) {
				if (name !== key) expect((after.fastDefaults as Record<string, unknown>)[name]).toEqual(value);
			}
			expect(plain(file.readSync().config.fastDefaults)).toEqual({
				...(expected.config.fastDefaults ?? {}),
				[key]: fast,
			});
		}),
		300,
	);
});
