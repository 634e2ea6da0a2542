// The cloud runtime: runs a resolved turn on a Cursor Cloud agent (src/cloud/run.ts). Before anything is sent it
// checks, in order: a saved Pi session (the journal lives beside it), the cloud settings, the user's confirmation,
// the target repository and the workspace's git state. The Pi session branch remembers its agent in a custom entry,
// so follow-ups, `-c` and `/resume` continue it; the session's cloud journal says whether it can still be resumed.
import { dirname } from "node:path";
import type { TranscriptContext } from "@earendil-works/pi-ai";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { CLOUD_ACK_DECLINED, CLOUD_ACK_NEEDED, cloudAcknowledger, setCloudAcknowledged } from "../cloud/ack.ts";
import { resolveCloudTarget } from "../cloud/git.ts";
import { CloudJournal, type CloudRecorder, cloudJournalPath } from "../cloud/journal.ts";
import { type CloudFlagsInput, type CloudSettings, cloudAgentOptions, resolveCloudSettings } from "../cloud/options.ts";
import { cloudPrompt } from "../cloud/prompt.ts";
import { resumableAgent } from "../cloud/records.ts";
import { type CloudTurn, followCloudTurn } from "../cloud/run.ts";
import type { CloudSdk } from "../sdk/cursor-sdk.ts";
import type { CursorError } from "../sdk/errors.ts";
import type { CursorSdkConfigFile } from "../settings/config-file.ts";
import type { EnvRecord } from "../settings/env.ts";
import type { LocalAgentConfig } from "../settings/local-config.ts";
import type { TurnTranslator } from "../turn/translate.ts";
import type { TurnSetup } from "../turn/types.ts";
import { ABORTED, type TurnFailure } from "../turn/watch.ts";
import type { Notify } from "../ui/types.ts";

/** The custom entry that ties a cloud agent to the Pi session branch it was created on. */
export const CLOUD_AGENT_ENTRY = "pi-cursor-sdk:cloud-agent";
const AGENT_ID = /^bc-[A-Za-z0-9-]{1,64}$/;

/** What the cloud runtime needs to know about the Pi session. */
export interface CloudSessionView {
	readonly cwd: string;
	readonly mode: ExtensionContext["mode"];
	/** Undefined before the session started. */
	readonly manager:
		| Pick<ExtensionContext["sessionManager"], "getSessionFile" | "getSessionId" | "getBranch">
		| undefined;
}

export interface CloudRuntimeDeps {
	readonly sdk: CloudSdk;
	readonly env: EnvRecord;
	readonly flags: () => CloudFlagsInput;
	/** The owner of the user config (its `cloud` section) and the file it is saved in. */
	readonly local: Pick<LocalAgentConfig, "current" | "reload">;
	readonly configFile: Pick<CursorSdkConfigFile, "update">;
	readonly session: () => CloudSessionView;
	/** A TUI yes/no question (false without a UI). */
	readonly confirm: (title: string, message: string) => Promise<boolean>;
	readonly notify: Notify;
	readonly appendEntry: (customType: string, data: unknown) => void;
}

const configuration = (message: string): CursorError => ({ kind: "configuration", message });

export const NO_SESSION_MESSAGE =
	"Cursor Cloud needs a saved Pi session (its agents are recorded beside the session file): run Pi without --no-session, or use /cursor-runtime local.";

/** The agents a session branch holds, oldest first. */
export function branchAgents(branch: readonly unknown[]): string[] {
	const ids: string[] = [];
	for (const entry of branch) {
		const e = entry as { type?: unknown; customType?: unknown; data?: { agentId?: unknown } } | null;
		const id = e?.type === "custom" && e.customType === CLOUD_AGENT_ENTRY ? e.data?.agentId : undefined;
		if (typeof id === "string" && AGENT_ID.test(id)) ids.push(id);
	}
	return ids;
}

export class CloudRuntime {
	/** Asks once in the TUI and remembers the answer. */
	private readonly acknowledge: () => Promise<boolean>;

	constructor(private readonly deps: CloudRuntimeDeps) {
		this.acknowledge = cloudAcknowledger({
			confirm: deps.confirm,
			save: async () => {
				const saved = await deps.configFile.update(setCloudAcknowledged);
				if (saved.ok) deps.local.reload();
				return saved;
			},
			warn: (message) => deps.notify(message, "warning"),
		});
	}

