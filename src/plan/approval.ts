// Plan, then build: a plan-mode Cursor run that ends with a plan offers, in the TUI, Build it / Keep planning /
// Dismiss. Build it switches this session to agent mode (a session entry, as /cursor-mode does; it also ends a
// `--cursor-mode plan` start for the rest of the run) and sends "Implement the plan above" as an ordinary follow-up,
// so the same pooled Cursor agent builds the plan it wrote.
// `/cursor-plan` shows the last plan and `/cursor-plan build` builds it in every mode; nothing is sent unasked.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { resolveMode } from "../settings/effective.ts";
import type { SessionSettings } from "../settings/session-settings.ts";
import { modeEntry } from "../settings/session-state.ts";
import type { Notify } from "../ui/types.ts";
import { lastPlanEntry, PLAN_ENTRY_TYPE, type PlanEntryData, planOfRun } from "./capture.ts";
import { type PlanCard, parsePlan, planCardText } from "./card.ts";

export const BUILD_PROMPT = "Implement the plan above";
const PLAN_CHOICES = { build: "Build it", keep: "Keep planning", dismiss: "Dismiss" } as const;
export const PLAN_USAGE = "Usage: /cursor-plan [build]";
export const NO_PLAN =
	"No Cursor plan in this session yet: switch to plan mode (/cursor-mode plan), ask Cursor for a plan, then /cursor-plan build implements it.";
/** How long a print-mode `/cursor-plan build` waits for Pi to start the build turn. */
const RUN_START_WAIT_MS = 5_000;

export interface PlanApprovalDeps {
	/** The session's settings: the effective mode, and the mode entry Build it records. */
	readonly settings: Pick<SessionSettings, "input" | "record">;
	readonly refreshStatus: () => void;
	readonly notify: Notify;
	/** Output the user asked for (`/cursor-plan`). */
	readonly report: Notify;
}

type PlanPi = Pick<ExtensionAPI, "on" | "registerCommand" | "sendUserMessage" | "appendEntry">;
/** What building needs of Pi's context; a command's context can also wait for the turn. */
type BuildContext = Pick<ExtensionContext, "isIdle" | "mode"> & { waitForIdle?: () => Promise<void> };

/** The session's last plan, its approval dialog and `/cursor-plan`. One per extension instance. */
class PlanApproval {
	private last: PlanCard | undefined;
	/** Captured by the run that just ended; offered once Pi settles. */
	private pending: PlanCard | undefined;
	private dialog: AbortController | undefined;
	private onRunStart: (() => void) | undefined;

	constructor(
		private readonly pi: PlanPi,
		private readonly deps: PlanApprovalDeps,
	) {}

	register(): void {
		const { pi } = this;
		// The last plan is the branch's: restored at start, resume and fork, and after /tree moves to another branch.
		const restore = (ctx: ExtensionContext) => {
			this.closeDialog();
			const text = lastPlanEntry(ctx.sessionManager.getBranch());
			this.last = text === undefined ? undefined : parsePlan(text);
		};
		pi.on("session_start", (_event, ctx) => restore(ctx));
		pi.on("session_tree", (_event, ctx) => restore(ctx));
		pi.on("agent_start", () => {
			this.closeDialog(); // something else started a turn: the offer is gone, the commands still work
			this.pending = undefined;
			this.onRunStart?.();
		});
		pi.on("agent_end", (event, ctx) => this.capture(event.messages, ctx.cwd));
		pi.on("agent_settled", (event, ctx) => {
			const plan = this.pending;
			this.pending = undefined;
			// The dialog only in the TUI; print, JSON and RPC keep `/cursor-plan`. Not awaited: Pi goes idle meanwhile.
			if (plan && !event.aborted && ctx.mode === "tui") void this.offer(plan, ctx);
		});
		pi.on("session_shutdown", () => this.closeDialog());
		pi.registerCommand("cursor-plan", {
			description: "Cursor's last plan: /cursor-plan shows it, /cursor-plan build switches to agent mode and builds it",
			getArgumentCompletions: (prefix) =>
				["build"].filter((m) => m.startsWith(prefix)).map((value) => ({ value, label: value })),
			handler: async (args, ctx) => {
				const arg = args.trim();
				if (arg === "") this.show();
				else if (arg === "build") await this.build(ctx);
				else this.deps.report(`Unknown /cursor-plan argument "${arg}". ${PLAN_USAGE}`, "warning");
			},
		});
	}

