// Several TurnObservers behind one: each callback reaches every observer that has it, and one that throws never stops
// the others. A callback no observer has stays absent, so the stream skips it (e.g. `sdkUpdate` on every delta).
import type { TurnObserver } from "../turn/observer.ts";

const KEYS = ["sendStarted", "sdkUpdate", "sdkStep", "sendEnded"] as const;

export function combineObservers(observers: readonly TurnObserver[]): TurnObserver {
	const combined: TurnObserver = {};
	for (const key of KEYS) {
		const callbacks = observers
			.map((observer) => observer[key]?.bind(observer) as ((...args: unknown[]) => void) | undefined)
			.filter((callback) => callback !== undefined);
		if (callbacks.length === 0) continue;
		(combined as Record<string, (...args: unknown[]) => void>)[key] = (...args) => {
			for (const callback of callbacks) {
				try {
					callback(...args);
				} catch {
					// one observer's failure is its own
				}
			}
		};
	}
	return combined;
}
