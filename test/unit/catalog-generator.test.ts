import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sanitizeCatalog, sanitizeContextWindows } from "../../src/catalog/sanitize.ts";

const REPO_ROOT = resolve(import.meta.dir, "..", "..");
const GENERATOR = join(REPO_ROOT, "build", "generate-catalog.ts");
const DATA_DIR = join(REPO_ROOT, "data");
const CATALOG_DIR = join(REPO_ROOT, "src", "catalog");
const GENERATED = ["fallback-models.generated.ts", "context-windows.generated.ts"];

function generate(...args: string[]) {
	const result = Bun.spawnSync([process.execPath, GENERATOR, ...args], {
		cwd: REPO_ROOT,
		stdout: "pipe",
		stderr: "pipe",
	});
	return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

function withTempDir(run: (dir: string) => void) {
	const dir = mkdtempSync(join(tmpdir(), "catalog-generator-"));
	try {
		run(dir);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

describe("build/generate-catalog.ts", () => {
	test("--check passes on the committed generated files", () => {
		const result = generate("--check", "--data", DATA_DIR);
		expect(result.stderr).toBe("");
		expect(result.code).toBe(0);
		expect(result.stdout).toContain("45 models");
	});

	test("--check fails on a stale copy and writes nothing", () => {
		withTempDir((dir) => {
			for (const name of GENERATED) copyFileSync(join(CATALOG_DIR, name), join(dir, name));
			const stalePath = join(dir, GENERATED[0] as string);
			const current = readFileSync(stalePath, "utf8");
			const stale = current.replace('"displayName":"Composer 2.5"', '"displayName":"Composer 2.4"');
			expect(stale).not.toBe(current);
			writeFileSync(stalePath, stale);

			const result = generate("--check", "--data", DATA_DIR, "--out", dir);
			expect(result.code).toBe(1);
			expect(result.stderr).toContain("fallback-models.generated.ts is stale");
			expect(result.stderr).not.toContain("context-windows.generated.ts is stale");
			expect(readFileSync(stalePath, "utf8")).toBe(stale);
		});
	});

	test("--check fails when a generated file is missing", () => {
		withTempDir((dir) => {
			const result = generate("--check", "--data", DATA_DIR, "--out", dir);
			expect(result.code).toBe(1);
			expect(result.stderr).toContain("context-windows.generated.ts is stale");
			expect(existsSync(join(dir, GENERATED[0] as string))).toBe(false);
		});
	});

	test("writing is deterministic and matches the committed files byte for byte", () => {
		withTempDir((dir) => {
			expect(generate("--data", DATA_DIR, "--out", dir).code).toBe(0);
			for (const name of GENERATED) {
				expect(readFileSync(join(dir, name), "utf8")).toBe(readFileSync(join(CATALOG_DIR, name), "utf8"));
			}
		});
	});

	test("rejects unknown arguments", () => {
		const result = generate("--bogus");
		expect(result.code).toBe(2);
		expect(result.stderr).toContain("usage:");
	});

	test("fails clearly when the data directory is missing", () => {
		withTempDir((dir) => {
			const result = generate("--check", "--data", join(dir, "nowhere"), "--out", dir);
			expect(result.code).toBe(1);
			expect(result.stderr).toContain("cursor-model-catalog.json");
		});
	});
});

describe("sanitizer", () => {
	test("keeps known fields only, dedupes aliases, drops malformed entries and sorts by id", () => {
		const raw = [
			{
				id: "z",
				displayName: "Z",
				aliases: ["z1", "z1", 7],
				extra: true,
				parameters: [{ id: "fast", displayName: "Fast", secret: 1, values: [{ value: "true", extra: 1 }, { bad: 1 }] }],
				variants: [{ params: [{ id: "fast", value: "true", x: 1 }], displayName: "Z", isDefault: true, y: 2 }],
			},
			{ id: "a", displayName: "A", description: "first" },
			{ id: "a", displayName: "A again" },
			{ displayName: "no id" },
			"junk",
		];
		expect(sanitizeCatalog(raw)).toEqual([
			{ id: "a", displayName: "A", description: "first" },
			{
				id: "z",
				displayName: "Z",
				aliases: ["z1"],
				parameters: [{ id: "fast", displayName: "Fast", values: [{ value: "true" }] }],
				variants: [{ params: [{ id: "fast", value: "true" }], displayName: "Z", isDefault: true }],
			},
		]);
	});

	test("an id over 256 characters is dropped like other unusable ids; one of 256 is kept", () => {
		const longest = "m".repeat(256);
		const raw = [
			{ id: "x".repeat(10_000), displayName: "Huge" },
			{ id: "y".repeat(257), displayName: "Just over" },
			{ id: longest, displayName: "Longest" },
		];
		expect(sanitizeCatalog(raw)).toEqual([{ id: longest, displayName: "Longest" }]);
	});

	test("context windows: positive numbers only, default first, then sorted keys", () => {
		const table = sanitizeContextWindows({ b: 2.9, default: 10, a: 1, neg: -1, str: "5", nan: Number.NaN });
		expect(Object.entries(table)).toEqual([
			["default", 10],
			["a", 1],
			["b", 2],
		]);
	});
});
