// `/cursor-cloud launch | show | wait`: the fleet's commands. `launch` starts a background agent; `show` reports a
// run's state and outcome; `wait` collects one (bounded by --cursor-cloud-wait-timeout; in print/JSON mode the exit
// code is 0 when it finished and 1 otherwise). `show` and `wait` also take agents this session did not record (they
// only read); their latest run is then asked of Cursor.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { CloudJournal } from "../cloud/journal.ts";
import { recordedAgents } from "../cloud/records.ts";
import { bounded } from "../sdk/bounded.ts";
import type { CloudRunState, CloudSdk, ModelSelection } from "../sdk/cursor-sdk.ts";
import { scrubText } from "../sdk/errors.ts";
import type { Notify } from "../ui/types.ts";
import { artifactTarget, sizeText } from "./artifacts.ts";
import { CONVERSATION_RUNS, conversationText, type RunConversation } from "./conversation.ts";
import { type CloudFleet, FLEET_LOOKUP_MS, runEnd } from "./fleet.ts";
import { type LaunchDeps, launchCloudAgent } from "./launch.ts";
import { durationText, outcomeText } from "./outcomes.ts";

export const DEFAULT_WAIT_SECONDS = 2 * 60 * 60 + 5 * 60;

export interface FleetCommandDeps extends LaunchDeps {
	readonly sdk: LaunchDeps["sdk"] &
		Pick<CloudSdk, "getRun" | "listRuns" | "resumeAgent" | "listArtifacts" | "downloadArtifact" | "runConversation">;
	readonly fleet: LaunchDeps["fleet"] & Pick<CloudFleet, "collect" | "inFlight" | "activeRunOf" | "runOf">;
	readonly journal: Pick<CloudJournal, "read" | "record">;
	readonly cwd: string;
	readonly apiKey: string;
	readonly report: Notify;
	readonly mode: "tui" | "rpc" | "json" | "print";
	/** The Cursor model the session uses, if it is one. */
	readonly model: () => ModelSelection | undefined;
	/** `--cursor-cloud-wait-timeout` in seconds (undefined: the default). */
	readonly waitSeconds: () => number | undefined;
}

const scripted = (mode: FleetCommandDeps["mode"]) => mode === "print" || mode === "json";

/** A call to Cursor bounded by `ms`; past it, "`what` within <duration>". */
const within = <T>(work: Promise<T>, ms: number, what: string): Promise<T> =>
	bounded(work, ms, { timeoutMessage: `${what} within ${durationText(ms)}` });

export async function launchCommand(deps: FleetCommandDeps, task: string): Promise<boolean> {
	const launched = await launchCloudAgent(deps, task, deps.apiKey, deps.model());
	if (!launched.ok) {
		deps.report(launched.message, "warning");
		return false;
	}
	const where = launched.repo ? ` on ${launched.repo}` : "";
	deps.report(
		`Launched Cursor Cloud agent ${launched.agentId}${where} (run ${launched.runId}); ${deps.fleet.inFlight} cloud run(s) in flight. Its outcome is added here when it ends; /cursor-cloud wait ${launched.agentId} waits for it.`,
		"info",
	);
	return true;
}

/** The latest run of `agentId`: the journal's, else the one Cursor reports (a running one first). */
async function latestRun(deps: FleetCommandDeps, agentId: string): Promise<string | { message: string }> {
	const read = deps.journal.read();
	const recorded = recordedAgents(read.records).find((a) => a.agentId === agentId);
	const runId = recorded?.runIds.at(-1);
	if (runId) return runId;
	try {
		const runs = await within(deps.sdk.listRuns(agentId, deps.apiKey), FLEET_LOOKUP_MS, "no answer");
		const latest = runs.find((r) => r.status === "running") ?? runs.at(-1);
		return latest ? latest.id : { message: `${agentId} has no run.` };
	} catch (error) {
		return { message: `Could not list the runs of ${agentId}: ${scrubText(String(error), [deps.apiKey])}` };
	}
}

/**
 * The conversation of the agent's latest runs that are over (a running one is named, not waited for), or why its runs
 * could not be listed.
 */
