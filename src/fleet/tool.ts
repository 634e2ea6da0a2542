// `cursor_cloud_task` (off unless --cursor-cloud-tool): lets the active Pi model, whichever provider it comes from,
// start background Cursor Cloud agents and read their outcomes. Same checks as /cursor-cloud launch (the user's
// cloud confirmation, target, local work): without them it refuses before any request. Its calls and results are
// ordinary Pi tool cards.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import type { CloudSdk } from "../sdk/cursor-sdk.ts";
import { scrubText } from "../sdk/errors.ts";
import { type CloudFleet, FLEET_LOOKUP_MS, runEnd } from "./fleet.ts";
import { type LaunchDeps, launchCloudAgent } from "./launch.ts";
import { outcomeText } from "./outcomes.ts";

export const CLOUD_TASK_TOOL = "cursor_cloud_task";
export const FLAG_CLOUD_TOOL = "cursor-cloud-tool";

export interface CloudToolDeps extends LaunchDeps {
	readonly sdk: LaunchDeps["sdk"] & Pick<CloudSdk, "getRun">;
	readonly fleet: LaunchDeps["fleet"] & Pick<CloudFleet, "runOf">;
	readonly apiKey: (ctx: ExtensionContext) => Promise<string | undefined>;
}

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }], details: {} });

export function registerCloudTaskTool(pi: Pick<ExtensionAPI, "registerTool">, deps: CloudToolDeps): void {
	pi.registerTool({
		name: CLOUD_TASK_TOOL,
		label: "Cursor Cloud task",
		description:
			"Delegate a self-contained coding task to a Cursor Cloud agent that works in the background on the user's repository (it may push a branch or open a pull request). action=start with a task returns the agent id; action=status or action=result with agent_id reads its state or final outcome.",
		parameters: Type.Object({
			action: Type.Union([Type.Literal("start"), Type.Literal("status"), Type.Literal("result")]),
			task: Type.Optional(Type.String({ description: "For start: what the cloud agent should do" })),
			agent_id: Type.Optional(Type.String({ description: "For status/result: the bc-… id start returned" })),
		}),
		async execute(_id, params, _signal, _update, ctx) {
			const apiKey = await deps.apiKey(ctx);
			if (!apiKey) throw new Error("No Cursor API key: the user must set CURSOR_API_KEY or run /login.");
			if (params.action === "start") {
				const task = params.task?.trim();
				if (!task) throw new Error("action=start needs a task.");
				const launched = await launchCloudAgent(deps, task, apiKey, undefined);
				if (!launched.ok) throw new Error(launched.message);
				return text(
					`Started Cursor Cloud agent ${launched.agentId} (run ${launched.runId}). Read its outcome later with action=result, agent_id=${launched.agentId}.`,
				);
			}
			const agentId = params.agent_id?.trim() ?? "";
			const run = deps.fleet.runOf(agentId);
			if (!run) throw new Error(`${agentId || "(no agent_id)"} was not started by this tool in this session.`);
			try {
				const state = await Promise.race([
					deps.sdk.getRun(agentId, run.runId, apiKey),
					new Promise<never>((_, reject) =>
						setTimeout(() => reject(new Error("no answer")), FLEET_LOOKUP_MS).unref?.(),
					),
				]);
				const end = runEnd(state);
				if (!end) return text(`${agentId} is still running (run ${run.runId}).`);
				return text(params.action === "status" ? `${agentId}: ${end.status}.` : outcomeText(agentId, end, run.task));
			} catch (error) {
				throw new Error(`Could not read ${agentId}: ${scrubText(String(error), [apiKey])}`);
			}
		},
	});
}
