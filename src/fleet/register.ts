// Wires the session's cloud fleet to Pi: started with each session (its journal, branch, mode and key), stopped at
// shutdown, its footer count and streamed lines in the TUI, its outcome cards as session messages.
import { writeSync } from "node:fs";
import { dirname } from "node:path";
import type { Model } from "@earendil-works/pi-ai";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { PROVIDER_ID } from "../catalog/state.ts";
import type { CloudCommand } from "../cloud/command.ts";
import { type CloudJournal, cloudJournalPath, CloudJournal as Journal } from "../cloud/journal.ts";
import { branchAgents, type CloudRuntime, type PreparedCloud } from "../runtime/cloud.ts";
import type { CloudSdk, ModelSelection } from "../sdk/cursor-sdk.ts";
import { type CursorError, scrubText } from "../sdk/errors.ts";
import type { SessionTurnEntry } from "../session/turn-entry.ts";
import { CLOUD_BOUNDS } from "../turn/setup.ts";
import type { Notify } from "../ui/types.ts";
import {
	artifactsCommand,
	type FleetCommandDeps,
	followCommand,
	launchCommand,
	sendCommand,
	showCommand,
	waitCommand,
	waitSecondsOf,
} from "./commands.ts";
import { CloudFleet, type FleetSession } from "./fleet.ts";
import { launchCloudAgent } from "./launch.ts";
import { LIVE_WIDGET } from "./live.ts";
import { type InFlightRun, leftRunningMessage, QuitGuard } from "./quit.ts";
import { CLOUD_TASK_TOOL, FLAG_CLOUD_TOOL, registerCloudTaskTool } from "./tool.ts";

const STATUS_KEY = "cursor-cloud-fleet";
export const FLAG_DETACH = "cursor-cloud-detach";
/** The custom message of a `--cursor-cloud-detach` launch (its `details` carry the agent and run ids). */
export const CLOUD_LAUNCH_MESSAGE = "pi-cursor-sdk:cloud-launch";
export const FLAG_WAIT_TIMEOUT = "cursor-cloud-wait-timeout";

export interface FleetWiring {
	readonly sdk: CloudSdk;
	readonly notify: Notify;
	readonly report: Notify;
	/** The checks and options of a new cloud agent (CloudRuntime.prepare). */
	readonly prepare: () => Promise<PreparedCloud | CursorError>;
	/** The Cursor model selection of the session's model (undefined: not a Cursor model; Cursor picks). */
	readonly model: (ctx: ExtensionContext, apiKey: string) => ModelSelection | undefined;
	/** Quitting: cloud runs a turn is aborting are left running. */
	readonly leaveRunning: () => void;
	/** The cloud turns' runs in flight (and those a quit left running). */
	readonly turnRuns: () => InFlightRun[];
	/** Stops the cloud turns' runs on Cursor; returns those that could not be stopped. */
	readonly stopTurnRuns: () => Promise<(InFlightRun & { error: unknown })[]>;
	/** Session start: aborts cancel cloud runs again. */
	readonly resetLeave: () => void;
}

export type FleetCommand = Extract<
	CloudCommand,
	{ kind: "launch" | "wait" | "show" | "follow" | "send" | "artifacts" }
>;

const cursorKey = async (ctx: ExtensionContext) =>
	(await ctx.modelRegistry.getProviderAuth("cursor").catch(() => undefined))?.auth.apiKey ?? undefined;

/** The fleet of an extension instance: its cloud runtime's checks and abort policy, its turn entry's model choice. */
export function fleetOf(
	pi: ConstructorParameters<typeof SessionFleet>[0],
	parts: Pick<FleetWiring, "sdk" | "notify" | "report"> & {
		cloud: () => Pick<CloudRuntime, "prepare" | "leave">;
		entry: () => Pick<SessionTurnEntry, "preview">;
	},
): SessionFleet {
	const { cloud, entry, ...rest } = parts;
	return new SessionFleet(pi, {
		...rest,
		prepare: () => cloud().prepare(),
		model: (ctx, apiKey) => cursorSelection(entry(), ctx.model, apiKey),
		leaveRunning: () => void cloud().leave.leave(),
		turnRuns: () => cloud().leave.inFlight(),
		stopTurnRuns: () => cloud().leave.stop(),
		resetLeave: () => cloud().leave.reset(),
	});
}

