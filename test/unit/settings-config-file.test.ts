import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { setFastDefault } from "../../src/settings/config-edits.ts";
import { CursorSdkConfigFile, userConfigPath } from "../../src/settings/config-file.ts";
import { parseUserConfigText } from "../../src/settings/config-schema.ts";

const posix = process.platform !== "win32";
const MODULE_PATH = path.resolve(import.meta.dir, "../../src/settings/config-file.ts");

let tmp: string;
let agentDir: string;
let file: string;

beforeEach(() => {
	tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pi-cursor-settings-"));
	agentDir = path.join(tmp, "home", ".pi", "agent");
	file = userConfigPath(agentDir);
});

afterEach(() => {
	fs.rmSync(tmp, { recursive: true, force: true });
});

function mode(filePath: string): number {
	return fs.statSync(filePath).mode & 0o777;
}

function strayFiles(): string[] {
	return fs.existsSync(agentDir) ? fs.readdirSync(agentDir).filter((name) => name !== "cursor-sdk.json") : [];
}

function writeRaw(text: string): void {
	fs.mkdirSync(agentDir, { recursive: true });
	fs.writeFileSync(file, text);
}

describe("paths", () => {
	test("userConfigPath joins the agent dir", () => {
		expect(userConfigPath("/x/.pi/agent")).toBe(path.join("/x/.pi/agent", "cursor-sdk.json"));
	});
});

describe("read", () => {
	test("missing file → empty config, no warning", async () => {
		const store = new CursorSdkConfigFile(file);
		expect(store.readSync()).toEqual({ config: {}, exists: false });
	});

	test("valid file", async () => {
		writeRaw(
			JSON.stringify({ fastDefaults: { "gpt-5.5": true, "composer-2.5": false }, local: { useHttp1ForAgent: true } }),
		);
		const result = new CursorSdkConfigFile(file).readSync();
		expect(result.warning).toBeUndefined();
		expect(result.exists).toBe(true);
		expect({ ...result.config.fastDefaults }).toEqual({ "gpt-5.5": true, "composer-2.5": false });
		expect(result.config.local).toEqual({ useHttp1ForAgent: true });
	});

	test("empty / whitespace-only file and a UTF-8 BOM are accepted", () => {
		expect(parseUserConfigText("", file)).toEqual({ config: {}, document: {} });
		expect(parseUserConfigText(" \n\t", file)).toEqual({ config: {}, document: {} });
		const bom = parseUserConfigText('\uFEFF{"local":{"useHttp1ForAgent":false}}', file);
		expect(bom.warning).toBeUndefined();
		expect(bom.config.local).toEqual({ useHttp1ForAgent: false });
	});

	test("unreadable path (a directory) → one warning, never throws", async () => {
		fs.mkdirSync(file, { recursive: true });
		const result = new CursorSdkConfigFile(file).readSync();
		expect(result.config).toEqual({});
		expect(result.warning).toContain(file);
		expect(result.warning).toContain("cannot be read");
		expect(new CursorSdkConfigFile(file).readSync().warning).toContain(file);
	});
});