	/** The journal of this session; undefined for `--no-session`. */
	journal(): CloudJournal | undefined {
		const manager = this.deps.session().manager;
		const sessionFile = manager?.getSessionFile();
		return manager && sessionFile
			? new CloudJournal(cloudJournalPath(dirname(sessionFile), manager.getSessionId()))
			: undefined;
	}

	/** The session's journal and the cloud settings, or why a cloud turn cannot run here. */
	private settings(): { settings: CloudSettings; journal: CloudJournal } | CursorError {
		const journal = this.journal();
		if (!journal) return configuration(NO_SESSION_MESSAGE);
		const config = this.deps.local.current.user.cloud;
		const resolved = resolveCloudSettings({ flags: this.deps.flags(), env: this.deps.env, config });
		if (!resolved.ok) return configuration(`Cursor Cloud settings: ${resolved.errors.join(" ")}`);
		return { settings: resolved.settings, journal };
	}

	/** `/cursor-doctor`'s cloud line: what a cloud turn would run against, or what stops it (no request is made). */
	async doctorFact(): Promise<{ status: "ok" | "warn" | "fail"; detail: string; fix?: string }> {
		const checked = this.settings();
		if ("kind" in checked) return { status: "fail", detail: checked.message };
		const { settings } = checked;
		const target = await resolveCloudTarget(settings, this.deps.session().cwd);
		if (!target.ok) return { status: "fail", detail: target.message.replace(/\n\s*/g, "; ") };
		const detail = target.repoUrl
			? `${target.repoUrl}${settings.startingRef ? ` from ${settings.startingRef}` : ""}`
			: "no repository (this folder has no git origin remote)";
		if (!settings.acknowledged) {
			return { status: "warn", detail: `${detail}; Cursor Cloud not confirmed yet`, fix: CLOUD_ACK_NEEDED };
		}
		return { status: "ok", detail };
	}

	/** Runs `setup` as a cloud turn into `translator`; every refusal happens before any request. */
	async run(
		translator: TurnTranslator,
		context: TranscriptContext,
		signal: AbortSignal | undefined,
		setup: TurnSetup,
	): Promise<void> {
		const prepared = await this.prepare(context, signal, setup);
		if ("kind" in prepared) {
			translator.fail(signal?.aborted ? ABORTED : prepared);
			return;
		}
		await followCloudTurn(translator, prepared.turn, {
			sdk: this.deps.sdk,
			journal: prepared.journal,
			trace: (line) => process.stderr.write(`${line}\n`),
		});
	}

	private async prepare(
		context: TranscriptContext,
		signal: AbortSignal | undefined,
		setup: TurnSetup,
	): Promise<{ turn: CloudTurn; journal: CloudRecorder } | TurnFailure> {
		const session = this.deps.session();
		const checked = this.settings();
		if ("kind" in checked) return checked;
		const { settings, journal } = checked;
		if (!settings.acknowledged) {
			if (session.mode !== "tui") return configuration(CLOUD_ACK_NEEDED);
			if (!(await this.acknowledge())) return configuration(CLOUD_ACK_DECLINED);
		}
		if (signal?.aborted) return ABORTED;
		const target = await resolveCloudTarget(settings, session.cwd);
		if (!target.ok) return configuration(target.message);
		const options = cloudAgentOptions(settings, target.repoUrl);
		if (!options.ok) return configuration(options.message);
		const read = journal.read();
		if (read.error) return configuration(`The cloud journal of this session cannot be read (${read.error}).`);
		const agentId = resumableAgent(read.records, branchAgents(session.manager?.getBranch() ?? []));
		const prompt = cloudPrompt(context.messages, settings.context, agentId !== undefined);
		const turn: CloudTurn = {
			apiKey: setup.apiKey,
			selection: setup.selection,
			mode: setup.mode,
			prompt,
			cloud: options.cloud,
			...(setup.subagents.agents ? { agents: setup.subagents.agents } : {}),
			...(agentId ? { agentId } : {}),
			signal,
			print: session.mode === "print",
		};
		const recorder: CloudRecorder = {
			record: (entry) => {
				journal.record(entry);
				// The journal holds the agent durably; the branch entry makes later turns of this branch continue it.
				if (entry.type === "agent") this.deps.appendEntry(CLOUD_AGENT_ENTRY, { agentId: entry.agentId });
			},
		};
		return { turn, journal: recorder };
	}
}
