import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
	CLOUD_ENV,
	type CloudSettings,
	type CloudSettingsInput,
	cloudAgentOptions,
	resolveCloudSettings,
} from "../../src/cloud/options.ts";

const REPO = "https://github.com/acme/app";

function settings(input: Partial<CloudSettingsInput>): CloudSettings {
	const result = resolveCloudSettings({ env: {}, ...input });
	if (!result.ok) throw new Error(result.errors.join("\n"));
	return result.settings;
}

function errors(input: Partial<CloudSettingsInput>): string[] {
	const result = resolveCloudSettings({ env: {}, ...input });
	if (result.ok) throw new Error(`expected errors, got ${JSON.stringify(result.settings)}`);
	return result.errors;
}

describe("cloud settings", () => {
	test("nothing set: the origin remote, fresh context, no PR controls, local state checked, not acknowledged", () => {
		expect(settings({})).toEqual({
			repo: { kind: "origin" },
			context: "fresh",
			allowLocalState: false,
			acknowledged: false,
		});
	});

	test("a flag beats the environment, which beats the user config", () => {
		const config = { repo: "https://github.com/acme/from-config", branch: "dev", contextHandoff: "bootstrap" };
		const env = { [CLOUD_ENV.repo]: "https://github.com/acme/from-env", [CLOUD_ENV.branch]: "env-branch" };
		expect(settings({ config }).repo).toEqual({
			kind: "explicit",
			url: "https://github.com/acme/from-config",
			setting: "cursor-sdk.json cloud.repo",
		});
		expect(settings({ config, env })).toMatchObject({
			repo: { kind: "explicit", url: "https://github.com/acme/from-env", setting: CLOUD_ENV.repo },
			startingRef: "env-branch",
			context: "bootstrap",
		});
		expect(settings({ config, env, flags: { repo: `${REPO}.git`, branch: "main", context: "fresh" } })).toMatchObject({
			repo: { kind: "explicit", url: REPO, setting: "--cursor-cloud-repo" },
			startingRef: "main",
			context: "fresh",
		});
	});

	test("booleans: flags turn on, the environment speaks the shared vocabulary (unrecognised = unset), config must be boolean", () => {
		expect(
			settings({
				flags: { directPush: true, autoCreatePr: true, skipReviewerRequest: true, allowLocalState: true, ack: true },
			}),
		).toMatchObject({
			directPush: true,
			autoCreatePR: true,
			skipReviewerRequest: true,
			allowLocalState: true,
			acknowledged: true,
		});
		const env = { [CLOUD_ENV.autoCreatePr]: "off", [CLOUD_ENV.ack]: "YES", [CLOUD_ENV.directPush]: "maybe" };
		const fromEnv = settings({ env, config: { directPush: true } });
		expect(fromEnv).toMatchObject({ autoCreatePR: false, acknowledged: true, directPush: true });
		expect(fromEnv).not.toHaveProperty("skipReviewerRequest");
		expect(errors({ config: { autoCreatePR: "yes" } })).toEqual([
			"cursor-sdk.json cloud.autoCreatePR must be true or false.",
		]);
	});

	test("the Cursor environment: a type (cloud|pool|machine) and an optional name", () => {
		expect(settings({ flags: { envType: "pool", envName: "gpu" } }).env).toEqual({ type: "pool", name: "gpu" });
		expect(settings({ config: { environment: { type: "machine" } } }).env).toEqual({ type: "machine" });
		expect(
			settings({ env: { [CLOUD_ENV.envType]: "cloud" }, config: { environment: { type: "pool", name: "x" } } }).env,
		).toEqual({ type: "cloud", name: "x" });
		expect(errors({ flags: { envType: "vm" } })).toEqual([
			'--cursor-cloud-env-type must be one of "cloud", "pool", "machine".',
		]);
		expect(errors({ flags: { envName: "gpu" } })[0]).toContain("needs an environment type");
	});

	test("context: fresh or bootstrap; the config's older `never` means fresh; anything else fails closed", () => {
		expect(settings({ config: { contextHandoff: "never" } }).context).toBe("fresh");
		expect(errors({ env: { [CLOUD_ENV.context]: "all" } })).toEqual([
			`${CLOUD_ENV.context} must be "fresh" or "bootstrap".`,
		]);
		expect(errors({ config: { contextHandoff: "everything" } })).toEqual([
			'cursor-sdk.json cloud.contextHandoff must be "fresh" or "bootstrap".',
		]);
	});

	test("environment forwarding fails closed wherever it is asked for", () => {
		expect(errors({ flags: { env: "NPM_TOKEN,GH_TOKEN" } })[0]).toContain(
			"--cursor-cloud-env: forwarding environment variables",
		);
		expect(errors({ flags: { envFromFiles: true } })[0]).toContain("--cursor-cloud-env-from-files: forwarding");
		expect(errors({ env: { [CLOUD_ENV.env]: "A" } })[0]).toContain(`${CLOUD_ENV.env}: forwarding`);
		expect(errors({ env: { [CLOUD_ENV.envFromFiles]: "1" } })[0]).toContain(`${CLOUD_ENV.envFromFiles}: forwarding`);
		expect(errors({ config: { envNames: ["A"] } })[0]).toContain("cloud.envNames: forwarding");
		expect(errors({ config: { envFromFiles: true } })[0]).toContain("cloud.envFromFiles: forwarding");
		// Explicitly off is no request for forwarding.
		expect(settings({ env: { [CLOUD_ENV.envFromFiles]: "0" }, config: { envNames: [] } }).repo.kind).toBe("origin");
	});

	test("starting branches: refs/heads/x is x; tags, HEAD and ranges are refused before any request", () => {
		expect(settings({ flags: { branch: "refs/heads/feature/x" } }).startingRef).toBe("feature/x");
		expect(settings({ env: { [CLOUD_ENV.branch]: "release-1.2" } }).startingRef).toBe("release-1.2");
		for (const [branch, why] of [
			["refs/tags/v1.0", "names a ref that is not a branch"],
			["HEAD", "names HEAD, not a branch"],
			["main..dev", "contains '..'"],
			["feat.lock", "has a component ending with '.lock'"],
			["-x", "starts with '-'"],
		]) {
			expect(errors({ flags: { branch } })).toEqual([
				expect.stringContaining(`--cursor-cloud-branch is not a branch name: it ${why}`),
			]);
		}
		expect(errors({ config: { branch: "a..b" } })[0]).toContain("cursor-sdk.json cloud.branch is not a branch name");
	});

	test("every problem is reported at once; a bad repository URL is never repeated", () => {
		const url = "https://me:ghp_secret123456@github.com/acme/app";
		const all = errors({ flags: { repo: url, envType: "vm" }, config: { allowLocalState: 1 } });
		expect(all).toHaveLength(3);
		expect(all.join("\n")).not.toContain("ghp_secret123456");
		expect(errors({ config: "on" })).toEqual(['cursor-sdk.json: "cloud" must be an object; fix or remove it.']);
	});

	test("whatever the input, resolving never throws and a repository in the result is an accepted URL", () => {
		const value = fc.oneof(fc.string(), fc.boolean(), fc.integer(), fc.constant(undefined), fc.webUrl());
		fc.assert(
			fc.property(
				fc.record(
					{ repo: value, branch: value, context: value, envType: value, directPush: value },
					{ requiredKeys: [] },
				),
				fc.dictionary(fc.constantFrom(...Object.values(CLOUD_ENV)), fc.string()),
				fc.oneof(fc.constant(undefined), fc.dictionary(fc.string(), value)),
				(flags, env, config) => {
					const result = resolveCloudSettings({ flags, env, config });
					if (result.ok && result.settings.repo.kind === "explicit") {
						expect(result.settings.repo.url.startsWith("https://")).toBe(true);
					}
					if (!result.ok) expect(result.errors.length).toBeGreaterThan(0);
				},
			),
		);
	});
});

describe("SDK cloud options", () => {
	test("the repository with its starting branch; PR and branch controls only when set", () => {
		const s = settings({ flags: { branch: "main", autoCreatePr: true, envType: "pool" } });
		expect(cloudAgentOptions(s, REPO)).toEqual({
			ok: true,
			cloud: { repos: [{ url: REPO, startingRef: "main" }], autoCreatePR: true, env: { type: "pool" } },
		});
		const off = settings({ env: { [CLOUD_ENV.directPush]: "false", [CLOUD_ENV.skipReviewerRequest]: "true" } });
		expect(cloudAgentOptions(off, REPO)).toEqual({
			ok: true,
			cloud: { repos: [{ url: REPO }], workOnCurrentBranch: false, skipReviewerRequest: true },
		});
	});

	test("without a repository: an agent without one, unless a starting branch asks for one", () => {
		expect(cloudAgentOptions(settings({}), undefined)).toEqual({ ok: true, cloud: { repos: [] } });
		const check = cloudAgentOptions(settings({ flags: { branch: "main" } }), undefined);
		expect(check).toEqual({ ok: false, message: expect.stringContaining("--cursor-cloud-branch") });
	});
});