describe("invalid files: one warning, ignored parts, never rewritten", () => {
	const cases: { name: string; text: string; expect: RegExp[]; config: object }[] = [
		{
			name: "truncated JSON",
			text: '{\n\t"fastDefaults": {\n\t\t"gpt-5.5": tr',
			expect: [/is not valid JSON/, /Fix the JSON or delete the file/],
			config: {},
		},
		{ name: "garbage", text: "fastDefaults = true", expect: [/is not valid JSON/], config: {} },
		{
			name: "array",
			text: '[{"fastDefaults":{}}]',
			expect: [/must contain a JSON object/, /contains an array/],
			config: {},
		},
		{ name: "string", text: '"hello"', expect: [/must contain a JSON object/, /contains "hello"/], config: {} },
		{ name: "null", text: "null", expect: [/contains null/], config: {} },
		{ name: "number", text: "42", expect: [/contains 42/], config: {} },
		{
			name: "fastDefaults is an array",
			text: '{"fastDefaults":["gpt-5.5"],"local":{"useHttp1ForAgent":true}}',
			expect: [/"fastDefaults" must be an object mapping model ids to true\/false \(found an array\)/],
			config: { local: { useHttp1ForAgent: true } },
		},
		{
			name: "fastDefaults values are not booleans",
			text: '{"fastDefaults":{"ok":true,"gpt-5.5":"yes","grok":1}}',
			expect: [
				/"fastDefaults\.gpt-5\.5" must be true or false \(found "yes"\)/,
				/"fastDefaults\.grok" must be true or false \(found 1\)/,
			],
			config: { fastDefaults: { ok: true } },
		},
		{
			name: "local.useHttp1ForAgent is not a boolean",
			text: '{"local":{"useHttp1ForAgent":"true","storeRoot":"/x"},"fastDefaults":{"a":false}}',
			expect: [/"local\.useHttp1ForAgent" must be true or false \(found "true"\)/],
			config: { local: { storeRoot: "/x" }, fastDefaults: { a: false } },
		},
		{
			name: "local is not an object",
			text: '{"local":true}',
			expect: [/"local" must be an object \(found true\)/],
			config: {},
		},
		{
			name: "several problems in one warning",
			text: '{"fastDefaults":{"x":null},"local":{"useHttp1ForAgent":0}}',
			expect: [/"fastDefaults\.x" must be true or false \(found null\); "local\.useHttp1ForAgent"/],
			config: { fastDefaults: {}, local: {} },
		},
	];

	for (const item of cases) {
		test(item.name, async () => {
			writeRaw(item.text);
			const before = fs.readFileSync(file);
			const beforeStat = fs.statSync(file);
			const store = new CursorSdkConfigFile(file);

			const read = store.readSync();
			expect(typeof read.warning).toBe("string");
			const warning = read.warning ?? "";
			expect(warning.split("\n")).toHaveLength(1);
			expect(warning).toContain(file);
			expect(warning).toContain("will not save settings to this file until it is fixed");
			for (const pattern of item.expect) expect(warning).toMatch(pattern);
			expect(JSON.parse(JSON.stringify(read.config))).toEqual(item.config);
			expect(store.readSync().warning).toBe(warning);

			let called = false;
			const update = await store.update((document) => {
				called = true;
				setFastDefault(document, "gpt-5.5", true);
			});
			expect(called).toBe(false);
			expect(update).toEqual({ ok: false, reason: "invalid-file", message: warning });
			expect((await store.setUseHttp1ForAgent(true)).ok).toBe(false);
			expect(fs.readFileSync(file).equals(before)).toBe(true);
			expect(fs.statSync(file).mtimeMs).toBe(beforeStat.mtimeMs);
			expect(fs.statSync(file).ino).toBe(beforeStat.ino);
			expect(strayFiles()).toEqual([]);
		});
	}
});

