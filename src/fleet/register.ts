// Wires the session's cloud fleet to Pi: started with each session (its journal, branch, mode and key), stopped at
// shutdown, its footer count and streamed lines in the TUI, its outcome cards as session messages.
import { dirname } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { CloudJournal, cloudJournalPath } from "../cloud/journal.ts";
import { branchAgents } from "../runtime/cloud.ts";
import type { CloudSdk } from "../sdk/cursor-sdk.ts";
import { CLOUD_BOUNDS } from "../turn/setup.ts";
import type { Notify } from "../ui/types.ts";
import { CloudFleet, type FleetSession } from "./fleet.ts";

const STATUS_KEY = "cursor-cloud-fleet";

export interface FleetWiring {
	readonly sdk: CloudSdk;
	readonly notify: Notify;
	readonly report: Notify;
}

/** The fleet's view of the session `ctx` opened (undefined for `--no-session`: no journal). */
export function fleetSession(ctx: ExtensionContext): FleetSession | undefined {
	const manager = ctx.sessionManager;
	const sessionFile = manager.getSessionFile();
	if (!sessionFile) return undefined;
	return {
		journal: new CloudJournal(cloudJournalPath(dirname(sessionFile), manager.getSessionId())),
		branch: () => manager.getBranch(),
		mode: ctx.mode,
		turnAgents: () => branchAgents(manager.getBranch()),
		apiKey: async () =>
			(await ctx.modelRegistry.getProviderAuth("cursor").catch(() => undefined))?.auth.apiKey ?? undefined,
	};
}

/** The session's fleet and its Pi wiring (`register` after the extension's own session handlers: they bind the UI). */
export class SessionFleet {
	private ui: ExtensionContext["ui"] | undefined;
	readonly fleet: CloudFleet;

	constructor(
		private readonly pi: Pick<ExtensionAPI, "on" | "sendMessage">,
		wiring: FleetWiring,
	) {
		this.fleet = new CloudFleet({
			sdk: wiring.sdk,
			sendOutcome: (message) => pi.sendMessage(message),
			notify: wiring.notify,
			report: wiring.report,
			setStatus: (text) => this.ui?.setStatus(STATUS_KEY, text),
			setWidget: (key, lines) => this.ui?.setWidget(key, lines),
		});
	}

	register(): void {
		this.pi.on("session_start", async (_event, ctx) => {
			this.ui = ctx.hasUI ? ctx.ui : undefined;
			await this.fleet.start(fleetSession(ctx), CLOUD_BOUNDS.timeouts.idleMs);
		});
		this.pi.on("session_shutdown", () => this.fleet.stop());
	}
}
