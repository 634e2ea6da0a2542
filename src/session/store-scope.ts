// The persisted session's store directory under the chosen state root: computed at session start, checked (and
// claimed for cleanup) when a turn uses it, and moved when the root setting changes between turns.
import { claimStore, releaseStore, type StoreOwner } from "./cleanup.ts";
import { pathTextProblem, prepareStoreRoot, type StoreRootChoice, unsafeRootMessage } from "./store-root.ts";
import { sessionStoreDir } from "./stores.ts";

export type TurnStore =
	| { readonly ok: true; readonly storeDir: string | undefined; readonly moved: boolean }
	| { readonly ok: false; readonly message: string };

export type RootCheck = { readonly ok: true; readonly root: string } | { readonly ok: false; readonly message: string };

export class SessionStoreScope {
	private owner: StoreOwner | undefined;
	private defaultRoot: (() => string) | undefined;
	private cachedDefault: string | undefined;
	/** The store directory the pool is bound to. */
	private bound: string | undefined;
	private claimed: string | undefined;

	/** On `session_start`: the pool's store dir (`undefined` for fileless sessions or an unusable root text). */
	start(owner: StoreOwner | undefined, choice: StoreRootChoice, defaultRoot: () => string): string | undefined {
		this.release();
		this.owner = owner;
		this.defaultRoot = defaultRoot;
		this.cachedDefault = undefined;
		let root: string | undefined;
		if (choice.kind === "default") root = owner ? this.sdkDefault() : undefined;
		else if (!pathTextProblem(choice.path)) root = choice.path;
		this.bound = owner && root !== undefined ? sessionStoreDir(root, owner.sessionId) : undefined;
		return this.bound;
	}

	/** The SDK's default root for the session's workspace (known from `session_start` on). */
	private sdkDefault(): string | undefined {
		if (this.cachedDefault === undefined && this.defaultRoot) this.cachedDefault = this.defaultRoot();
		return this.cachedDefault;
	}

	/** The chosen root, checked (a custom one is validated and its missing folders created). */
	checkRoot(choice: StoreRootChoice): RootCheck {
		if (choice.kind === "default") {
			const root = this.sdkDefault();
			return root ? { ok: true, root } : { ok: false, message: "No Cursor state root before the session starts." };
		}
		const checked = prepareStoreRoot(choice.path);
		return checked.ok ? checked : { ok: false, message: unsafeRootMessage(choice, checked.problem) };
	}

	/**
	 * Before a persisted session's turn: the store dir under the current root setting, or why the turn cannot use
	 * it. `moved` means the root changed since the pool was bound (the pool must start over in the new store).
	 */
	forTurn(choice: StoreRootChoice): TurnStore {
		if (!this.owner) return { ok: true, storeDir: undefined, moved: false };
		const root = this.checkRoot(choice);
		if (!root.ok) return root;
		const storeDir = sessionStoreDir(root.root, this.owner.sessionId);
		const moved = storeDir !== this.bound;
		if (moved) this.release();
		this.bound = storeDir;
		if (this.claimed !== storeDir) {
			try {
				claimStore(storeDir, this.owner);
			} catch (error) {
				return { ok: false, message: `Cannot use the Cursor session store ${storeDir}: ${(error as Error).message}` };
			}
			this.claimed = storeDir;
		}
		return { ok: true, storeDir, moved };
	}

	/** The store this process holds now (kept by `/cursor-cleanup` even before its session file exists). */
	get current(): string | undefined {
		return this.bound;
	}

	/** Gives up this process's hold (session end or a root switch). */
	release(): void {
		if (this.claimed) releaseStore(this.claimed);
		this.claimed = undefined;
	}
}
