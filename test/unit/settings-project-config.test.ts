// The project `.pi/cursor-sdk.json`: read only for a project Pi's trust flow approved this run (or --approve).
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CursorSdkConfigFile } from "../../src/settings/config-file.ts";
import { LocalAgentConfig } from "../../src/settings/local-config.ts";
import {
	approveOverride,
	projectConfigPath,
	projectConfigTrusted,
	savedProjectTrust,
} from "../../src/settings/project-config.ts";

describe("approveOverride", () => {
	test("reads --approve/-a and --no-approve/-na; the last one wins; nothing after --", () => {
		expect(approveOverride(["node", "pi", "--mode", "rpc"])).toBeUndefined();
		expect(approveOverride(["node", "pi", "--approve"])).toBe(true);
		expect(approveOverride(["pi", "-a", "-p", "hi"])).toBe(true);
		expect(approveOverride(["pi", "-na"])).toBe(false);
		expect(approveOverride(["pi", "--approve", "--no-approve"])).toBe(false);
		expect(approveOverride(["pi", "--", "--approve"])).toBeUndefined();
	});
});

describe("projectConfigTrusted", () => {
	const facts = {
		piTrusted: true,
		savedTrust: false,
		cliApprove: false,
		trustEventSeen: false,
		hasProtectedResources: false,
	};
	test("Pi's default trust for a folder without protected resources is not an approval", () => {
		expect(projectConfigTrusted(facts)).toBe(false);
	});
	test("Pi's trust flow this run, its decision over protected resources, or a saved decision approve", () => {
		expect(projectConfigTrusted({ ...facts, trustEventSeen: true })).toBe(true);
		expect(projectConfigTrusted({ ...facts, hasProtectedResources: true })).toBe(true);
		expect(projectConfigTrusted({ ...facts, savedTrust: true })).toBe(true);
	});
	test("--approve counts where Pi's state cannot show it (a folder Pi trusts by default)", () => {
		expect(projectConfigTrusted({ ...facts, cliApprove: true })).toBe(true);
	});
	test("never when Pi does not trust the project (also --no-approve), whatever else says so", () => {
		const all = { savedTrust: true, cliApprove: true, trustEventSeen: true, hasProtectedResources: true };
		expect(projectConfigTrusted({ ...facts, ...all, piTrusted: false })).toBe(false);
	});
});

describe("savedProjectTrust: Pi's own trust store", () => {
	test("a saved decision for the folder or a parent; none, a refusal or an unreadable store is no trust", () => {
		const home = mkdtempSync(join(tmpdir(), "trust-store-test-"));
		try {
			const agentDir = join(home, "agent");
			const project = join(home, "work", "project");
			mkdirSync(project, { recursive: true });
			expect(savedProjectTrust(agentDir, project)).toBe(false);
			writeFileSync(join(agentDir, "trust.json"), JSON.stringify({ [join(home, "work")]: true }));
			expect(savedProjectTrust(agentDir, project)).toBe(true);
			writeFileSync(join(agentDir, "trust.json"), JSON.stringify({ [project]: false, [join(home, "work")]: true }));
			expect(savedProjectTrust(agentDir, project)).toBe(false);
			writeFileSync(join(agentDir, "trust.json"), "{ not json");
			expect(savedProjectTrust(agentDir, project)).toBe(false);
		} finally {
			rmSync(home, { recursive: true, force: true });
		}
	});
});

describe("LocalAgentConfig", () => {
	const dirs: string[] = [];
	afterEach(() => {
		for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
	});
	function fixture(project: string) {
		const dir = mkdtempSync(join(tmpdir(), "project-config-test-"));
		dirs.push(dir);
		const cwd = join(dir, "project");
		mkdirSync(join(cwd, ".pi"), { recursive: true });
		writeFileSync(projectConfigPath(cwd), project);
		const userPath = join(dir, "agent", "cursor-sdk.json");
		mkdirSync(join(dir, "agent"));
		writeFileSync(userPath, JSON.stringify({ subagents: { u: { description: "user", prompt: "p" } } }));
		const warnings: string[] = [];
		const config = new LocalAgentConfig(new CursorSdkConfigFile(userPath), (m) => warnings.push(m));
		return { cwd, config, warnings };
	}
	const untrusted = { piTrusted: true, savedTrust: false, cliApprove: false, hasProtectedResources: false };
	const projectText = JSON.stringify({
		local: { sandboxOptions: { enabled: true } },
		subagents: { p: { description: "project", prompt: "p" } },
	});

	test("untrusted: the project file is ignored (user subagents apply)", () => {
		const { cwd, config } = fixture(projectText);
		const read = config.start(cwd, untrusted);
		expect(config.projectTrusted).toBe(false);
		expect(read.project).toBeUndefined();
		expect(Object.keys(config.subagents(() => undefined).agents ?? {})).toEqual(["u"]);
	});

	test("approved (a trust event this run, or --approve): the project set replaces the user set", () => {
		const { cwd, config } = fixture(projectText);
		config.onTrustEvent(cwd);
		const read = config.start(cwd, untrusted);
		expect(read.project?.local?.sandboxOptions).toEqual({ enabled: true });
		expect(Object.keys(config.subagents(() => undefined).agents ?? {})).toEqual(["p"]);
		const other = fixture(projectText);
		expect(other.config.start(other.cwd, { ...untrusted, cliApprove: true }).project).toBeDefined();
	});

	test("a malformed trusted project file is reported once (not on every re-read) and left byte-identical", () => {
		const text = '{ "subagents": { "p": ';
		const { cwd, config, warnings } = fixture(text);
		config.start(cwd, { ...untrusted, cliApprove: true });
		config.reload();
		config.reload();
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toContain(projectConfigPath(cwd));
		expect(warnings[0]).toContain("not valid JSON");
		expect(readFileSync(projectConfigPath(cwd), "utf8")).toBe(text);
	});
});
