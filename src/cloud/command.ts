// `/cursor-cloud list | archive <bc-id> | delete <bc-id> --yes`, pure: parse the arguments, decide whether a
// mutation may run (only agents this session recorded; never twice while an earlier attempt is unresolved), and
// render the list from the journal and the statuses the API reported.
import type { RecordedAgent } from "./records.ts";

export type CloudCommand =
	| { kind: "list" }
	| { kind: "launch"; task: string }
	| { kind: "wait"; agentId: string }
	| { kind: "show"; agentId: string }
	| { kind: "cancel"; agentId: string }
	| { kind: "follow"; agentId: string }
	| { kind: "send"; agentId: string; message: string }
	| { kind: "artifacts"; agentId: string; download?: { path: string; to: string; force: boolean } }
	| { kind: "archive"; agentId: string }
	| { kind: "delete"; agentId: string; confirmed: boolean }
	| { kind: "usage"; message: string };

export const CLOUD_COMMAND_USAGE =
	"Usage: /cursor-cloud list | launch <task> | show|follow|wait|cancel <bc-id> | send <bc-id> <message> | artifacts <bc-id> [download <path> --to <dir> [--force]] | archive <bc-id> | delete <bc-id> --yes";

export const DASHBOARD_URL = "https://cursor.com/agents";

const AGENT_ID = /^bc-[A-Za-z0-9-]{1,64}$/;

export function parseCloudCommand(args: string): CloudCommand {
	const words = args.trim().split(/\s+/).filter(Boolean);
	const [verb, id, ...rest] = words;
	if (verb === "list" && words.length === 1) return { kind: "list" };
	if (verb === "launch") {
		const task = args.trim().slice("launch".length).trim();
		return task
			? { kind: "launch", task }
			: {
					kind: "usage",
					message: `/cursor-cloud launch needs a task, e.g. /cursor-cloud launch Fix the flaky login test`,
				};
	}
	if (verb === "send" && id && AGENT_ID.test(id)) {
		const message = args.trim().slice("send".length).trim().slice(id.length).trim();
		if (message) return { kind: "send", agentId: id, message };
	}
	if (verb === "artifacts" && id && AGENT_ID.test(id)) {
		if (rest.length === 0) return { kind: "artifacts", agentId: id };
		const [action, path, toFlag, to, ...more] = rest;
		const force = more.length === 1 && more[0] === "--force";
		if (action === "download" && path && toFlag === "--to" && to && (more.length === 0 || force)) {
			return { kind: "artifacts", agentId: id, download: { path, to, force } };
		}
	}
	if (verb === "wait" || verb === "show" || verb === "cancel" || verb === "follow") {
		if (!id || !AGENT_ID.test(id) || rest.length > 0) {
			return { kind: "usage", message: `/cursor-cloud ${verb} needs one agent id (bc-…). ${CLOUD_COMMAND_USAGE}` };
		}
		return { kind: verb, agentId: id };
	}
	if (verb === "archive" || verb === "delete") {
		if (!id || !AGENT_ID.test(id)) {
			return { kind: "usage", message: `/cursor-cloud ${verb} needs an agent id (bc-…). ${CLOUD_COMMAND_USAGE}` };
		}
		if (verb === "archive" && rest.length === 0) return { kind: "archive", agentId: id };
		if (verb === "delete" && rest.every((word) => word === "--yes")) {
			return { kind: "delete", agentId: id, confirmed: rest.length > 0 };
		}
	}
	return { kind: "usage", message: CLOUD_COMMAND_USAGE };
}

/** What the API said about a recorded agent. */
export type ApiStatus =
	| { kind: "ok"; archived: boolean; run?: "running" | "finished" | "error" | "cancelled" }
	/** 404: the agent no longer exists. */
	| { kind: "gone" }
	| { kind: "unavailable"; reason: string };

export type MutationDecision =
	| { allowed: true; agent: RecordedAgent }
	| { allowed: false; message: string /** Nothing to do: the agent is already in that state. */; done?: boolean };

