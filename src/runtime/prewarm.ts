// Prewarm: most of a first Cursor send is the SDK building its local executor for the workspace (key exchange, server
// config, team settings, plugins, skills, rules). Once Pi has started (TUI or RPC) with a Cursor model selected and a
// key available, that is done in the background, so the first send finds it ready. Never for `--list-models` (no
// session starts), print or JSON mode (the prompt follows at once), Pi's offline mode, or once a turn has started.
// Not for the cloud runtime (nothing runs locally). It does not hold up Pi: it starts after a short delay and runs in
// the background (its SDK work shares Pi's event loop and CPU while Pi is idle). Failures are silent: the turn
// reports any problem as it would without it.
// `PI_CURSOR_PREWARM=0` turns it off.
import type { Model } from "@earendil-works/pi-ai";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { PROVIDER_ID } from "../catalog/state.ts";
import { quietSdkDiagnostics } from "../process/quiet-diagnostics.ts";
import type { SdkSockets } from "../sdk/sdk-sockets.ts";
import type { SessionTurnEntry } from "../session/turn-entry.ts";
import { type EnvRecord, readEnvVar } from "../settings/env.ts";
import type { LocalRuntime } from "./local.ts";

/** Lets Pi finish starting (and the TUI draw) before the SDK's work competes with it for the CPU. */
export const PREWARM_DELAY_MS = 300;

/** Gives back what a prewarm holds. */
export type PrewarmRelease = () => Promise<void>;

/** Pi's own offline switch (`--offline` sets it), read as Pi reads it. */
function piOffline(env: EnvRecord): boolean {
	return /^(1|true|yes)$/i.test(env.PI_OFFLINE ?? "");
}

/**
 * At most one prewarmed executor per session: a newer prewarm replaces the one held (released once the new one is
 * ready, so an unchanged executor is kept alive throughout), and `stop` cancels a pending one and releases it.
 */
export class PrewarmSchedule {
	private timer: ReturnType<typeof setTimeout> | undefined;
	private held: PrewarmRelease | undefined;
	/** Bumped by every schedule and stop: a prewarm that finishes after either is released at once. */
	private epoch = 0;

	/**
	 * Runs `work` after `delayMs` (unless another `schedule` or `stop` comes first). `work` resolves to the release of
	 * what it prepared, or undefined when there is nothing to prepare; its failures are ignored.
	 */
	schedule(work: () => Promise<PrewarmRelease | undefined>, delayMs = PREWARM_DELAY_MS): void {
		clearTimeout(this.timer);
		const epoch = ++this.epoch;
		this.timer = setTimeout(() => {
			this.timer = undefined;
			Promise.resolve()
				.then(work)
				.then(
					(release) => this.hold(epoch, release),
					() => {},
				);
		}, delayMs);
		this.timer.unref?.();
	}

	/** Session shutdown: nothing more is prewarmed and the held executor is given back (not awaited). */
	stop(): void {
		clearTimeout(this.timer);
		this.timer = undefined;
		this.epoch++;
		this.replace(undefined);
	}

	private hold(epoch: number, release: PrewarmRelease | undefined): void {
		if (!release) return;
		if (epoch !== this.epoch) {
			release().catch(() => {});
			return;
		}
		this.replace(release);
	}

	private replace(release: PrewarmRelease | undefined): void {
		const previous = this.held;
		this.held = release;
		previous?.().catch(() => {});
	}
}

export interface SessionPrewarmDeps {
	readonly env: EnvRecord;
	readonly entry: Pick<SessionTurnEntry, "preview">;
	readonly runtime: Pick<LocalRuntime, "prewarm">;
	/** The prewarm's SDK work is the session's: its leftover sockets cannot hold Pi's exit. */
	readonly sockets: Pick<SdkSockets, "run">;
}

/** The session's prewarm: asked for on `session_start` and `model_select`, stopped on `session_shutdown`. */
export class SessionPrewarm {
	private readonly schedule = new PrewarmSchedule();

	constructor(private readonly deps: SessionPrewarmDeps) {}

	/** Prepares the first send on `model` (default: the session's) in the background, when it should (see above). */
	request(ctx: ExtensionContext, model = ctx.model as Model<string> | undefined): void {
		const { env } = this.deps;
		if (model?.provider !== PROVIDER_ID || (ctx.mode !== "tui" && ctx.mode !== "rpc")) return;
		if (!readEnvVar(env, "prewarm") || piOffline(env)) return;
		const registry = ctx.modelRegistry;
		this.schedule.schedule(async () => {
			const apiKey = (await registry.getProviderAuth(PROVIDER_ID))?.auth.apiKey;
			if (!apiKey) return undefined;
			const setup = this.deps.entry.preview(model, { apiKey });
			// A cloud turn runs on Cursor's machines: there is no local executor to prepare.
			if ("kind" in setup || setup.runtime === "cloud") return undefined;
			quietSdkDiagnostics();
			return this.deps.sockets.run(() => this.deps.runtime.prewarm(setup));
		});
	}

	stop(): void {
		this.schedule.stop();
	}
}
