// The cloud runtime: runs a resolved turn on a Cursor Cloud agent, through the same live run and provider turn as
// local turns (so Cursor's cloud tool calls show as display-only Pi tool cards). Before anything is sent it checks, in
// order: a saved Pi session (the journal lives beside it), the cloud settings, the user's confirmation, the target
// repository and the workspace's git state. The Pi session branch remembers its agent in a custom entry, so
// follow-ups, `-c` and `/resume` continue it; the session's cloud journal says whether it can still be resumed, and
// records the agent before the first send, each run as soon as it exists, and each result.
import { dirname } from "node:path";
import type { Message, TranscriptContext } from "@earendil-works/pi-ai";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { CLOUD_ACK_DECLINED, CLOUD_ACK_NEEDED, cloudAcknowledger, setCloudAcknowledged } from "../cloud/ack.ts";
import { resolveCloudTarget } from "../cloud/git.ts";
import { CloudJournal, cloudJournalPath } from "../cloud/journal.ts";
import { type CloudFlagsInput, type CloudSettings, cloudAgentOptions, resolveCloudSettings } from "../cloud/options.ts";
import { cloudPrompt } from "../cloud/prompt.ts";
import { type CloudRunOutcome, resumableAgent } from "../cloud/records.ts";
import { gitRefs, gitSummary } from "../cloud/run-outcome.ts";
import { BUSY_DISMISSED, BUSY_OPTIONS, busyChoiceOf, busyTitle } from "../fleet/busy.ts";
import type { CloudFleet } from "../fleet/fleet.ts";
import type { CursorReplay } from "../replay/replay.ts";
import { bounded } from "../sdk/bounded.ts";
import type { CloudSdk, RunResult, SDKAgent } from "../sdk/cursor-sdk.ts";
import { type CursorError, scrubText } from "../sdk/errors.ts";
import type { SessionAgentPool } from "../session/pool.ts";
import type { CursorSdkConfigFile } from "../settings/config-file.ts";
import type { EnvRecord } from "../settings/env.ts";
import type { LocalAgentConfig } from "../settings/local-config.ts";
import type { SendOutcome } from "../turn/observer.ts";
import { declaredTools, type ToolDisplay } from "../turn/tools.ts";
import type { AgentLease, TurnSetup } from "../turn/types.ts";
import { TurnEnded, type TurnWatch } from "../turn/watch.ts";
import type { Notify } from "../ui/types.ts";
import { LeaveOnShutdown } from "./cloud-leave.ts";
import { SessionLiveSlot } from "./live-slot.ts";
import type { TurnRuntime } from "./types.ts";

/** The custom entry that ties a cloud agent to the Pi session branch it was created on. */
export const CLOUD_AGENT_ENTRY = "pi-cursor-sdk:cloud-agent";
const AGENT_ID = /^bc-[A-Za-z0-9-]{1,64}$/;
/** How long stopping a turn's run at quit waits for Cursor. */
const CANCEL_MS = 15_000;

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
	/** A TUI choice (undefined without a UI or when dismissed). */
	readonly select: (title: string, options: string[]) => Promise<string | undefined>;
	/** Runs this session follows outside a turn: a send to their agent waits for them, stops them or goes elsewhere. */
	readonly fleet: Pick<CloudFleet, "activeRunOf" | "cancel">;
	readonly notify: Notify;
	readonly appendEntry: (customType: string, data: unknown) => void;
	/** The session's one live run (a cloud run is kept between provider turns like a local one). */
	readonly pool: Pick<SessionAgentPool, "liveRun" | "keepLive" | "dropLive">;
	readonly replay: CursorReplay;
}

const configuration = (message: string): CursorError => ({ kind: "configuration", message });

const NO_SESSION_MESSAGE =
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

/** A cloud agent's checked settings, the session's journal and the agent options. */
export interface PreparedCloud {
	settings: CloudSettings;
	journal: CloudJournal;
	options: Extract<ReturnType<typeof cloudAgentOptions>, { ok: true }>;
}

