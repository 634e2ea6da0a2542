// Quitting Pi leaves a cloud run going on Cursor's machines: the next session start collects it (src/fleet/). Pi
// aborts the running turn first and only then announces the shutdown, so what an abort does to a cloud run (cancel
// it, journal it "aborted") waits a moment: Esc still stops the run within a second; a shutdown that follows the
// abort drops those steps instead. It also knows the cloud turns' runs in flight, so the TUI's quit question
// (src/fleet/quit.ts) can name them and stop them when the user asks to.
import type { Run, SDKAgent } from "../sdk/cursor-sdk.ts";

/** A cloud turn's run that has started and not ended (or was left running by a quit). */
export interface TurnRun {
	readonly agentId: string;
	readonly runId: string;
}

/** How long an abort's cancel waits for a shutdown to follow it. */
export const ABORT_GRACE_MS = 300;

export class LeaveOnShutdown {
	private leaving = false;
	private readonly pending = new Set<{ timer: ReturnType<typeof setTimeout>; skip: () => void }>();
	private readonly running = new Map<string, TurnRun & { cancel: () => Promise<void> }>();

	/** A cloud turn's run exists; `cancel` stops it on Cursor. */
	started(run: TurnRun, cancel: () => Promise<void>): void {
		this.running.set(run.runId, { agentId: run.agentId, runId: run.runId, cancel });
	}

	/** The run is over (or its abort cancelled it). A run a quit left running stays listed. */
	ended(runId: string): void {
		this.running.delete(runId);
	}

	/** The cloud turns' runs in flight, and those a quit left running. */
	inFlight(): TurnRun[] {
		return [...this.running.values()].map(({ agentId, runId }) => ({ agentId, runId }));
	}

	/** Stops every run in flight on Cursor; returns those that could not be stopped, with why. */
	async stop(): Promise<(TurnRun & { error: unknown })[]> {
		const failed: (TurnRun & { error: unknown })[] = [];
		await Promise.all(
			[...this.running.values()].map(async (run) => {
				try {
					await run.cancel();
					this.running.delete(run.runId);
				} catch (error) {
					failed.push({ agentId: run.agentId, runId: run.runId, error });
				}
			}),
		);
		return failed;
	}

	/** Runs `step` after the grace period, unless the session shuts down first (then `skip` runs instead). */
	defer(step: () => void, skip: () => void = () => {}): void {
		if (this.leaving) {
			skip();
			return;
		}
		const entry = {
			timer: setTimeout(() => {
				this.pending.delete(entry);
				step();
			}, ABORT_GRACE_MS),
			skip,
		};
		this.pending.add(entry);
	}

	/** Session shutdown: aborted runs are left running; returns how many were. */
	leave(): number {
		this.leaving = true;
		const count = this.pending.size;
		for (const entry of this.pending) {
			clearTimeout(entry.timer);
			entry.skip();
		}
		this.pending.clear();
		return count;
	}

	/** A new session: aborts cancel again; runs an earlier session left are the fleet's now. */
	reset(): void {
		this.leaving = false;
		this.running.clear();
	}

	/** `agent` whose runs' `cancel()` is deferred as above. */
	wrap(agent: SDKAgent): SDKAgent {
		const wrapRun = (run: Run): Run =>
			new Proxy(run, {
				get: (target, prop) => {
					if (prop === "cancel") {
						return () =>
							new Promise<void>((resolve) =>
								this.defer(
									() => void target.cancel().then(resolve, resolve),
									() => resolve(),
								),
							);
					}
					const value = Reflect.get(target, prop, target);
					return typeof value === "function" ? value.bind(target) : value;
				},
			});
		return new Proxy(agent, {
			get: (target, prop) => {
				if (prop === "send") {
					return async (...args: Parameters<SDKAgent["send"]>) => wrapRun(await target.send(...args));
				}
				const value = Reflect.get(target, prop, target);
				return typeof value === "function" ? value.bind(target) : value;
			},
		});
	}
}
