// Several TurnObservers behind one: each callback reaches every observer, and one that throws never stops the others.
import type { TurnObserver } from "../turn/observer.ts";

export function combineObservers(observers: () => readonly TurnObserver[]): TurnObserver {
	const each = <K extends keyof TurnObserver>(key: K, args: Parameters<NonNullable<TurnObserver[K]>>) => {
		for (const observer of observers()) {
			const callback = observer[key] as ((...a: typeof args) => void) | undefined;
			if (!callback) continue;
			try {
				callback.apply(observer, args);
			} catch {
				// one observer's failure is its own
			}
		}
	};
	return {
		sendStarted: (...args) => each("sendStarted", args),
		sdkUpdate: (...args) => each("sdkUpdate", args),
		sdkStep: (...args) => each("sdkStep", args),
		sendEnded: (...args) => each("sendEnded", args),
	};
}
