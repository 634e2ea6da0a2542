// The one owner of a Pi session's Cursor settings state: the session's entries (fast, mode, HTTP/1.1) and the active
// model, read together with Pi's flags and the local configuration (whose owner is LocalAgentConfig) into the input
// of the pure precedence rules (effective.ts).
import type { Model } from "@earendil-works/pi-ai";
import { type CatalogState, PROVIDER_ID } from "../catalog/state.ts";
import {
	type CursorFlagsInput,
	type CursorModelInput,
	type EffectiveSettingsInput,
	parseFastForceFlags,
	resolveEffectiveSettings,
} from "./effective.ts";
import { type CursorEnv, type EnvRecord, readEnv } from "./env.ts";
import type { LocalAgentConfig } from "./local-config.ts";
import {
	applySessionEntry,
	type CursorSessionState,
	emptySessionState,
	restoreSessionState,
	type SessionStateEntry,
} from "./session-state.ts";

export interface SessionSettingsDeps {
	readonly catalog: CatalogState;
	readonly local: LocalAgentConfig;
	/** Pi's `--cursor-*` flag values for this run. */
	readonly flags: () => CursorFlagsInput;
	/** Pi's `appendEntry`: session entries are the persisted half of the session state. */
	readonly appendEntry: (customType: string, data: unknown) => void;
	readonly env: EnvRecord;
	/** When this run (the Pi process) started, epoch ms: entries stamped since then are this run's commands. */
	readonly runStart?: number;
}

export class SessionSettings {
	private state: CursorSessionState = emptySessionState();
	/** The choices commands made during this run: they win over the start flags (effective.ts). */
	private run: CursorSessionState = emptySessionState();
	private readonly runStart: number;
	/** The model Pi has selected (session start and `model_select`). */
	activeModel: Model<string> | undefined;

	constructor(private readonly deps: SessionSettingsDeps) {
		this.runStart = deps.runStart ?? performance.timeOrigin;
	}

	/** The session's recorded state (fast, mode, HTTP/1.1). */
	get session(): CursorSessionState {
		return this.state;
	}

	/** On `session_start`: the state recorded on the session's current branch. */
	restore(branchEntries: readonly unknown[]): void {
		this.state = restoreSessionState(branchEntries);
		// A reload or a switch back to a session keeps what was typed in this run.
		this.run = restoreSessionState(branchEntries, this.runStart);
	}

	/** Records a session entry and applies it (the state is rebuilt from the entries on the next session start). */
	record(entry: SessionStateEntry): void {
		this.state = applySessionEntry(this.state, entry.customType, entry.data);
		this.run = applySessionEntry(this.run, entry.customType, entry.data);
		this.deps.appendEntry(entry.customType, entry.data);
	}

	modelInput(model: Model<string> | undefined = this.activeModel): CursorModelInput | undefined {
		if (!model || model.provider !== PROVIDER_ID) return undefined;
		const row = this.deps.catalog.resolve(model.id);
		if (!row) return { isCursor: true, selectionKey: model.id, baseId: model.id, fastCapable: false };
		const { meta } = row;
		const catalogFast = meta.defaultParams.find((p) => p.id === "fast")?.value;
		return {
			isCursor: true,
			selectionKey: meta.selectionId,
			baseId: meta.baseId,
			fastCapable: meta.capabilities.fast,
			catalogFastDefault: catalogFast === "true",
			...(meta.forcedFast !== undefined ? { aliasForcedFast: meta.forcedFast } : {}),
		};
	}

	/** The input of the precedence rules for `model` (default: the active model), with `env` as read for a turn. */
	input(
		model: Model<string> | undefined = this.activeModel,
		env: CursorEnv = readEnv(this.deps.env),
	): EffectiveSettingsInput {
		const { user, project } = this.deps.local.current;
		return {
			model: this.modelInput(model),
			flags: this.deps.flags(),
			session: this.state,
			run: this.run,
			config: user,
			projectConfig: project,
			env,
		};
	}

	/** The footer text for the active model (undefined clears it). */
	status(): string | undefined {
		return resolveEffectiveSettings(this.input()).status;
	}

	/** `--cursor-fast`/`--cursor-no-fast` on a model without a fast switch change nothing: the notice saying so. */
	unsupportedFastFlag(): string | undefined {
		const input = this.input();
		const flags = parseFastForceFlags(input.flags);
		if (flags.ok && flags.force !== undefined && input.model?.isCursor && !input.model.fastCapable) {
			return `Fast mode not supported by ${input.model.selectionKey}`;
		}
		return undefined;
	}
}