	/** At the end of a plan-mode Cursor run: its plan becomes the session's last plan (and an entry). */
	private capture(messages: readonly unknown[], cwd: string): void {
		if (modeOf(this.deps.settings) !== "plan") return;
		const text = planOfRun(messages, cwd);
		if (text === undefined) return;
		this.last = parsePlan(text);
		this.pending = this.last;
		this.pi.appendEntry<PlanEntryData>(PLAN_ENTRY_TYPE, { text });
	}

	private async offer(plan: PlanCard, ctx: ExtensionContext): Promise<void> {
		this.closeDialog();
		const dialog = new AbortController();
		this.dialog = dialog;
		const title = `Cursor's plan: ${plan.title}\n${PLAN_CHOICES.build} switches this session to agent mode and asks Cursor to implement it.`;
		const choices = [PLAN_CHOICES.build, PLAN_CHOICES.keep, PLAN_CHOICES.dismiss];
		const choice = await ctx.ui.select(title, choices, { signal: dialog.signal }).catch(() => undefined);
		if (this.dialog === dialog) this.dialog = undefined;
		if (dialog.signal.aborted) return;
		if (choice === PLAN_CHOICES.build) await this.build(ctx);
		else if (choice === PLAN_CHOICES.keep) this.deps.notify("Still in plan mode: type what the plan should change.");
		else this.deps.notify("Plan kept: /cursor-plan shows it, /cursor-plan build implements it.");
	}

	private closeDialog(): void {
		this.dialog?.abort();
		this.dialog = undefined;
	}

	private show(): void {
		const plan = this.last;
		if (!plan) {
			this.deps.report(NO_PLAN, "info");
			return;
		}
		const hint = `/cursor-plan build switches to agent mode and asks Cursor to implement it.`;
		this.deps.report(`Cursor's plan: ${plan.title}\n${planCardText(plan)}\n\n${hint}`, "info");
	}

	/** Agent mode for this session, then the build prompt as a follow-up on the same Cursor conversation. */
	private async build(ctx: BuildContext): Promise<void> {
		const { settings, report } = this.deps;
		if (!this.last) {
			report(NO_PLAN, "warning");
			return;
		}
		const input = settings.input();
		if (!input.model?.isCursor) {
			report("Select a Cursor model to build the plan: Cursor continues its own conversation.", "warning");
			return;
		}
		if (modeOf(settings) !== "agent") settings.record(modeEntry("agent"));
		this.deps.refreshStatus();
		this.deps.notify("Cursor mode set to agent for this session: Cursor implements the plan.", "info");
		// Print and JSON modes end when the command returns: they wait for the build turn, whose answer is the output.
		const waits = (ctx.mode === "print" || ctx.mode === "json") && ctx.waitForIdle !== undefined;
		const started = waits ? this.nextRunStart() : undefined;
		this.pi.sendUserMessage(BUILD_PROMPT, ctx.isIdle() ? undefined : { deliverAs: "followUp" });
		if (started && (await started)) await ctx.waitForIdle?.();
	}

	/** Resolves true when the next turn starts, false when none starts within {@link RUN_START_WAIT_MS}. */
	private nextRunStart(): Promise<boolean> {
		return new Promise((resolve) => {
			const timer = setTimeout(() => done(false), RUN_START_WAIT_MS);
			timer.unref?.();
			const done = (started: boolean) => {
				clearTimeout(timer);
				this.onRunStart = undefined;
				resolve(started);
			};
			this.onRunStart = () => done(true);
		});
	}
}

function modeOf(settings: Pick<SessionSettings, "input">) {
	const mode = resolveMode(settings.input());
	return mode.ok ? mode.mode : mode.fallback.mode;
}

/** Creates the plan approval of one extension instance and registers its events and `/cursor-plan`. */
export function registerPlanApproval(pi: PlanPi, deps: PlanApprovalDeps): void {
	new PlanApproval(pi, deps).register();
}