async function agentConversation(
	deps: FleetCommandDeps,
	agentId: string,
): Promise<RunConversation[] | { why: string }> {
	const why = (error: unknown) => scrubText(error instanceof Error ? error.message : String(error), [deps.apiKey]);
	let runs: CloudRunState[];
	try {
		runs = await within(deps.sdk.listRuns(agentId, deps.apiKey), FLEET_LOOKUP_MS, "no answer");
	} catch (error) {
		return { why: why(error) };
	}
	const shown: RunConversation[] = [];
	for (const run of runs.slice(-CONVERSATION_RUNS)) {
		if (run.status === "running") {
			shown.push({ runId: run.id, status: run.status, missing: `still running: /cursor-cloud follow ${agentId}` });
			continue;
		}
		try {
			const entries = await within(
				deps.sdk.runConversation(agentId, run.id, deps.apiKey),
				FLEET_LOOKUP_MS,
				"no conversation",
			);
			shown.push({ runId: run.id, status: run.status, entries });
		} catch (error) {
			shown.push({ runId: run.id, status: run.status, missing: `its conversation could not be read: ${why(error)}` });
		}
	}
	return shown;
}

/** `/cursor-cloud show <bc-id>`: the latest run's state or outcome, then the conversation of the agent's runs. */
export async function showCommand(deps: FleetCommandDeps, agentId: string): Promise<boolean> {
	const runId = await latestRun(deps, agentId);
	if (typeof runId !== "string") {
		deps.report(runId.message, "warning");
		return false;
	}
	let state: CloudRunState;
	try {
		state = await within(deps.sdk.getRun(agentId, runId, deps.apiKey), FLEET_LOOKUP_MS, "no answer");
	} catch (error) {
		deps.report(`Could not look up ${agentId}: ${scrubText(String(error), [deps.apiKey])}`, "warning");
		return false;
	}
	const end = runEnd(state);
	const conversation = await agentConversation(deps, agentId);
	const known = deps.fleet.runOf(agentId);
	const task = known?.runId === runId ? known.task : undefined;
	// The final answer is the conversation's last message: not repeated when the conversation has it.
	const latest = "why" in conversation ? undefined : conversation.find((run) => run.runId === runId);
	const answered = latest?.entries?.some((entry) => entry.kind === "assistant") === true;
	const asked = latest?.entries?.some((entry) => entry.kind === "user") === true;
	const outcome = end
		? outcomeText(agentId, answered ? { ...end, result: undefined } : end, asked ? undefined : task)
		: `Cursor Cloud agent ${agentId} is still running (run ${runId}). /cursor-cloud follow ${agentId} streams it; /cursor-cloud wait ${agentId} waits for it.`;
	const story =
		"why" in conversation
			? `Conversation: the runs of ${agentId} could not be listed (${conversation.why}).`
			: conversationText(conversation, [deps.apiKey]);
	deps.report(`${outcome}\n\n${story}`, "info");
	return true;
}

/** Collects the agent's latest run; true when it finished. */
export async function waitCommand(deps: FleetCommandDeps, agentId: string): Promise<boolean> {
	const runId = await latestRun(deps, agentId);
	if (typeof runId !== "string") {
		deps.report(runId.message, "warning");
		return false;
	}
	const ms = (deps.waitSeconds() ?? DEFAULT_WAIT_SECONDS) * 1000;
	if (!scripted(deps.mode)) deps.report(`Waiting for Cursor Cloud agent ${agentId} (run ${runId})…`, "info");
	let end: Awaited<ReturnType<CloudFleet["collect"]>>;
	try {
		end = await within(
			deps.fleet.collect({ agentId, runId, at: Date.now() }, deps.apiKey),
			ms,
			`${agentId} did not finish`,
		);
	} catch (error) {
		deps.report(
			`${error instanceof Error ? error.message : String(error)}; it goes on. Wait again with /cursor-cloud wait ${agentId}.`,
			"warning",
		);
		return false;
	}
	if (!end) return false; // the fleet said why
	deps.report(outcomeText(agentId, end), end.status === "finished" ? "info" : "warning");
	return end.status === "finished";
}

/** `/cursor-cloud follow <bc-id>`: its latest run is followed; its card lands when it ends (at once if it has). */
export async function followCommand(deps: FleetCommandDeps, agentId: string): Promise<boolean> {
	const runId = await latestRun(deps, agentId);
	if (typeof runId !== "string") {
		deps.report(runId.message, "warning");
		return false;
	}
	const ended = deps.fleet.collect({ agentId, runId, at: Date.now() }, deps.apiKey);
	if (scripted(deps.mode)) return (await ended)?.status === "finished";
	void ended.then((end) => end && deps.report(outcomeText(agentId, end), "info"));
	deps.report(
		`Following Cursor Cloud agent ${agentId} (run ${runId}); its outcome is added here when it ends.`,
		"info",
	);
	return true;
}

const isBusy = (error: unknown) => (error as { name?: unknown })?.name === "AgentBusyError";

