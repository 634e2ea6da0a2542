// Cloud settings from flags, environment and the user's cursor-sdk.json `cloud` section (that precedence), and the
// SDK's cloud agent options made of them. Pure. Anything invalid fails closed with a message naming the setting;
// environment forwarding (`--cursor-cloud-env`, `…-env-from-files`) is not supported and fails closed too.

import type { CloudAgentOptions } from "../sdk/cursor-sdk.ts";
import { ENV_VARS, type EnvRecord, readEnvVar } from "../settings/env.ts";
import { booleanWord } from "../settings/env-parse.ts";
import { checkRepositoryUrl } from "./repo-url.ts";
import { checkStartingRef } from "./starting-ref.ts";

/** Flag names (without `--`), as registered with `pi.registerFlag`. */
export const CLOUD_FLAGS = {
	ack: "cursor-cloud-ack",
	repo: "cursor-cloud-repo",
	branch: "cursor-cloud-branch",
	context: "cursor-cloud-context",
	directPush: "cursor-cloud-direct-push",
	autoCreatePr: "cursor-cloud-auto-create-pr",
	skipReviewerRequest: "cursor-cloud-skip-reviewer-request",
	allowLocalState: "cursor-cloud-allow-local-state",
	envType: "cursor-cloud-env-type",
	envName: "cursor-cloud-env-name",
	env: "cursor-cloud-env",
	envFromFiles: "cursor-cloud-env-from-files",
} as const;

/** Each setting's variable in the environment table (src/settings/env.ts). */
const CLOUD_ENV_KEYS = {
	ack: "cloudAck",
	repo: "cloudRepo",
	branch: "cloudBranch",
	context: "cloudContext",
	directPush: "cloudDirectPush",
	autoCreatePr: "cloudAutoCreatePr",
	skipReviewerRequest: "cloudSkipReviewerRequest",
	allowLocalState: "cloudAllowLocalState",
	envType: "cloudEnvType",
	envName: "cloudEnvName",
	env: "cloudEnv",
	envFromFiles: "cloudEnvFromFiles",
} as const;

/** Each setting's variable name. */
export const CLOUD_ENV = Object.fromEntries(
	Object.entries(CLOUD_ENV_KEYS).map(([key, envKey]) => [key, ENV_VARS[envKey].name]),
) as Record<keyof typeof CLOUD_ENV_KEYS, string>;

type Key = keyof typeof CLOUD_FLAGS;

/** Each cloud flag as `pi --help` shows it: its type and meaning are its environment variable's. */
export function cloudFlagSpecs(): { name: string; type: "boolean" | "string"; description: string }[] {
	return (Object.keys(CLOUD_FLAGS) as Key[]).map((key) => {
		const variable = ENV_VARS[CLOUD_ENV_KEYS[key]];
		return {
			name: CLOUD_FLAGS[key],
			type: variable.parse === booleanWord ? "boolean" : "string",
			description: `Cursor Cloud: ${variable.meaning} (or ${variable.name})`,
		};
	});
}

/** Raw `pi.getFlag(...)` values by setting (boolean flags are `true` when given). */
export type CloudFlagsInput = Partial<Record<Key, unknown>>;

export interface CloudSettingsInput {
	flags?: CloudFlagsInput;
	env: EnvRecord;
	/** The `cloud` object of the USER cursor-sdk.json, as parsed (unvalidated; project config never sets these). */
	config?: unknown;
}

export type CloudContext = "fresh" | "bootstrap";
export const ENV_TYPES = ["cloud", "pool", "machine"] as const;
export type CloudEnvType = (typeof ENV_TYPES)[number];

export interface CloudSettings {
	/** An explicit repository (canonical URL and the setting it came from), or the workspace's git origin. */
	repo: { kind: "explicit"; url: string; setting: string } | { kind: "origin" };
	startingRef?: string;
	context: CloudContext;
	/** `workOnCurrentBranch`, `autoCreatePR`, `skipReviewerRequest`: sent only when set somewhere. */
	directPush?: boolean;
	autoCreatePR?: boolean;
	skipReviewerRequest?: boolean;
	allowLocalState: boolean;
	env?: { type: CloudEnvType; name?: string };
	acknowledged: boolean;
}

