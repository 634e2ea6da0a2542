// Sockets the SDK opens on our behalf. The SDK's REST calls and key exchange take no abort signal, so a request to a
// backend that never answers stays pending (and is retried) after we abandoned it, and its socket would keep a
// finished Pi process (print mode exits when its event loop drains) alive indefinitely. SDK work we start runs inside
// `run()`, tagged with the current generation; `release()` (at session shutdown, when all of the session's SDK work is
// over or abandoned) closes that generation's open sockets and any it still tries to open. Unref is not enough:
// Node's fetch re-refs a socket while its request is pending.
import { AsyncLocalStorage } from "node:async_hooks";
import { subscribe } from "node:diagnostics_channel";
import type { Socket } from "node:net";

/** Node's fetch (REST, key exchange) and plain TCP clients (the agent stream over HTTP/1.1). */
const CHANNELS = ["undici:client:connected", "net.client.socket"] as const;

interface Generation {
	closed: boolean;
	open: Set<Socket>;
}

const newGeneration = (): Generation => ({ closed: false, open: new Set() });

export class SdkSockets {
	private readonly context = new AsyncLocalStorage<Generation>();
	private generation = newGeneration();
	private subscribed = false;
	private readonly onSocket = (message: unknown) => {
		const generation = this.context.getStore();
		const socket = (message as { socket?: Socket }).socket;
		if (!generation || !socket) return;
		if (generation.closed) {
			// Abandoned work retrying after its session ended. The channel fires before `connect()` (which would revive
			// a socket destroyed now), so close it right after.
			queueMicrotask(() => socket.destroy());
		} else if (!generation.open.has(socket)) {
			generation.open.add(socket);
			socket.once("close", () => generation.open.delete(socket));
		}
	};

	/** Runs `work` (and everything it starts asynchronously) as SDK work of the current session. */
	run<T>(work: () => T): T {
		if (!this.subscribed) {
			for (const channel of CHANNELS) subscribe(channel, this.onSocket);
			this.subscribed = true;
		}
		return this.context.run(this.generation, work);
	}

	/** The session is over: close the sockets its SDK work left open. Returns how many there were. */
	release(): number {
		const ended = this.generation;
		this.generation = newGeneration();
		ended.closed = true;
		const count = ended.open.size;
		for (const socket of ended.open) socket.destroy();
		ended.open.clear();
		return count;
	}
}