/** Whether `/cursor-cloud archive|delete` may call the API for this agent. */
export function decideMutation(
	agents: readonly RecordedAgent[],
	command: Extract<CloudCommand, { kind: "archive" | "delete" | "cancel" }>,
): MutationDecision {
	const { agentId, kind } = command;
	const agent = agents.find((a) => a.agentId === agentId);
	if (!agent) {
		return {
			allowed: false,
			message: `${agentId} was not created in this Pi session: /cursor-cloud only manages the cloud agents this session recorded (see /cursor-cloud list). Manage other agents at ${DASHBOARD_URL}.`,
		};
	}
	if (kind === "cancel") {
		// Stopping a run is safe to repeat; a deleted agent has nothing to stop.
		if (agent.deleted) return { allowed: false, done: true, message: `${agentId} is deleted.` };
		if (agent.runIds.length === 0) return { allowed: false, done: true, message: `${agentId} never started a run.` };
		return { allowed: true, agent };
	}
	const pending = agent.unresolved.find((intent) => intent.op === kind);
	if (pending) {
		return {
			allowed: false,
			message: `An earlier /cursor-cloud ${kind} of ${agentId} (${new Date(pending.at).toISOString()}) never reported its outcome, so it is not repeated. Check the agent at ${DASHBOARD_URL}.`,
		};
	}
	if (agent.deleted) return { allowed: false, done: true, message: `${agentId} is already deleted.` };
	if (kind === "archive" && agent.archived)
		return { allowed: false, done: true, message: `${agentId} is already archived.` };
	if (kind === "delete" && !command.confirmed) {
		return {
			allowed: false,
			message: `Deleting ${agentId} removes the cloud agent and its runs for good. To confirm: /cursor-cloud delete ${agentId} --yes`,
		};
	}
	return { allowed: true, agent };
}

function statusText(agent: RecordedAgent, api: ApiStatus | undefined): string {
	if (agent.deleted) return "deleted";
	if (!api) return agent.lastResult ? `${agent.lastResult.status} (recorded)` : "unknown";
	switch (api.kind) {
		case "gone":
			return "not found (deleted?)";
		case "unavailable":
			return `unknown (${api.reason})`;
		case "ok":
			if (api.archived) return "archived";
			return api.run ?? (agent.runIds.length === 0 ? "never started" : "idle");
	}
}

/** Control characters out: values come from the journal and the API. */
const printable = (text: string) => text.replace(/\p{Cc}/gu, "?");

/** The `/cursor-cloud list` text: one block per recorded agent, oldest first. */
export function renderCloudList(agents: readonly RecordedAgent[], statuses: ReadonlyMap<string, ApiStatus>): string {
	if (agents.length === 0) return "No Cursor Cloud agents recorded in this Pi session.";
	const blocks = agents.map((agent) => {
		const lines = [`${agent.agentId} · ${statusText(agent, statuses.get(agent.agentId))}`];
		const repo = agent.repo
			? `${agent.repo}${agent.startingRef ? ` (from ${agent.startingRef})` : ""}`
			: "no repository";
		lines.push(`  repository: ${printable(repo)}`);
		for (const ref of agent.git ?? []) {
			if (ref.branch) lines.push(`  branch: ${printable(ref.branch)}`);
			if (ref.prUrl) lines.push(`  pull request: ${printable(ref.prUrl)}`);
		}
		lines.push(
			`  model: ${printable(agent.model)} · runs: ${agent.runIds.length} · created ${new Date(agent.createdAt).toISOString()}`,
		);
		for (const intent of agent.unresolved) {
			lines.push(`  ${intent.op} in doubt (never reported its outcome): check ${DASHBOARD_URL}`);
		}
		return lines.join("\n");
	});
	return [`Cursor Cloud agents of this Pi session (${agents.length}):`, ...blocks].join("\n");
}

/** Which run's status the list asks the API for (the latest recorded one), per agent still worth asking about. */
export function statusQueries(agents: readonly RecordedAgent[]): { agentId: string; runId: string | undefined }[] {
	return agents.filter((a) => !a.deleted).map((a) => ({ agentId: a.agentId, runId: a.runIds.at(-1) }));
}