export type CloudSettingsResult = { ok: true; settings: CloudSettings } | { ok: false; errors: string[] };

const CONFIG_FILE = "cursor-sdk.json";

/** One setting's value and where it came from (flag > environment > user config). */
interface Found<T> {
	value: T;
	setting: string;
}

class Resolver {
	readonly errors: string[] = [];
	private readonly config: Record<string, unknown>;

	constructor(private readonly input: CloudSettingsInput) {
		const config = input.config;
		if (config !== undefined && (typeof config !== "object" || config === null || Array.isArray(config))) {
			this.errors.push(`${CONFIG_FILE}: "cloud" must be an object; fix or remove it.`);
			this.config = {};
		} else this.config = (config ?? {}) as Record<string, unknown>;
	}

	private configValue<T>(field: string, kind: string, accept: (v: unknown) => v is T): Found<T> | undefined {
		if (!Object.hasOwn(this.config, field)) return undefined;
		const value = this.config[field];
		const setting = `${CONFIG_FILE} cloud.${field}`;
		if (!accept(value)) {
			this.errors.push(`${setting} must be ${kind}.`);
			return undefined;
		}
		return { value, setting };
	}

	bool(key: Key, field: string): Found<boolean> | undefined {
		if (this.input.flags?.[key] === true) return { value: true, setting: `--${CLOUD_FLAGS[key]}` };
		const fromEnv = readEnvVar(this.input.env, CLOUD_ENV_KEYS[key]);
		if (typeof fromEnv === "boolean") return { value: fromEnv, setting: CLOUD_ENV[key] };
		return this.configValue(field, "true or false", (v): v is boolean => typeof v === "boolean");
	}

	text(key: Key, field: string | undefined): Found<string> | undefined {
		const flag = this.input.flags?.[key];
		if (typeof flag === "string" && flag.trim() !== "") return { value: flag.trim(), setting: `--${CLOUD_FLAGS[key]}` };
		const env = readEnvVar(this.input.env, CLOUD_ENV_KEYS[key]);
		if (typeof env === "string") return { value: env, setting: CLOUD_ENV[key] };
		if (field === undefined) return undefined;
		const found = this.configValue(field, "a non-empty string", (v): v is string => typeof v === "string");
		if (found && found.value.trim() === "") {
			this.errors.push(`${found.setting} must be a non-empty string.`);
			return undefined;
		}
		return found && { value: found.value.trim(), setting: found.setting };
	}

	/** The URL itself stays out of every message (it may hold a token). */
	repo(): CloudSettings["repo"] {
		const found = this.text("repo", "repo");
		if (!found) return { kind: "origin" };
		const check = checkRepositoryUrl(found.value, found.setting);
		if (!check.ok) {
			this.errors.push(check.message);
			return { kind: "origin" };
		}
		return { kind: "explicit", url: check.url, setting: found.setting };
	}

	/** A branch name as git would accept it (`refs/heads/x` is `x`); anything else is refused before any request. */
	startingRef(): string | undefined {
		const found = this.text("branch", "branch");
		if (!found) return undefined;
		const check = checkStartingRef(found.value, found.setting);
		if (check.ok) return check.ref;
		this.errors.push(check.message);
		return undefined;
	}

	context(): CloudContext {
		const found = this.text("context", undefined);
		if (found) {
			if (found.value === "fresh" || found.value === "bootstrap") return found.value;
			this.errors.push(`${found.setting} must be "fresh" or "bootstrap".`);
			return "fresh";
		}
		const config = this.configValue(
			"contextHandoff",
			'"fresh" or "bootstrap"',
			(v): v is string => v === "fresh" || v === "bootstrap" || v === "never",
		);
		// "never" is the older name of "fresh".
		return config?.value === "bootstrap" ? "bootstrap" : "fresh";
	}

