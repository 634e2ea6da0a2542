// `/cursor-runtime [local|cloud] [--save-user|--save-project]` and `/cursor-cloud list | archive <bc-id> |
// delete <bc-id> --yes`.
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { parseCloudCommand } from "../cloud/command.ts";
import type { CloudJournal } from "../cloud/journal.ts";
import { cloudListText, mutateCloudAgent } from "../cloud/manage.ts";
import type { SessionFleet } from "../fleet/register.ts";
import type { CloudSdk } from "../sdk/cursor-sdk.ts";
import { CursorSdkConfigFile } from "../settings/config-file.ts";
import { resolveRuntimeSetting } from "../settings/effective.ts";
import type { LocalAgentConfig } from "../settings/local-config.ts";
import { defineOwn } from "../settings/plain-data.ts";
import { projectConfigPath } from "../settings/project-config.ts";
import { describeRuntime, parseRuntimeCommand } from "../settings/runtime.ts";
import type { SessionSettings } from "../settings/session-settings.ts";
import { runtimeEntry } from "../settings/session-state.ts";
import type { Notify } from "./types.ts";

export interface CloudCommandDeps {
	readonly settings: Pick<SessionSettings, "input" | "record">;
	/** The user's cursor-sdk.json. */
	readonly configFile: Pick<CursorSdkConfigFile, "update" | "path">;
	/** The config's owner: re-read after a write. */
	readonly local: Pick<LocalAgentConfig, "reload" | "projectTrusted">;
	readonly sdk: CloudSdk;
	/** This session's cloud journal (undefined: `--no-session`). */
	readonly journal: () => Pick<CloudJournal, "read" | "record"> | undefined;
	readonly notify: Notify;
	readonly report: Notify;
	readonly refreshStatus: () => void;
	/** `/cursor-cloud launch | show | wait` (src/fleet/). */
	readonly fleet: Pick<SessionFleet, "command">;
}

async function runtimeCommand(deps: CloudCommandDeps, args: string, cwd: string): Promise<void> {
	const plan = parseRuntimeCommand(args);
	if (plan.kind === "invalid") return deps.notify(plan.message, "warning");
	if (plan.kind === "report") return deps.report(describeRuntime(resolveRuntimeSetting(deps.settings.input())), "info");
	deps.settings.record(runtimeEntry(plan.runtime));
	const notes = [`Cursor runtime set to ${plan.runtime} for this session.`];
	let level: "info" | "warning" = "info";
	if (plan.save) {
		const file = plan.save === "user" ? deps.configFile : new CursorSdkConfigFile(projectConfigPath(cwd));
		const saved = await file.update((document) => defineOwn(document, "runtime", plan.runtime));
		if (saved.ok) {
			deps.local.reload();
			notes.push(`Saved as the default in ${file.path}.`);
			if (plan.save === "project" && !deps.local.projectTrusted) {
				notes.push("This project is not trusted, so Pi does not read that file yet.");
			}
		} else {
			level = "warning";
			notes.push(`Not saved as a default: ${saved.message}`);
		}
	}
	deps.notify(notes.join(" "), level);
	deps.refreshStatus();
}

async function cloudCommand(deps: CloudCommandDeps, args: string, ctx: ExtensionCommandContext): Promise<void> {
	const command = parseCloudCommand(args);
	if (command.kind === "usage") {
		if (ctx.mode === "print" || ctx.mode === "json") process.exitCode = 1;
		return deps.report(command.message, "warning");
	}
	const journal = deps.journal();
	if (!journal) {
		return deps.report("Cursor Cloud agents are recorded per saved Pi session; this session is not saved.", "warning");
	}
	const auth = await ctx.modelRegistry.getProviderAuth("cursor").catch(() => undefined);
	const apiKey = auth?.auth.apiKey;
	if (!apiKey) {
		return deps.report("No Cursor API key: set CURSOR_API_KEY or run /login, then retry /cursor-cloud.", "warning");
	}
	const manage = { sdk: deps.sdk, journal, apiKey };
	if (command.kind === "list") return deps.report(await cloudListText(manage), "info");
	let ok: boolean;
	if (command.kind !== "archive" && command.kind !== "delete" && command.kind !== "cancel") {
		ok = await deps.fleet.command(command, ctx, apiKey, journal);
	} else {
		const outcome = await mutateCloudAgent(manage, command);
		deps.report(outcome.message, outcome.ok ? "info" : "warning");
		ok = outcome.ok;
	}
	if (!ok && (ctx.mode === "print" || ctx.mode === "json")) process.exitCode = 1;
}

export function registerCloudCommands(pi: Pick<ExtensionAPI, "registerCommand">, deps: CloudCommandDeps): void {
	const complete = (words: string[]) => (prefix: string) =>
		words.filter((w) => w.startsWith(prefix)).map((value) => ({ value, label: value }));
	pi.registerCommand("cursor-runtime", {
		description: "Where Cursor turns run: /cursor-runtime [local|cloud] [--save-user|--save-project]",
		getArgumentCompletions: complete(["local", "cloud"]),
		handler: async (args, ctx) => runtimeCommand(deps, args, ctx.cwd),
	});
	pi.registerCommand("cursor-cloud", {
		description:
			"This session's Cursor Cloud agents: /cursor-cloud list | launch <task> | show|wait|cancel|archive <bc-id> | delete <bc-id> --yes",
		getArgumentCompletions: complete([
			"list",
			"launch",
			"show",
			"follow",
			"wait",
			"send",
			"cancel",
			"artifacts",
			"archive",
			"delete",
		]),
		handler: async (args, ctx) => cloudCommand(deps, args, ctx),
	});
}