/** The Cursor model selection a send on `model` would use (undefined: not a Cursor model, or not usable). */
export function cursorSelection(
	entry: Pick<SessionTurnEntry, "preview">,
	model: Model<string> | undefined,
	apiKey: string,
): ModelSelection | undefined {
	if (model?.provider !== PROVIDER_ID) return undefined;
	const setup = entry.preview(model, { apiKey });
	return "kind" in setup ? undefined : setup.selection;
}

/** The fleet's view of the session `ctx` opened (undefined for `--no-session`: no journal). */
export function fleetSession(ctx: ExtensionContext): FleetSession | undefined {
	const manager = ctx.sessionManager;
	const sessionFile = manager.getSessionFile();
	if (!sessionFile) return undefined;
	return {
		journal: new Journal(cloudJournalPath(dirname(sessionFile), manager.getSessionId())),
		branch: () => manager.getBranch(),
		mode: ctx.mode,
		turnAgents: () => branchAgents(manager.getBranch()),
		apiKey: () => cursorKey(ctx),
	};
}

/** The session's fleet and its Pi wiring (`register` after the extension's own session handlers: they bind the UI). */
export class SessionFleet {
	private ui: ExtensionContext["ui"] | undefined;
	private toolRegistered = false;
	readonly fleet: CloudFleet;
	/** The TUI's question when Pi quits with cloud runs in flight. */
	private readonly quit: QuitGuard;

	constructor(
		private readonly pi: Pick<ExtensionAPI, "on" | "sendMessage" | "registerFlag" | "getFlag" | "registerTool">,
		private readonly wiring: FleetWiring,
	) {
		this.fleet = new CloudFleet({
			sdk: wiring.sdk,
			sendOutcome: (message) => pi.sendMessage(message),
			notify: wiring.notify,
			report: wiring.report,
			setStatus: (text) => this.ui?.setStatus(STATUS_KEY, text),
			setLines: (lines) => this.ui?.setWidget(LIVE_WIDGET, lines),
		});
		this.quit = new QuitGuard({
			runs: () => this.inFlight(),
			leave: wiring.leaveRunning,
			stop: () => this.stopAll(),
		});
	}

	/** Every cloud run in flight: the turns' and the fleet's. */
	private inFlight(): InFlightRun[] {
		const runs = new Map<string, InFlightRun>();
		for (const { agentId, runId } of [...this.wiring.turnRuns(), ...this.fleet.runs()]) {
			runs.set(runId, { agentId, runId });
		}
		return [...runs.values()];
	}

	/** Stops every cloud run in flight; returns those that could not be stopped, and why. */
	private async stopAll(): Promise<{ run: InFlightRun; reason: string }[]> {
		const [turns, fleet] = await Promise.all([
			this.wiring.stopTurnRuns(),
			Promise.all(
				this.fleet.runs().map((run) =>
					this.fleet.cancel(run).then(
						() => undefined,
						(error: unknown) => ({ agentId: run.agentId, runId: run.runId, error }),
					),
				),
			),
		]);
		return [...turns, ...fleet.filter((f) => f !== undefined)].map(({ agentId, runId, error }) => ({
			run: { agentId, runId },
			reason: scrubText(error instanceof Error ? error.message : String(error), []),
		}));
	}

	/** The flags, at load; the session events, after the extension's own. */
	registerFlags(): void {
		this.pi.registerFlag(FLAG_DETACH, {
			type: "boolean",
			description: "Give the prompt to a new background Cursor Cloud agent, print its agent and run ids, and return",
		});
		this.pi.registerFlag(FLAG_CLOUD_TOOL, {
			type: "boolean",
			description: `Give the active Pi model the ${CLOUD_TASK_TOOL} tool: it may start background Cursor Cloud agents`,
		});
		this.pi.registerFlag(FLAG_WAIT_TIMEOUT, {
			type: "string",
			description: "How long /cursor-cloud wait waits, in seconds (default 7500)",
		});
	}