	environment(): CloudSettings["env"] {
		const isObject = (v: unknown): v is Record<string, unknown> =>
			typeof v === "object" && v !== null && !Array.isArray(v);
		const config = this.configValue("environment", 'an object {"type": …, "name": …}', isObject)?.value ?? {};
		const fromConfig = (field: "type" | "name"): Found<unknown> | undefined =>
			config[field] === undefined
				? undefined
				: { value: config[field], setting: `${CONFIG_FILE} cloud.environment.${field}` };
		const type = this.text("envType", undefined) ?? fromConfig("type");
		const name = this.text("envName", undefined) ?? fromConfig("name");
		if (name && (typeof name.value !== "string" || name.value.trim() === "")) {
			this.errors.push(`${name.setting} must be a non-empty string.`);
			return undefined;
		}
		if (!type) {
			if (name)
				this.errors.push(
					`${name.setting} needs an environment type: set --${CLOUD_FLAGS.envType} <${ENV_TYPES.join("|")}>.`,
				);
			return undefined;
		}
		if (!ENV_TYPES.includes(type.value as CloudEnvType)) {
			this.errors.push(`${type.setting} must be one of ${ENV_TYPES.map((t) => `"${t}"`).join(", ")}.`);
			return undefined;
		}
		return { type: type.value as CloudEnvType, ...(name ? { name: (name.value as string).trim() } : {}) };
	}

	/** Environment forwarding is not implemented: asking for it fails closed. */
	forwarding(): void {
		const unsupported = (setting: string) =>
			this.errors.push(`${setting}: forwarding environment variables to Cursor Cloud is not supported; remove it.`);
		const names = this.text("env", undefined);
		if (names) unsupported(names.setting);
		const fromFiles = this.bool("envFromFiles", "envFromFiles");
		if (fromFiles?.value) unsupported(fromFiles.setting);
		const configNames = this.configValue("envNames", "a list of names", (v): v is unknown[] => Array.isArray(v));
		if (configNames && configNames.value.length > 0) unsupported(configNames.setting);
	}
}

export function resolveCloudSettings(input: CloudSettingsInput): CloudSettingsResult {
	const r = new Resolver(input);
	const repo = r.repo();
	const branch = r.startingRef();
	const context = r.context();
	const directPush = r.bool("directPush", "directPush");
	const autoCreatePR = r.bool("autoCreatePr", "autoCreatePR");
	const skipReviewerRequest = r.bool("skipReviewerRequest", "skipReviewerRequest");
	const allowLocalState = r.bool("allowLocalState", "allowLocalState");
	const env = r.environment();
	const acknowledged = r.bool("ack", "acknowledged");
	r.forwarding();
	if (r.errors.length > 0) return { ok: false, errors: r.errors };
	return {
		ok: true,
		settings: {
			repo,
			...(branch ? { startingRef: branch } : {}),
			context,
			...(directPush ? { directPush: directPush.value } : {}),
			...(autoCreatePR ? { autoCreatePR: autoCreatePR.value } : {}),
			...(skipReviewerRequest ? { skipReviewerRequest: skipReviewerRequest.value } : {}),
			allowLocalState: allowLocalState?.value ?? false,
			...(env ? { env } : {}),
			acknowledged: acknowledged?.value ?? false,
		},
	};
}

/**
 * The SDK's cloud options for a resolved target (`repoUrl` undefined: an agent without a repository). A starting
 * branch needs a repository.
 */
export function cloudAgentOptions(
	settings: CloudSettings,
	repoUrl: string | undefined,
): { ok: true; cloud: CloudAgentOptions } | { ok: false; message: string } {
	if (settings.startingRef !== undefined && repoUrl === undefined) {
		return {
			ok: false,
			message: `--${CLOUD_FLAGS.branch} (${CLOUD_ENV.branch}) needs a repository: set --${CLOUD_FLAGS.repo} or run Pi in a git checkout with an origin remote.`,
		};
	}
	const repos = repoUrl
		? [{ url: repoUrl, ...(settings.startingRef ? { startingRef: settings.startingRef } : {}) }]
		: [];
	return {
		ok: true,
		cloud: {
			repos,
			...(settings.env ? { env: settings.env } : {}),
			...(settings.directPush !== undefined ? { workOnCurrentBranch: settings.directPush } : {}),
			...(settings.autoCreatePR !== undefined ? { autoCreatePR: settings.autoCreatePR } : {}),
			...(settings.skipReviewerRequest !== undefined ? { skipReviewerRequest: settings.skipReviewerRequest } : {}),
		},
	};
}
