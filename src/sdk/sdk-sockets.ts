// Sockets the SDK opens on our behalf. The SDK's REST calls and key exchange take no abort signal, so a request to a
// backend that never answers stays pending (and is retried) after we abandoned it, and its socket would keep a
// finished Pi process (print mode exits when its event loop drains) alive indefinitely. SDK work we start runs inside
// `run()`, tagged with the current generation; `release()` (at session shutdown, when all of the session's SDK work is
// over or abandoned) closes that generation's open sockets and any it still tries to open. Unref is not enough:
// Node's fetch re-refs a socket while its request is pending. Bun (compiled Pi) publishes no socket channel for its
// fetch, so there the generation's fetches carry an abort signal instead, aborted at `release()` (and at once for
// fetches abandoned work starts after it): the SDK calls the global `fetch` at call time.
import { AsyncLocalStorage } from "node:async_hooks";
import { subscribe } from "node:diagnostics_channel";
import type { Socket } from "node:net";

/** Node's fetch (REST, key exchange) and plain TCP clients (the agent stream over HTTP/1.1). */
const CHANNELS = ["undici:client:connected", "net.client.socket"] as const;

interface Generation {
	closed: boolean;
	open: Set<Socket>;
	/** Bun only: the generation's pending fetches (and streams still being read). */
	fetches: Set<AbortController>;
}

const newGeneration = (): Generation => ({ closed: false, open: new Set(), fetches: new Set() });

/** A streamed answer is read after `fetch` resolves: it stays abortable until the session ends. */
const STREAMING = /event-stream|application\/connect|application\/grpc/i;

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
			if (process.versions.bun) this.tagFetches();
			this.subscribed = true;
		}
		return this.context.run(this.generation, work);
	}

	/** Bun: wraps the global `fetch` so that the fetches of a generation can be aborted when it ends. */
	private tagFetches(): void {
		const original = globalThis.fetch;
		const context = this.context;
		const tagged = (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
			const generation = context.getStore();
			if (!generation) return original(input, init);
			const controller = new AbortController();
			if (generation.closed) controller.abort(new Error("the Pi session that started this Cursor request has ended"));
			else generation.fetches.add(controller);
			const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
			return original(input, { ...init, signal }).then(
				(response) => {
					if (!STREAMING.test(response.headers.get("content-type") ?? "")) generation.fetches.delete(controller);
					return response;
				},
				(error: unknown) => {
					generation.fetches.delete(controller);
					throw error;
				},
			);
		};
		globalThis.fetch = Object.assign(tagged, original);
	}

	/** The session is over: close the sockets its SDK work left open. Returns how many there were. */
	release(): number {
		const ended = this.generation;
		this.generation = newGeneration();
		ended.closed = true;
		const count = ended.open.size + ended.fetches.size;
		for (const socket of ended.open) socket.destroy();
		ended.open.clear();
		for (const controller of ended.fetches) controller.abort(new Error("the Pi session ended"));
		ended.fetches.clear();
		return count;
	}
}