describe("update", () => {
	test("creates the file 0600 and the missing parent dir 0700", async () => {
		const store = new CursorSdkConfigFile(file);
		const result = await store.setFastDefault("gpt-5.5", true);
		expect(result.ok).toBe(true);
		if (result.ok) {
			expect(result.written).toBe(true);
			expect({ ...result.config.fastDefaults }).toEqual({ "gpt-5.5": true });
		}
		expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ fastDefaults: { "gpt-5.5": true } });
		expect(fs.readFileSync(file, "utf8").endsWith("}\n")).toBe(true);
		if (posix) {
			expect(mode(file)).toBe(0o600);
			expect(mode(agentDir)).toBe(0o700);
		}
		expect(strayFiles()).toEqual([]);
	});

	test("an existing parent directory keeps its mode", async () => {
		fs.mkdirSync(agentDir, { recursive: true, mode: 0o755 });
		fs.chmodSync(agentDir, 0o755);
		await new CursorSdkConfigFile(file).setFastDefault("a", true);
		if (posix) expect(mode(agentDir)).toBe(0o755);
	});

	test("a rewritten file becomes 0600 even if it was world-readable", async () => {
		writeRaw('{"fastDefaults":{}}');
		fs.chmodSync(file, 0o644);
		await new CursorSdkConfigFile(file).setFastDefault("a", false);
		if (posix) expect(mode(file)).toBe(0o600);
	});

	test("unknown fields are preserved exactly across updates", async () => {
		const original = {
			runtime: "cloud",
			$comment: "hand edited",
			local: { storeRoot: "/abs/root", sandboxOptions: { enabled: true }, resume: false },
			fastDefaults: { "composer-2.5": false, "grok-4.6": true },
			cloud: {
				repo: "https://github.com/a/b",
				envNames: ["A", "B"],
				environment: { type: "pool", name: "x" },
				nested: { deep: [1, 2.5, null, { k: "v" }] },
			},
			subagents: { reviewer: { description: "d", prompt: "p", model: "grok-4.6:slow", fast: true } },
			unicode: "é✓🙂",
			emptyObject: {},
			emptyArray: [],
		};
		writeRaw(`${JSON.stringify(original, null, 2)}\n`);
		const store = new CursorSdkConfigFile(file);
		expect((await store.setFastDefault("gpt-5.5", true)).ok).toBe(true);
		expect((await store.setUseHttp1ForAgent(true)).ok).toBe(true);
		expect((await store.setFastDefault("composer-2.5", true)).ok).toBe(true);

		const saved = JSON.parse(fs.readFileSync(file, "utf8"));
		expect(saved).toEqual({
			...original,
			local: { ...original.local, useHttp1ForAgent: true },
			fastDefaults: { "composer-2.5": true, "grok-4.6": true, "gpt-5.5": true },
		});
		expect(Object.keys(saved)).toEqual(Object.keys(original));
		expect(Object.keys(saved.local)).toEqual(["storeRoot", "sandboxOptions", "resume", "useHttp1ForAgent"]);
		// The file's two-space indentation is kept.
		expect(fs.readFileSync(file, "utf8")).toContain('\n  "runtime": "cloud"');
	});

	test("removing local.useHttp1ForAgent keeps sibling fields", async () => {
		writeRaw('{"local":{"useHttp1ForAgent":true,"resume":false}}');
		await new CursorSdkConfigFile(file).setUseHttp1ForAgent(undefined);
		expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ local: { resume: false } });
	});

	test("a no-op update and a mutator returning false do not rewrite or create the file", async () => {
		const store = new CursorSdkConfigFile(file);
		expect(await store.update(() => false)).toEqual({ ok: true, written: false, config: {} });
		expect(fs.existsSync(file)).toBe(false);

		const text = '{ "fastDefaults": { "gpt-5.5": true } }';
		writeRaw(text);
		const inode = fs.statSync(file).ino;
		const result = await store.setFastDefault("gpt-5.5", true);
		expect(result).toMatchObject({ ok: true, written: false });
		expect(fs.readFileSync(file, "utf8")).toBe(text);
		expect(fs.statSync(file).ino).toBe(inode);
		expect(
			await store.update((document) => {
				document.x = 1;
				return false;
			}),
		).toMatchObject({ ok: true, written: false });
		expect(fs.readFileSync(file, "utf8")).toBe(text);
	});

	test("model keys such as __proto__ are stored as plain data", async () => {
		const store = new CursorSdkConfigFile(file);
		await store.setFastDefault("__proto__", true);
		await store.setFastDefault("constructor", false);
		const text = fs.readFileSync(file, "utf8");
		expect(text).toContain('"__proto__": true');
		const read = store.readSync();
		expect(read.warning).toBeUndefined();
		const defaults = read.config.fastDefaults ?? {};
		expect(Object.hasOwn(defaults, "__proto__")).toBe(true);
		expect(Object.getOwnPropertyDescriptor(defaults, "__proto__")?.value).toBe(true);
		expect(Object.getOwnPropertyDescriptor(defaults, "constructor")?.value).toBe(false);
	});

	test("an update that would write an invalid value or an API key is refused", async () => {
		writeRaw('{"fastDefaults":{"a":true}}');
		const before = fs.readFileSync(file);
		const store = new CursorSdkConfigFile(file);
		const invalid = await store.update((document) => {
			document.local = "yes";
		});
		expect(invalid).toMatchObject({ ok: false, reason: "invalid-update" });
		const key = await store.update((document) => {
			document.apiKey = "crsr_secret";
		});
		expect(key).toMatchObject({ ok: false, reason: "invalid-update" });
		if (!key.ok) {
			expect(key.message).toContain("apiKey");
			expect(key.message).not.toContain("crsr_secret");
		}
		const nested = await store.update((document) => {
			document.cloud = { CURSOR_API_KEY: "x" };
		});
		expect(nested).toMatchObject({ ok: false, reason: "invalid-update" });
		const thrown = await store.update(() => {
			throw new Error("boom");
		});
		expect(thrown).toMatchObject({ ok: false, reason: "invalid-update" });
		expect(fs.readFileSync(file).equals(before)).toBe(true);
		expect(strayFiles()).toEqual([]);
	});

	test.skipIf(!posix)("a symlinked config is updated at its target", async () => {
		const real = path.join(tmp, "dotfiles", "cursor-sdk.json");
		fs.mkdirSync(path.dirname(real), { recursive: true });
		fs.writeFileSync(real, '{"keep":1}');
		fs.mkdirSync(agentDir, { recursive: true });
		fs.symlinkSync(real, file);
		await new CursorSdkConfigFile(file).setFastDefault("a", true);
		expect(fs.lstatSync(file).isSymbolicLink()).toBe(true);
		expect(JSON.parse(fs.readFileSync(real, "utf8"))).toEqual({ keep: 1, fastDefaults: { a: true } });
	});
});

