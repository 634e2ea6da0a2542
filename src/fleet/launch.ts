// `/cursor-cloud launch <task>` and `--cursor-cloud-detach`: a new Cursor Cloud agent on a task, in the background.
// Same checks as a cloud turn (saved session, settings, confirmation, target, git state); the agent is journaled
// before the send and its run as soon as it exists; the fleet follows the run and adds its card when it ends. The
// agent is not the session branch's turn agent: the conversation goes on with local or other cloud turns.
import type { PreparedCloud } from "../runtime/cloud.ts";
import { bounded } from "../sdk/bounded.ts";
import type { CloudSdk, ModelSelection } from "../sdk/cursor-sdk.ts";
import { type CursorError, scrubText } from "../sdk/errors.ts";
import type { CloudFleet } from "./fleet.ts";

/** How long the launch's send may take to be accepted (as a cloud turn's). */
export const LAUNCH_SEND_MS = 60_000;

export interface LaunchDeps {
	readonly prepare: () => Promise<PreparedCloud | CursorError>;
	readonly sdk: Pick<CloudSdk, "createAgent">;
	readonly fleet: Pick<CloudFleet, "track">;
}

export type LaunchOutcome =
	| { ok: true; agentId: string; runId: string; repo: string | null }
	| { ok: false; message: string };

export async function launchCloudAgent(
	deps: LaunchDeps,
	task: string,
	apiKey: string,
	model: ModelSelection | undefined,
): Promise<LaunchOutcome> {
	const prepared = await deps.prepare();
	if ("kind" in prepared) return { ok: false, message: prepared.message };
	const { journal, options } = prepared;
	const repo = options.cloud.repos?.[0];
	const why = (error: unknown) => scrubText(error instanceof Error ? error.message : String(error), [apiKey]);
	let agent: Awaited<ReturnType<LaunchDeps["sdk"]["createAgent"]>>;
	try {
		agent = await deps.sdk.createAgent({ apiKey, cloud: options.cloud });
	} catch (error) {
		return { ok: false, message: `Could not start a Cursor Cloud agent: ${why(error)}` };
	}
	try {
		journal.record({
			type: "agent",
			agentId: agent.agentId,
			model: model?.id ?? "default",
			repo: repo?.url ?? null,
			...(repo?.startingRef ? { startingRef: repo.startingRef } : {}),
		});
	} catch (error) {
		agent.close();
		return {
			ok: false,
			message: `Nothing was sent: the cloud journal could not record the new agent (${why(error)}). Check that the session directory is writable.`,
		};
	}
	let runId: string;
	try {
		runId = (
			await bounded(agent.send(task, model ? { model } : {}), LAUNCH_SEND_MS, {
				timeoutMessage: `Cursor did not accept the task within ${LAUNCH_SEND_MS / 1000} s`,
			})
		).id;
	} catch (error) {
		agent.close();
		try {
			journal.record({ type: "result", agentId: agent.agentId, runId: null, status: "error", error: why(error) });
		} catch {
			// the agent record stays without a run: it is never resumed
		}
		return { ok: false, message: `Cursor Cloud did not take the task: ${why(error)}` };
	}
	// The run is Cursor's now: the fleet follows it by id (an agent's own stream would keep Pi from exiting).
	agent.close();
	try {
		journal.record({ type: "run", agentId: agent.agentId, runId });
	} catch (error) {
		// The run exists on Cursor: it is followed anyway, and /cursor-cloud wait can still collect it by id.
		deps.fleet.track({ agentId: agent.agentId, runId, at: Date.now(), task }, apiKey);
		return {
			ok: false,
			message: `Cursor Cloud agent ${agent.agentId} started (run ${runId}), but the cloud journal could not record the run (${why(error)}): it is followed while Pi runs, not after.`,
		};
	}
	deps.fleet.track({ agentId: agent.agentId, runId, at: Date.now(), task }, apiKey);
	return { ok: true, agentId: agent.agentId, runId, repo: repo?.url ?? null };
}
