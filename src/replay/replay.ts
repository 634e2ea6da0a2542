// The replay subsystem of one extension instance: the record of Cursor results, the replay tools and the rules the
// turn stream applies. The stream calls it; nothing here touches the SDK or the stream itself.
import type { ToolCall as PiToolCall } from "@earendil-works/pi-ai";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { EnvRecord } from "../settings/env.ts";
import {
	type MapContext,
	mapCompletedToolCall,
	mapIncompleteToolCall,
	type ReplayCard,
	type ReplayToolName,
	toToolCallBlock,
} from "./mapping.ts";
import { type CardRoute, incompleteReason, type RunOutcome, routeCard, showIncompleteTool } from "./policy.ts";
import { RunningCard } from "./running.ts";
import { ReplayStore } from "./store.ts";
import { ReplayTools } from "./tools.ts";

export class CursorReplay {
	readonly store = new ReplayStore();
	readonly tools: ReplayTools;

	constructor(pi: ExtensionAPI, env: EnvRecord = process.env) {
		this.tools = new ReplayTools(pi, { store: this.store, env });
	}

	/**
	 * Call from `session_start` (every extension's tools are known by then): registers the replay tools and forgets
	 * the records of the previous session, so its replay ids fail closed after `/new` or `/resume`.
	 */
	register(cwd: string): void {
		this.store.clear();
		this.tools.register(cwd);
	}

	/** Whether cards are shown at all (`PI_CURSOR_NATIVE_TOOL_DISPLAY=0` turns replay off). */
	get enabled(): boolean {
		return this.tools.displayEnabled;
	}

	get ownedNames(): ReadonlySet<ReplayToolName> {
		return this.tools.ownedNames;
	}

	/**
	 * A completed Cursor call → its route: a card to put in the assistant message (already recorded, so Pi's call
	 * of the replay tool returns it), or the transcript fallback. `declared`: the request's tool names.
	 */
	completed(callId: string, toolCall: unknown, ctx: MapContext, declared?: ReadonlySet<string>): CardRoute {
		return this.route(mapCompletedToolCall(callId, toolCall, ctx), declared);
	}

	/** A call Cursor started and never completed, at the end of the run: a route, or undefined when not shown. */
	incomplete(
		callId: string,
		toolCall: unknown,
		ctx: MapContext,
		outcome: RunOutcome,
		declared?: ReadonlySet<string>,
	): CardRoute | undefined {
		if (!showIncompleteTool(toolCall, outcome)) return undefined;
		return this.route(mapIncompleteToolCall(callId, toolCall, ctx, incompleteReason(outcome)), declared);
	}

	/** Routes a card and records it when it becomes one. */
	route(card: ReplayCard, declared?: ReadonlySet<string>): CardRoute {
		const route: CardRoute = this.enabled
			? routeCard(card, this.tools.ownedNames, declared)
			: { kind: "transcript", card };
		if (route.kind === "card") this.store.record(route.card);
		return route;
	}

	/**
	 * A started call shown now, while it runs (a shell command still running after a moment): its card when it would be
	 * shown as Pi's `bash` card, recorded as running; undefined when it would not be a `bash` card.
	 */
	startRunning(
		callId: string,
		toolCall: unknown,
		ctx: MapContext,
		declared?: ReadonlySet<string>,
	): { block: PiToolCall; running: RunningCard } | undefined {
		const card = mapCompletedToolCall(callId, toolCall, ctx); // arguments only: no result yet
		if (!this.enabled || card.name !== "bash") return undefined;
		const route = routeCard(card, this.tools.ownedNames, declared);
		if (route.kind !== "card" || route.card.name !== "bash") return undefined;
		const running = new RunningCard(route.card.id, route.card.name);
		this.store.recordRunning(running);
		return { block: toToolCallBlock(route.card), running };
	}

	/** The assistant-message block of a routed card. */
	toolCallBlock(card: ReplayCard): PiToolCall {
		return toToolCallBlock(card);
	}
}