describe("concurrency and locking", () => {
	test("concurrent updates from many async tasks and instances all land", async () => {
		writeRaw('{"other":"kept"}');
		const shared = new CursorSdkConfigFile(file);
		const tasks: Promise<unknown>[] = [];
		for (let i = 0; i < 40; i++) {
			// Half the tasks share one instance (queued); the rest use their own (serialized by the lock file).
			const store = i % 2 === 0 ? shared : new CursorSdkConfigFile(file);
			tasks.push(store.setFastDefault(`model-${i}`, i % 3 === 0));
		}
		const results = await Promise.all(tasks);
		for (const result of results) expect(result).toMatchObject({ ok: true, written: true });
		const saved = JSON.parse(fs.readFileSync(file, "utf8"));
		expect(saved.other).toBe("kept");
		expect(Object.keys(saved.fastDefaults)).toHaveLength(40);
		for (let i = 0; i < 40; i++) expect(saved.fastDefaults[`model-${i}`]).toBe(i % 3 === 0);
		expect(strayFiles()).toEqual([]);
		if (posix) expect(mode(file)).toBe(0o600);
	});

	test("concurrent updates from two child processes and this process all land", async () => {
		const script = path.join(tmp, "writer.ts");
		fs.writeFileSync(
			script,
			[
				`import { CursorSdkConfigFile } from ${JSON.stringify(pathToFileURL(MODULE_PATH).href)};`,
				"const [file, prefix, count] = process.argv.slice(2);",
				"const store = new CursorSdkConfigFile(file, { lockTimeoutMs: 30000 });",
				"for (let i = 0; i < Number(count); i++) {",
				"\tconst result = await store.setFastDefault(prefix + '-' + i, i % 2 === 0);",
				"\tif (!result.ok) { console.error(result.message); process.exit(1); }",
				"}",
			].join("\n"),
		);
		const count = 25;
		const child = (prefix: string) =>
			new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
				const proc = spawn(process.execPath, [script, file, prefix, String(count)], {
					stdio: ["ignore", "ignore", "pipe"],
				});
				let stderr = "";
				proc.stderr?.on("data", (chunk) => {
					stderr += String(chunk);
				});
				proc.on("error", reject);
				proc.on("close", (code) => resolve({ code, stderr }));
			});
		const local = new CursorSdkConfigFile(file, { lockTimeoutMs: 30000 });
		const own = (async () => {
			for (let i = 0; i < count; i++) {
				const result = await local.setFastDefault(`parent-${i}`, true);
				expect(result.ok).toBe(true);
			}
		})();
		const [a, b] = await Promise.all([child("alpha"), child("beta"), own]);
		expect(a).toEqual({ code: 0, stderr: "" });
		expect(b).toEqual({ code: 0, stderr: "" });
		const saved = JSON.parse(fs.readFileSync(file, "utf8"));
		expect(Object.keys(saved.fastDefaults)).toHaveLength(3 * count);
		for (let i = 0; i < count; i++) {
			expect(saved.fastDefaults[`alpha-${i}`]).toBe(i % 2 === 0);
			expect(saved.fastDefaults[`beta-${i}`]).toBe(i % 2 === 0);
			expect(saved.fastDefaults[`parent-${i}`]).toBe(true);
		}
		expect(strayFiles()).toEqual([]);
	}, 60_000);

	test("a stale lock (older than lockStaleMs) is recovered", async () => {
		writeRaw('{"fastDefaults":{"a":true}}');
		const lock = `${file}.lock`;
		fs.writeFileSync(lock, '{"pid":999999,"token":"dead"}');
		const old = new Date(Date.now() - 60_000);
		fs.utimesSync(lock, old, old);
		const store = new CursorSdkConfigFile(file, { lockTimeoutMs: 2_000, lockStaleMs: 10_000 });
		const result = await store.setFastDefault("b", false);
		expect(result).toMatchObject({ ok: true, written: true });
		expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ fastDefaults: { a: true, b: false } });
		expect(fs.existsSync(lock)).toBe(false);
		expect(strayFiles()).toEqual([]);
	});

	test("a fresh lock held by someone else times out without touching the file", async () => {
		writeRaw('{"fastDefaults":{"a":true}}');
		const before = fs.readFileSync(file);
		const lock = `${file}.lock`;
		fs.writeFileSync(lock, '{"pid":1,"token":"live"}');
		const store = new CursorSdkConfigFile(file, { lockTimeoutMs: 150, lockStaleMs: 60_000 });
		const started = Date.now();
		const result = await store.setFastDefault("b", false);
		expect(Date.now() - started).toBeLessThan(5_000);
		expect(result).toMatchObject({ ok: false, reason: "lock-timeout" });
		if (!result.ok) expect(result.message).toContain(lock);
		expect(fs.readFileSync(file).equals(before)).toBe(true);
		expect(fs.readFileSync(lock, "utf8")).toContain("live");
	});

	test("a lock released while waiting is acquired", async () => {
		writeRaw("{}");
		const lock = `${file}.lock`;
		fs.writeFileSync(lock, "held");
		setTimeout(() => fs.rmSync(lock), 100);
		const result = await new CursorSdkConfigFile(file, { lockTimeoutMs: 5_000 }).setFastDefault("x", true);
		expect(result).toMatchObject({ ok: true, written: true });
		expect(fs.existsSync(lock)).toBe(false);
	});
});