export class CloudRuntime extends SessionLiveSlot implements TurnRuntime {
	/** Quitting leaves an aborted cloud run going (src/runtime/cloud-leave.ts). */
	readonly leave = new LeaveOnShutdown();
	/** Asks once in the TUI and remembers the answer. */
	private readonly acknowledge: () => Promise<boolean>;
	/** Cloud sends stay out of the local usage accounting (Cloud usage is not context occupancy). */
	readonly observer = undefined;

	constructor(private readonly deps: CloudRuntimeDeps) {
		super(deps.pool);
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

	toolDisplay(context: TranscriptContext, setup: TurnSetup): ToolDisplay {
		return {
			replay: this.deps.replay,
			print: this.deps.session().mode === "print",
			declared: declaredTools(context.messages),
			// Paths are on Cursor's machine: shown as Cursor reports them.
			context: { cwd: "", secrets: [setup.apiKey], taskWording: setup.taskWording },
			trace: (line) => process.stderr.write(`${line}\n`),
		};
	}

	/**
	 * Checks everything a cloud turn needs, then creates the agent (no request) or resumes the branch's agent, and
	 * records a new one in the journal and on the branch before anything is sent.
	 */
	async acquire(setup: TurnSetup, messages: readonly Message[], watch: TurnWatch): Promise<AgentLease> {
		const session = this.deps.session();
		const prepared = await this.prepare((work) => watch.race(work));
		if ("kind" in prepared) throw new TurnEnded(prepared);
		const { settings, journal, options } = prepared;
		const read = journal.read();
		if (read.error)
			throw new TurnEnded(configuration(`The cloud journal of this session cannot be read (${read.error}).`));
		const resumable = resumableAgent(read.records, branchAgents(session.manager?.getBranch() ?? []));
		const resumed = resumable && (await this.settleBusy(resumable, session.mode, watch)) ? resumable : undefined;
		const agentSetup = {
			apiKey: setup.apiKey,
			cloud: options.cloud,
			...(setup.subagents.agents ? { agents: setup.subagents.agents } : {}),
			mode: setup.mode,
		};
		const agent = await watch.race(
			resumed ? this.deps.sdk.resumeAgent(resumed, agentSetup) : this.deps.sdk.createAgent(agentSetup),
			(late) => late.close(),
		);
		const cancelRun = (runId: string) =>
			bounded(this.deps.sdk.cancelRun(agent.agentId, runId, setup.apiKey), CANCEL_MS);
		const recorded = new CloudRecords(journal, agent, [setup.apiKey], this.leave, cancelRun);
		if (!resumed) {
			try {
				recorded.newAgent(setup.selection.id, options.cloud.repos?.[0]);
			} catch (error) {
				agent.close();
				throw new TurnEnded(recorded.failure(error, "nothing was sent"));
			}
			this.deps.appendEntry(CLOUD_AGENT_ENTRY, { agentId: agent.agentId });
		}
		return {
			agent: this.leave.wrap(agent),
			prompt: cloudPrompt(messages, settings.context, resumed !== undefined),
			kind: resumed ? "incremental" : "bootstrap",
			runStarted: (runId) => recorded.run(runId),
			finished: (result) => recorded.finished(result),
			release: (outcome) => recorded.release(outcome),
		};
	}

	/**
	 * What a new cloud agent of this session needs, checked in order: a saved session (its journal), the settings, the
	 * user's confirmation (asked in the TUI), the target repository and the workspace's git state.
	 */
	async prepare(race: <T>(work: Promise<T>) => Promise<T> = (work) => work): Promise<PreparedCloud | CursorError> {
		const session = this.deps.session();
		const checked = this.settings();
		if ("kind" in checked) return checked;
		const { settings, journal } = checked;
		if (!settings.acknowledged) {
			if (session.mode !== "tui") return configuration(CLOUD_ACK_NEEDED);
			if (!(await race(this.acknowledge()))) return configuration(CLOUD_ACK_DECLINED);
		}
		const target = await race(resolveCloudTarget(settings, session.cwd));
		if (!target.ok) return configuration(target.message);
		const options = cloudAgentOptions(settings, target.repoUrl);
		if (!options.ok) return configuration(options.message);
		return { settings, journal, options };
	}

	/**
	 * Whether the turn may go to `agentId` once the run the fleet follows on it (if any) is over: waits for it (the
	 * only choice without a TUI; the turn's own bounds and abort apply), stops it first, or, false, asks for a new agent.
	 */
	private async settleBusy(agentId: string, mode: CloudSessionView["mode"], watch: TurnWatch): Promise<boolean> {
		const active = this.deps.fleet.activeRunOf(agentId);
		if (!active) return true;
		let choice: ReturnType<typeof busyChoiceOf> = "wait";
		if (mode === "tui") {
			const labels = BUSY_OPTIONS.map((option) => option.label);
			choice = busyChoiceOf(await watch.race(this.deps.select(busyTitle(active), labels)));
			if (!choice) throw new TurnEnded(configuration(BUSY_DISMISSED));
		}
		if (choice === "wait") {
			this.deps.notify(
				`Waiting for Cursor Cloud agent ${agentId} to finish its earlier run before sending.`,
				mode === "tui" ? "info" : "warning",
			);
		}
		if (choice === "new") return false;
		if (choice === "stop") await watch.race(this.deps.fleet.cancel(active));
		await watch.race(active.ended);
		return true;
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
}

/** What one send on a cloud agent writes to the session's journal (durably: a failed write throws). */
class CloudRecords {
	private runId: string | null = null;
	private resulted = false;

	constructor(
		private readonly journal: CloudJournal,
		private readonly agent: SDKAgent,
		private readonly secrets: string[],
		private readonly leave: LeaveOnShutdown,
		private readonly cancelRun: (runId: string) => Promise<void>,
	) {}

	/** A new agent, before its first send. */
	newAgent(model: string, repo: { url: string; startingRef?: string } | undefined): void {
		this.journal.record({
			type: "agent",
			agentId: this.agent.agentId,
			model,
			repo: repo?.url ?? null,
			...(repo?.startingRef ? { startingRef: repo.startingRef } : {}),
		});
	}

	/** The send returned its run: recorded before anything else happens to it. */
	run(runId: string): void {
		this.runId = runId;
		this.leave.started({ agentId: this.agent.agentId, runId }, () => this.cancelRun(runId));
		try {
			this.journal.record({ type: "run", agentId: this.agent.agentId, runId });
		} catch (error) {
			throw new TurnEnded(this.failure(error, "the run was cancelled"));
		}
	}

	/** The run finished: its result and git references; the branch / pull request lines follow the answer. */
	finished(result: RunResult): string | undefined {
		this.result("finished", result.git);
		return gitSummary(result.git);
	}

	/** The send is over (after `finished` for a finished run): its outcome, and the agent's streams closed. */
	release(outcome: SendOutcome): void {
		const runId = this.runId;
		if (this.resulted || outcome !== "aborted" || runId === null) {
			if (!this.resulted) this.result(outcome);
			if (runId !== null) this.leave.ended(runId);
			this.agent.close();
			return;
		}
		// An abort: journaled unless the session shuts down right after it (the run then goes on, collected later).
		this.resulted = true;
		this.leave.defer(
			() => {
				this.result(outcome);
				this.leave.ended(runId);
				this.agent.close();
			},
			() => this.agent.close(),
		);
	}

	private result(status: CloudRunOutcome, git?: RunResult["git"]): void {
		this.resulted = true;
		const refs = gitRefs(git);
		try {
			this.journal.record({
				type: "result",
				agentId: this.agent.agentId,
				runId: this.runId,
				status,
				...(refs ? { git: refs } : {}),
			});
		} catch {
			// The run id is already recorded; a missing result only leaves /cursor-cloud list less precise.
		}
	}

	failure(error: unknown, consequence: string): CursorError {
		const reason = scrubText(error instanceof Error ? error.message : String(error), this.secrets);
		return configuration(
			`Could not record the Cursor Cloud agent in this session's cloud journal (${reason}); ${consequence}. Check that the session directory is writable.`,
		);
	}
}
