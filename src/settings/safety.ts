// Cursor's local safety controls (auto-review, sandbox): off unless something explicitly turns them on. Pure.
import type { CursorSdkUserConfig } from "./config-schema.ts";
import type { CursorEnv } from "./env.ts";

export interface SafetyInput {
	/** `--cursor-auto-review` / `--cursor-sandbox` (`true` when given). */
	readonly flags?: { readonly autoReview?: unknown; readonly sandbox?: unknown };
	/** `PI_CURSOR_AUTO_REVIEW` / `PI_CURSOR_SANDBOX` (see `readEnv`). */
	readonly env?: Pick<CursorEnv, "autoReview" | "sandbox">;
	/** The trusted project `.pi/cursor-sdk.json` (absent when the project is not trusted). */
	readonly project?: CursorSdkUserConfig;
	readonly user?: CursorSdkUserConfig;
}

export interface SafetySettings {
	readonly autoReview: boolean;
	readonly sandbox: boolean;
}

/** flag (only turns on) > env (true/false) > trusted project config > user config > off. */
function resolveOne(flag: unknown, env: boolean | undefined, project: unknown, user: unknown): boolean {
	if (flag === true) return true;
	if (env !== undefined) return env;
	if (typeof project === "boolean") return project;
	return user === true;
}

export function resolveSafety(input: SafetyInput): SafetySettings {
	return {
		autoReview: resolveOne(
			input.flags?.autoReview,
			input.env?.autoReview,
			input.project?.local?.autoReview,
			input.user?.local?.autoReview,
		),
		sandbox: resolveOne(
			input.flags?.sandbox,
			input.env?.sandbox,
			input.project?.local?.sandboxOptions?.enabled,
			input.user?.local?.sandboxOptions?.enabled,
		),
	};
}

/** The `local` options to add to `Agent.create`: only the enabled controls (nothing at all when both are off). */
export function safetyAgentOptions(safety: SafetySettings): {
	autoReview?: true;
	sandboxOptions?: { enabled: true };
} {
	return {
		...(safety.autoReview ? { autoReview: true as const } : {}),
		...(safety.sandbox ? { sandboxOptions: { enabled: true as const } } : {}),
	};
}

/** The safety controls of the session's settings as they stand (`SessionSettings.input()`), for commands. */
export function sessionSafety(input: {
	readonly flags?: SafetyInput["flags"];
	readonly env?: SafetyInput["env"];
	readonly projectConfig?: CursorSdkUserConfig;
	readonly config?: CursorSdkUserConfig;
}): SafetySettings {
	return resolveSafety({ flags: input.flags, env: input.env, project: input.projectConfig, user: input.config });
}
