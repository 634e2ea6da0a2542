// Which runtime runs a Cursor turn, pure: `/cursor-runtime` typed during this run > `--cursor-runtime` (where this
// run starts) > `/cursor-runtime` recorded by the session before > `PI_CURSOR_RUNTIME` > the trusted project's
// `runtime` > the user's `runtime` > `local`. An invalid value anywhere on that path fails closed (the turn does not
// run on a guessed runtime) with a message naming both valid values.

import type { Checked } from "./checked.ts";

export const RUNTIMES = ["local", "cloud"] as const;
export type CursorRuntime = (typeof RUNTIMES)[number];

export type RuntimeSource = "flag" | "session" | "env" | "project" | "user" | "default";

export interface RuntimeInputs {
	/** The `/cursor-runtime` choice made during this run (it wins over the start flag). */
	readonly command?: CursorRuntime;
	/** `--cursor-runtime` as Pi parsed it. */
	readonly flag?: unknown;
	/** The session's `/cursor-runtime` choice. */
	readonly session?: CursorRuntime;
	/** `PI_CURSOR_RUNTIME`, trimmed. */
	readonly env?: string;
	/** `runtime` of the trusted project's cursor-sdk.json (raw). */
	readonly project?: unknown;
	/** `runtime` of the user's cursor-sdk.json (raw). */
	readonly user?: unknown;
}

export interface RuntimeValue {
	readonly ok: true;
	readonly runtime: CursorRuntime;
	readonly source: RuntimeSource;
}

/** An invalid value is an error; its `fallback` is the local runtime. */
export type RuntimeResolution = Checked<RuntimeValue>;

export const isRuntime = (value: unknown): value is CursorRuntime => value === "local" || value === "cloud";

const VALID = `Valid values: ${RUNTIMES.join(", ")}.`;

/** Where each source is set, as its messages name it. */
export const RUNTIME_SETTING: Record<Exclude<RuntimeSource, "default">, string> = {
	flag: "--cursor-runtime",
	session: "/cursor-runtime",
	env: "PI_CURSOR_RUNTIME",
	project: "runtime in .pi/cursor-sdk.json",
	user: "runtime in cursor-sdk.json",
};

function invalid(source: Exclude<RuntimeSource, "default">, value: unknown): string {
	const shown = typeof value === "string" ? ` "${value.slice(0, 40)}"` : "";
	return `Invalid Cursor runtime${shown} (${RUNTIME_SETTING[source]}). ${VALID}`;
}

const LOCAL: RuntimeValue = { ok: true, runtime: "local", source: "default" };

export function resolveRuntime(input: RuntimeInputs): RuntimeResolution {
	if (isRuntime(input.command)) return { ok: true, runtime: input.command, source: "session" };
	const flag = typeof input.flag === "string" ? input.flag.trim() : input.flag;
	const candidates: [Exclude<RuntimeSource, "default">, unknown][] = [
		["flag", flag === "" || flag === false ? undefined : flag],
		["session", input.session],
		["env", input.env === "" ? undefined : input.env],
		["project", input.project],
		["user", input.user],
	];
	for (const [source, value] of candidates) {
		if (value === undefined || value === null) continue;
		if (isRuntime(value)) return { ok: true, runtime: value, source };
		return { ok: false, error: invalid(source, value), fallback: LOCAL };
	}
	return LOCAL;
}

export type RuntimeCommand =
	| { readonly kind: "report" }
	| { readonly kind: "set"; readonly runtime: CursorRuntime; readonly save: "user" | "project" | undefined }
	| { readonly kind: "invalid"; readonly message: string };

export const RUNTIME_USAGE = "Usage: /cursor-runtime [local|cloud] [--save-user|--save-project]";

/** Parses `/cursor-runtime [local|cloud] [--save-user|--save-project]` (blank: report). */
export function parseRuntimeCommand(args: string): RuntimeCommand {
	const words = args.trim().split(/\s+/).filter(Boolean);
	if (words.length === 0) return { kind: "report" };
	const isSave = (w: string) => w === "--save-user" || w === "--save-project";
	const saves = words.filter(isSave);
	const rest = words.filter((w) => !isSave(w));
	const [value, ...extra] = rest;
	if (saves.length > 1)
		return { kind: "invalid", message: `Pass only one of --save-user and --save-project. ${RUNTIME_USAGE}` };
	if (!isRuntime(value) || extra.length > 0) {
		return { kind: "invalid", message: `Unknown Cursor runtime "${rest.join(" ")}". ${VALID} ${RUNTIME_USAGE}` };
	}
	const save = saves[0] === "--save-user" ? "user" : saves[0] === "--save-project" ? "project" : undefined;
	return { kind: "set", runtime: value, save };
}

/** The `/cursor-runtime` report: the runtime, where it came from, how to change it. */
export function describeRuntime(resolution: RuntimeResolution): string {
	if (!resolution.ok) return `${resolution.error} Cursor turns fail until it is fixed. ${RUNTIME_USAGE}`;
	const from = resolution.source === "default" ? "the default" : `set by ${RUNTIME_SETTING[resolution.source]}`;
	const what =
		resolution.runtime === "cloud"
			? "turns run on Cursor's machines against a remote repository"
			: "turns run on this machine";
	return `Cursor runtime: ${resolution.runtime} (${from}; ${what}). ${RUNTIME_USAGE}`;
}
