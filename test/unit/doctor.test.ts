import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CheckResult, compareVersions, renderDoctor, runChecks } from "../../src/doctor/checks.ts";
import { type DoctorSources, gatherDoctorFacts } from "../../src/doctor/gather.ts";
import { readEnv } from "../../src/settings/env.ts";
import { tempDirs } from "../support/temp-dirs.ts";

const tempDir = tempDirs("pi-cursor-doctor-");

/** A working install: a parser vendor dir and an executable rg. */
function natives(dir: string) {
	const vendor = join(dir, "vendor");
	for (const pkg of ["tree-sitter", "tree-sitter-bash"]) {
		mkdirSync(join(vendor, pkg), { recursive: true });
		writeFileSync(join(vendor, pkg, "index.js"), "");
	}
	const rg = join(dir, "rg");
	writeFileSync(rg, "");
	chmodSync(rg, 0o755);
	return { treeSitterVendorDir: vendor, ripgrepPath: rg };
}

const KEY = "key_doctor_secret_98765";

function sources(dir: string, overrides: Partial<DoctorSources> = {}): DoctorSources {
	const located = natives(dir);
	return {
		env: readEnv({
			CURSOR_TREE_SITTER_VENDOR_DIR: located.treeSitterVendorDir,
			CURSOR_RIPGREP_PATH: located.ripgrepPath,
		}),
		auth: async () => ({ apiKey: KEY, source: "CURSOR_API_KEY" }),
		me: async () => ({ apiKeyName: "laptop" }),
		piVersion: "1.6.0",
		transport: { useHttp1: undefined, source: "default" },
		catalog: { source: "fallback", rows: 241, capturedOn: "2026-10-06" },
		cachedAt: () => undefined,
		settingSources: { ok: true, sources: ["all"], isDefault: true },
		storeRoot: () => ({ ok: true, path: join(dir, "state"), label: "the SDK's default state root" }),
		bridge: { status: "ok", detail: "1 Pi tool(s) bridged as pi__<name>" },
		runtime: { status: "ok", detail: "local (the default)" },
		lastError: undefined,
		now: Date.parse("2026-11-02T10:00:00Z"),
		natives: located,
		sdkVersion: "1.0.32",
		...overrides,
	};
}

const byTitle = (results: CheckResult[], title: string) => results.find((r) => r.title === title);

test("a healthy setup passes every check and never shows the key", async () => {
	const results = runChecks(await gatherDoctorFacts(sources(tempDir())));
	expect(results.map((r) => r.status)).toEqual(results.map(() => "ok"));
	const text = renderDoctor(results);
	expect(text).toContain("All checks passed.");
	expect(text).toContain("from CURSOR_API_KEY");
	expect(text).toContain('answered for key "laptop"');
	expect(text).not.toContain(KEY);
});

test("no key: the key check fails with the fix and the backend is not asked", async () => {
	let asked = false;
	const facts = await gatherDoctorFacts(
		sources(tempDir(), {
			auth: async () => ({ apiKey: undefined, source: "logged out" }),
			me: async () => {
				asked = true;
				return {};
			},
		}),
	);
	const results = runChecks(facts);
	expect(asked).toBe(false);
	expect(byTitle(results, "API key source")).toMatchObject({ status: "fail", fix: expect.stringContaining("/login") });
	expect(renderDoctor(results)).toContain("Cursor will not work until the failures are fixed.");
});

test("an account sign-in: the key check names it and its days left, warns near expiry; an expired one shows the way out", async () => {
	const near = runChecks(
		await gatherDoctorFacts(
			sources(tempDir(), {
				auth: async () => ({ apiKey: KEY, source: "OAuth" }),
				credential: () => ({
					detail: "Cursor account sign-in (me@example.com), 5 days left (expires 2026-11-07)",
					warning:
						"Your Cursor sign-in (me@example.com) expires in 5 days (2026-11-07). Sign in again with /login → Cursor to renew it.",
				}),
			}),
		),
	);
	expect(byTitle(near, "API key source")).toMatchObject({
		status: "warn",
		detail: expect.stringContaining("Cursor account sign-in (me@example.com), 5 days left"),
		fix: expect.stringContaining("/login"),
	});
	const expired = runChecks(
		await gatherDoctorFacts(
			sources(tempDir(), {
				auth: async () => {
					throw new Error(
						"OAuth refresh failed for cursor: Your Cursor sign-in expired on 2026-11-01: sign in again with /login → Cursor.",
					);
				},
			}),
		),
	);
	expect(byTitle(expired, "API key source")).toMatchObject({
		status: "fail",
		detail: expect.stringContaining("sign in again with /login"),
	});
});

test("the backend: a rejected key fails with the fix, an unreachable one points at the network; errors are scrubbed", async () => {
	const rejected = Object.assign(new Error(`Invalid API key ${KEY}`), { name: "AuthenticationError" });
	const results = runChecks(await gatherDoctorFacts(sources(tempDir(), { me: async () => Promise.reject(rejected) })));
	const check = byTitle(results, "Cursor accepts the key");
	expect(check).toMatchObject({ status: "fail", fix: expect.stringContaining("wrong, expired or revoked") });
	expect(JSON.stringify(check)).not.toContain(KEY);
	const offline = runChecks(
		await gatherDoctorFacts(sources(tempDir(), { me: async () => Promise.reject(new Error("fetch failed")) })),
	);
	expect(byTitle(offline, "Cursor accepts the key")).toMatchObject({
		status: "fail",
		fix: expect.stringContaining("network"),
	});
});

