// `/cursor-usage [refresh|export <path>|help]`.
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import type { CursorExtension } from "../extension.ts";
import { writeExport } from "./export.ts";
import { REFRESH_AGENT_LIMIT, takeSnapshots } from "./refresh.ts";
import { agentsToRefresh, buildUsageView, counted, exportDocument, renderUsageView, USAGE_HELP } from "./view.ts";

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

export async function usageCommand(ext: CursorExtension, args: string, ctx: ExtensionCommandContext): Promise<void> {
	const plan = parseUsageCommand(args);
	if (plan.kind === "help") {
		ext.report(USAGE_HELP, "info");
		return;
	}
	if (plan.kind === "invalid") {
		ext.report(plan.message, "warning");
		return;
	}
	const source = ext.accounting.ledger.source();
	if (!source) {
		ext.report("Cursor usage is not available before the session has started.", "warning");
		return;
	}
	if (plan.kind === "export") {
		const result = writeExport(plan.path, ctx.cwd, exportDocument(source, Date.now()));
		ext.report(
			result.ok ? `Cursor usage exported to ${result.path} (mode 0600).` : result.message,
			result.ok ? "info" : "error",
		);
		return;
	}
	if (plan.kind === "refresh") {
		const agents = agentsToRefresh(source.records, source.sessionId, REFRESH_AGENT_LIMIT);
		if (agents.length === 0) {
			ext.report("No Cursor agents in this session yet: nothing to refresh.", "info");
			return;
		}
		const auth = await ctx.modelRegistry.getProviderAuth("cursor").catch(() => undefined);
		const apiKey = auth?.auth.apiKey;
		if (!apiKey) {
			ext.report("No Cursor API key: set CURSOR_API_KEY or run /login, then /cursor-usage refresh.", "warning");
			return;
		}
		const snapshots = await takeSnapshots(agents, {
			sessionId: source.sessionId,
			apiKey,
			getUsage: (agentId, key) => ext.sdk.getUsage(agentId, key),
			signal: ctx.signal,
		});
		for (const snapshot of snapshots) ext.accounting.ledger.append(snapshot);
		const refreshed = ext.accounting.ledger.source() ?? source;
		const failed = snapshots.filter((s) => s.status !== "ok").length;
		const note = `Asked Cursor about ${counted(snapshots.length, "agent")}${failed > 0 ? ` (${failed} unavailable)` : ""}.`;
		ext.report(`${note}\n${renderUsageView(buildUsageView(refreshed))}`, failed > 0 ? "warning" : "info");
		return;
	}
	ext.report(renderUsageView(buildUsageView(source)), "info");
}