	register(): void {
		this.pi.on("session_start", async (_event, ctx) => {
			this.wiring.resetLeave();
			if (!this.toolRegistered && this.pi.getFlag(FLAG_CLOUD_TOOL) === true) {
				this.toolRegistered = true;
				const { prepare, sdk } = this.wiring;
				registerCloudTaskTool(this.pi, { prepare, sdk, fleet: this.fleet, apiKey: cursorKey });
			}
			this.ui = ctx.hasUI ? ctx.ui : undefined;
			this.quit.bind(ctx);
			await this.fleet.start(fleetSession(ctx), CLOUD_BOUNDS.timeouts.idleMs);
		});
		this.pi.on("session_shutdown", (event) => {
			this.wiring.leaveRunning();
			const left = this.quit.left();
			this.quit.unbind();
			this.fleet.stop();
			if (left.length === 0) return;
			// Quitting: the TUI is already stopped, so a plain line, like Pi's own "To resume this session". Another
			// session replacing this one (/new, /resume, /fork, /reload): a notice in the TUI that goes on.
			if (event.reason === "quit" || !this.ui) console.error(leftRunningMessage(left));
			else this.wiring.notify(leftRunningMessage(left), "warning");
		});
		this.pi.on("input", async (event, ctx) => {
			if (this.pi.getFlag(FLAG_DETACH) !== true || event.text.trim().startsWith("/")) return { action: "continue" };
			await this.detach(event.text.trim(), ctx);
			return { action: "handled" };
		});
	}

	/** `--cursor-cloud-detach`: the prompt goes to a new background agent; its ids are printed (JSON: one record). */
	private async detach(task: string, ctx: ExtensionContext): Promise<void> {
		const apiKey = await cursorKey(ctx);
		const scripted = ctx.mode === "print" || ctx.mode === "json";
		if (!apiKey) {
			this.wiring.report("No Cursor API key: set CURSOR_API_KEY or run /login, then retry.", "warning");
			if (scripted) process.exitCode = 1;
			return;
		}
		const { prepare, sdk } = this.wiring;
		const launched = await launchCloudAgent(
			{ prepare, sdk, fleet: this.fleet },
			task,
			apiKey,
			this.wiring.model(ctx, apiKey),
		);
		if (!launched.ok) {
			this.wiring.report(launched.message, "warning");
			if (scripted) process.exitCode = 1;
			return;
		}
		const { agentId, runId, repo } = launched;
		const content = `Launched Cursor Cloud agent ${agentId} (run ${runId}). Collect it with: pi -p "/cursor-cloud wait ${agentId}"`;
		// In the session (JSON mode: a message record with the ids); print mode: the ids alone on stdout, which Pi
		// otherwise keeps for the answer (there is none: the prompt was handled here).
		this.pi.sendMessage({
			customType: CLOUD_LAUNCH_MESSAGE,
			content,
			display: true,
			details: { agentId, runId, repo },
		});
		if (ctx.mode === "print") writeSync(1, `${agentId} ${runId}\n`);
		else if (ctx.mode !== "json") this.wiring.report(content, "info");
	}

	/** `/cursor-cloud launch | show | wait`; false when it failed (print/JSON then exit ≠ 0). */
	async command(
		command: FleetCommand,
		ctx: ExtensionContext,
		apiKey: string,
		journal: Pick<CloudJournal, "read" | "record">,
	): Promise<boolean> {
		const deps: FleetCommandDeps = {
			prepare: this.wiring.prepare,
			sdk: this.wiring.sdk,
			fleet: this.fleet,
			journal,
			apiKey,
			cwd: ctx.cwd,
			report: this.wiring.report,
			mode: ctx.mode,
			model: () => this.wiring.model(ctx, apiKey),
			waitSeconds: () => waitSecondsOf(this.pi.getFlag(FLAG_WAIT_TIMEOUT)),
		};
		switch (command.kind) {
			case "launch":
				return launchCommand(deps, command.task);
			case "show":
				return showCommand(deps, command.agentId);
			case "wait":
				return waitCommand(deps, command.agentId);
			case "follow":
				return followCommand(deps, command.agentId);
			case "send":
				return sendCommand(deps, command.agentId, command.message);
			case "artifacts":
				return artifactsCommand(deps, command.agentId, command.download);
		}
	}
}
