// Remembers the SDK stores the session pool has open, so accounting can read an agent's checkpoint from the very
// store its agent writes to (never a second connection). The pool keeps owning and closing them.
import type { CursorSdk, OpenStore } from "./cursor-sdk.ts";

export class StoreTracker {
	/** Stores that are open (or opening), newest last. */
	private readonly live = new Set<Promise<OpenStore>>();

	/** `sdk` with `openStore` observed; every other call goes straight through. */
	wrap(sdk: CursorSdk): CursorSdk {
		return new Proxy(sdk, {
			get: (target, property) => {
				if (property === "openStore") {
					return (dir: string, cwd: string) => this.track(target.openStore(dir, cwd));
				}
				const value = Reflect.get(target, property, target);
				return typeof value === "function" ? value.bind(target) : value;
			},
		});
	}

	private track(opening: Promise<OpenStore>): Promise<OpenStore> {
		const tracked = opening.then((store) => {
			const dispose = store.dispose.bind(store);
			store.dispose = () => {
				this.live.delete(tracked);
				return dispose();
			};
			return store;
		});
		this.live.add(tracked);
		tracked.catch(() => this.live.delete(tracked));
		return tracked;
	}

	/** The checkpoint window of `agentId` from whichever open store holds the agent (newest store first). */
	async checkpointMaxTokens(sdk: CursorSdk, cwd: string, agentId: string): Promise<number | undefined> {
		for (const opening of [...this.live].reverse()) {
			try {
				const max = await sdk.checkpointMaxTokens(await opening, cwd, agentId);
				if (max !== undefined) return max;
			} catch {
				// a store that closed meanwhile, or holds no such agent
			}
		}
		return undefined;
	}
}