describe("local agent settings and subagents", () => {
	test("local.autoReview, local.sandboxOptions.enabled, local.storeRoot and raw subagents are read", () => {
		const parsed = parseUserConfigText(
			JSON.stringify({
				local: { autoReview: true, sandboxOptions: { enabled: true, extra: 1 }, storeRoot: "relative/kept" },
				subagents: { reviewer: { description: "d", prompt: "p" }, broken: 3 },
			}),
			"f",
		);
		expect(parsed.warning).toBeUndefined();
		expect(parsed.config.local).toEqual({
			autoReview: true,
			sandboxOptions: { enabled: true },
			storeRoot: "relative/kept",
		});
		// Entries are validated one by one later: a bad entry does not make the file invalid.
		expect({ ...parsed.config.subagents }).toEqual({ reviewer: { description: "d", prompt: "p" }, broken: 3 });
	});

	test("wrong types are reported and the file is never rewritten", async () => {
		const text = JSON.stringify({ local: { autoReview: "yes", sandboxOptions: true, storeRoot: 5 }, subagents: [] });
		const parsed = parseUserConfigText(text, "f");
		for (const field of ["local.autoReview", "local.sandboxOptions", "local.storeRoot", "subagents"]) {
			expect(parsed.warning).toContain(`"${field}"`);
		}
		writeRaw(text);
		const result = await new CursorSdkConfigFile(file).setFastDefault("x", true);
		expect(result).toMatchObject({ ok: false, reason: "invalid-file" });
		expect(fs.readFileSync(file, "utf8")).toBe(text);
	});

	test("an unrelated save keeps subagents and local settings as they are", async () => {
		const document = {
			subagents: { constructor: { description: "d", prompt: "p", model: "inherit" } },
			local: { autoReview: true, sandboxOptions: { enabled: false }, storeRoot: "/srv/state" },
		};
		writeRaw(JSON.stringify(document));
		expect(await new CursorSdkConfigFile(file).setFastDefault("composer-2", true)).toMatchObject({ ok: true });
		expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ ...document, fastDefaults: { "composer-2": true } });
	});
});
