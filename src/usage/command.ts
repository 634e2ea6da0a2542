// `/cursor-usage [refresh|export <path>|help]`.
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import type { CursorSdk } from "../sdk/cursor-sdk.ts";
import type { Notify } from "../ui/types.ts";
import { writeExport } from "./export.ts";
import type { UsageLedger } from "./ledger.ts";
import { REFRESH_AGENT_LIMIT, takeSnapshots } from "./refresh.ts";
import { agentsToRefresh, buildUsageView, counted, exportDocument, renderUsageView, USAGE_HELP } from "./view.ts";

/** What /cursor-usage uses. */
export interface UsageCommandDeps {
	readonly ledger: Pick<UsageLedger, "source" | "append">;
	readonly sdk: Pick<CursorSdk, "getUsage">;
	readonly report: Notify;
}

export type UsagePlan =
	| { kind: "view" }
	| { kind: "refresh" }
	| { kind: "export"; path: string }
	| { kind: "help" }
	| { kind: "invalid"; message: string };

export function parseUsageCommand(args: string): UsagePlan {
	const trimmed = args.trim();
	const [word = "", ...rest] = trimmed.split(/\s+/);
	const sub = word.toLowerCase();
	if (trimmed === "") return { kind: "view" };
	if (sub === "help" || sub === "-h" || sub === "--help") return { kind: "help" };
	if (sub === "refresh" && rest.length === 0) return { kind: "refresh" };
	if (sub === "export") {
		const path = trimmed.slice(word.length).trim();
		if (path === "")
			return { kind: "invalid", message: "Usage: /cursor-usage export <path> (a new file; never overwritten)." };
		return { kind: "export", path };
	}
	return { kind: "invalid", message: `Unknown /cursor-usage argument "${trimmed}".\n${USAGE_HELP}` };
}

export async function usageCommand(deps: UsageCommandDeps, args: string, ctx: ExtensionCommandContext): Promise<void> {
	const plan = parseUsageCommand(args);
	if (plan.kind === "help") {
		deps.report(USAGE_HELP, "info");
		return;
	}
	if (plan.kind === "invalid") {
		deps.report(plan.message, "warning");
		return;
	}
	const source = deps.ledger.source();
	if (!source) {
		deps.report("Cursor usage is not available before the session has started.", "warning");
		return;
	}
	if (plan.kind === "export") {
		const result = writeExport(plan.path, ctx.cwd, exportDocument(source, Date.now()));
		deps.report(
			result.ok ? `Cursor usage exported to ${result.path} (mode 0600).` : result.message,
			result.ok ? "info" : "error",
		);
		return;
	}
	if (plan.kind === "refresh") {
		const agents = agentsToRefresh(source.records, source.sessionId, REFRESH_AGENT_LIMIT);
		if (agents.length === 0) {
			deps.report("No Cursor agents in this session yet: nothing to refresh.", "info");
			return;
		}
		const auth = await ctx.modelRegistry.getProviderAuth("cursor").catch(() => undefined);
		const apiKey = auth?.auth.apiKey;
		if (!apiKey) {
			deps.report("No Cursor API key: set CURSOR_API_KEY or run /login, then /cursor-usage refresh.", "warning");
			return;
		}
		const snapshots = await takeSnapshots(agents, {
			sessionId: source.sessionId,
			apiKey,
			getUsage: (agentId, key) => deps.sdk.getUsage(agentId, key),
			signal: ctx.signal,
		});
		for (const snapshot of snapshots) deps.ledger.append(snapshot);
		const refreshed = deps.ledger.source() ?? source;
		const failed = snapshots.filter((s) => s.status !== "ok").length;
		const note = `Asked Cursor about ${counted(snapshots.length, "agent")}${failed > 0 ? ` (${failed} unavailable)` : ""}.`;
		deps.report(`${note}\n${renderUsageView(buildUsageView(refreshed))}`, failed > 0 ? "warning" : "info");
		return;
	}
	deps.report(renderUsageView(buildUsageView(source)), "info");
}