test("stale explicit native overrides warn naming the variable; a missing platform package warns too", async () => {
	const dir = tempDir();
	const stale = join(dir, "old", "vendor");
	const results = runChecks(
		await gatherDoctorFacts(
			sources(dir, { env: readEnv({ CURSOR_TREE_SITTER_VENDOR_DIR: stale, CURSOR_RIPGREP_PATH: join(dir, "nope") }) }),
		),
	);
	const parser = byTitle(results, "Native shell parser");
	expect(parser?.status).toBe("warn");
	expect(parser?.detail).toContain(`CURSOR_TREE_SITTER_VENDOR_DIR=${stale}`);
	expect(parser?.fix).toContain("unset CURSOR_TREE_SITTER_VENDOR_DIR");
	expect(byTitle(results, "ripgrep")?.fix).toContain("unset CURSOR_RIPGREP_PATH");
	const missing = runChecks(await gatherDoctorFacts(sources(tempDir(), { env: readEnv({}), natives: {} })));
	expect(byTitle(missing, "Native shell parser")).toMatchObject({
		status: "warn",
		fix: expect.stringContaining("reinstall"),
	});
});

test("versions, transport, setting sources, catalog age, store root, bridge and last error", async () => {
	const dir = tempDir();
	const blocker = join(dir, "file");
	writeFileSync(blocker, "");
	const facts = await gatherDoctorFacts(
		sources(dir, {
			sdkVersion: "1.0.30",
			transport: { useHttp1: true, source: "session" },
			settingSources: { ok: false, error: 'PI_CURSOR_SETTING_SOURCES="bogus" names unknown sources' },
			catalog: { source: "cache", rows: 10, capturedOn: "x" },
			cachedAt: () => Date.parse("2026-09-01T00:00:00Z"),
			storeRoot: () => ({ ok: true, path: join(blocker, "state"), label: "PI_CURSOR_SDK_STATE_ROOT" }),
			bridge: { status: "warn", detail: "the bridge stopped", fix: "restart Pi" },
			lastError: { message: "Cursor error: boom", at: Date.parse("2026-11-02T09:59:00Z") },
		}),
	);
	const results = runChecks(facts);
	expect(byTitle(results, "Versions")).toMatchObject({ status: "warn", detail: expect.stringContaining("1.0.32") });
	expect(byTitle(results, "Transport")?.detail).toBe("HTTP/1.1 + SSE (set with /cursor-http for this session)");
	expect(byTitle(results, "Cursor setting sources")?.status).toBe("fail");
	expect(byTitle(results, "Model catalog")).toMatchObject({
		status: "warn",
		fix: expect.stringContaining("/cursor-refresh-models"),
	});
	expect(byTitle(results, "Agent store root")).toMatchObject({
		status: "fail",
		detail: expect.stringContaining("not writable"),
	});
	expect(byTitle(results, "Pi tool bridge")).toMatchObject({ status: "warn", detail: "the bridge stopped" });
	expect(byTitle(results, "Last Cursor error in this session")?.detail).toBe(
		"2026-11-02 09:59:00 UTC: Cursor error: boom",
	);
	const unusable = runChecks(
		await gatherDoctorFacts(
			sources(dir, { storeRoot: () => ({ ok: false, label: "x", message: "it is not an absolute path" }) }),
		),
	);
	expect(byTitle(unusable, "Agent store root")).toMatchObject({ status: "fail", detail: "it is not an absolute path" });
	const oldPi = runChecks(await gatherDoctorFacts(sources(dir, { piVersion: "0.80.0" })));
	expect(byTitle(oldPi, "Versions")?.detail).toContain("supported Pi versions are 0.87.1 through 1.6.0");
});

test("the report opens with its verdict, counted in words that fit the numbers", () => {
	const check = (status: CheckResult["status"], title: string): CheckResult => ({ title, status, detail: "d" });
	const first = (results: CheckResult[]) => renderDoctor(results).split("\n")[0];
	expect(first([check("ok", "a"), check("ok", "b")])).toBe("Cursor doctor report: All checks passed.");
	expect(first([check("ok", "a"), check("warn", "b")])).toBe(
		"Cursor doctor report: All essential checks passed, 1 warning.",
	);
	expect(first([check("fail", "a"), check("warn", "b"), check("warn", "c")])).toBe(
		"Cursor doctor report: 1 check failed, 2 warnings. Cursor will not work until the failures are fixed.",
	);
	expect(first([check("fail", "a"), check("fail", "b")])).toBe(
		"Cursor doctor report: 2 checks failed. Cursor will not work until the failures are fixed.",
	);
	expect(renderDoctor([check("warn", "b")])).toContain("[WARN] b: d");
});

test("version comparison", () => {
	expect(compareVersions("1.6.0", "0.87.1")).toBeGreaterThan(0);
	expect(compareVersions("0.87.1", "0.87.1")).toBe(0);
	expect(compareVersions("1.10.0", "1.9.9")).toBeGreaterThan(0);
	expect(compareVersions("1.6.0-beta.1", "1.6.0")).toBe(0);
});