/**
 * `/cursor-cloud send <bc-id> <message>`: a follow-up to an agent this session recorded. A run still going on it is
 * waited for first (a followed one, or the one Cursor reports busy); the new run is journaled and followed.
 */
export async function sendCommand(deps: FleetCommandDeps, agentId: string, message: string): Promise<boolean> {
	const recorded = recordedAgents(deps.journal.read().records).find((a) => a.agentId === agentId);
	if (!recorded || recorded.deleted) {
		deps.report(
			`${agentId} was not created in this Pi session (see /cursor-cloud list): /cursor-cloud send only continues agents this session recorded.`,
			"warning",
		);
		return false;
	}
	const why = (error: unknown) => scrubText(error instanceof Error ? error.message : String(error), [deps.apiKey]);
	const active = deps.fleet.activeRunOf(agentId);
	if (active) {
		deps.report(`Waiting for ${agentId} to finish its run ${active.runId} before sending…`, "info");
		await active.ended;
	}
	const agent = await deps.sdk.resumeAgent(agentId, { apiKey: deps.apiKey, cloud: {} });
	let runId: string;
	try {
		const send = () => agent.send(message, deps.model() ? { model: deps.model() } : {});
		try {
			runId = (await send()).id;
		} catch (error) {
			if (!isBusy(error)) throw error;
			const busy = await latestRun(deps, agentId);
			if (typeof busy === "string") {
				deps.report(`${agentId} is still busy; waiting for its run ${busy} before sending…`, "info");
				await deps.fleet.collect({ agentId, runId: busy, at: Date.now() }, deps.apiKey);
			}
			runId = (await send()).id;
		}
	} catch (error) {
		deps.report(`Cursor Cloud did not take the message for ${agentId}: ${why(error)}`, "warning");
		return false;
	} finally {
		agent.close();
	}
	try {
		deps.journal.record({ type: "run", agentId, runId });
	} catch (error) {
		deps.report(
			`The cloud journal could not record the run ${runId} (${why(error)}); it is followed while Pi runs.`,
			"warning",
		);
	}
	deps.fleet.track({ agentId, runId, at: Date.now(), task: message }, deps.apiKey);
	deps.report(`Sent to ${agentId} (run ${runId}); its outcome is added here when it ends.`, "info");
	return true;
}

/** `/cursor-cloud artifacts <bc-id> [download <path> --to <dir> [--force]]`. */
export async function artifactsCommand(
	deps: FleetCommandDeps,
	agentId: string,
	download: { path: string; to: string; force: boolean } | undefined,
): Promise<boolean> {
	const why = (error: unknown) => scrubText(error instanceof Error ? error.message : String(error), [deps.apiKey]);
	if (!download) {
		try {
			const files = await within(deps.sdk.listArtifacts(agentId, deps.apiKey), FLEET_LOOKUP_MS, "no answer");
			const lines = files.map((f) => `  ${f.path.replace(/\p{Cc}/gu, "?")} · ${sizeText(f.sizeBytes)}`);
			deps.report(
				files.length === 0
					? `${agentId} has no artifacts.`
					: [`Artifacts of ${agentId} (${files.length}):`, ...lines].join("\n"),
				"info",
			);
			return true;
		} catch (error) {
			deps.report(`Could not list the artifacts of ${agentId}: ${why(error)}`, "warning");
			return false;
		}
	}
	const target = artifactTarget(download.to, download.path, deps.cwd);
	if (!target.ok) {
		deps.report(target.message, "warning");
		return false;
	}
	if (!download.force && existsSync(target.path)) {
		deps.report(`Not downloaded: ${target.path} exists (add --force to replace it).`, "warning");
		return false;
	}
	try {
		const bytes = await within(
			deps.sdk.downloadArtifact(agentId, download.path, deps.apiKey),
			FLEET_LOOKUP_MS * 4,
			"no download",
		);
		mkdirSync(dirname(target.path), { recursive: true });
		writeFileSync(target.path, bytes, { flag: download.force ? "w" : "wx" });
		deps.report(`Downloaded ${download.path} (${sizeText(bytes.length)}) to ${target.path}.`, "info");
		return true;
	} catch (error) {
		deps.report(`Could not download ${download.path} of ${agentId}: ${why(error)}`, "warning");
		return false;
	}
}

/** Whether `value` (the flag's text) is a positive number of seconds. */
export function waitSecondsOf(value: unknown): number | undefined {
	if (typeof value !== "string" || !value.trim()) return undefined;
	const seconds = Number(value);
	return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}
