// PI_CURSOR_SDK_EVENT_DEBUG=1: every SDK `onDelta` update and `onStep` step of each send, with timings, as scrubbed
// JSONL in a private file under the state root, for bug reports. The capture holds model output (it is a debug
// artifact) but never the API key. It stops at a size ceiling.
import { closeSync, constants, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { redactSecrets } from "../sdk/errors.ts";
import { ENV_VARS } from "../settings/env.ts";
import type { SendEnded, SendStarted, TurnObserver } from "../turn/observer.ts";

export const EVENT_CAPTURE_DIR = "pi-cursor-sdk-events";
/** One capture file stops growing past this size. */
export const EVENT_CAPTURE_CEILING_BYTES = 64 * 1024 * 1024;

export interface EventCaptureOptions {
	/** The directory the capture files go to (created 0700). */
	dir: () => string;
	/** A short label for the file name (e.g. a hash of the session id). */
	label: () => string;
	/** Values to redact besides the generic key patterns (the API key in use). */
	secrets: () => readonly (string | undefined)[];
	/** Shown once, with the file's path, when the capture starts. */
	announce: (message: string) => void;
	ceilingBytes?: number;
}

/** A TurnObserver that writes each send's SDK events to one capture file per extension instance. */
export class EventCapture implements TurnObserver {
	private fd: number | undefined;
	private path: string | undefined;
	private written = 0;
	/** The capture failed or reached its ceiling: nothing more is written. */
	private stopped = false;

	constructor(private readonly options: EventCaptureOptions) {}

	get file(): string | undefined {
		return this.path;
	}

	private open(): number | undefined {
		if (this.fd !== undefined || this.stopped) return this.fd;
		try {
			const dir = this.options.dir();
			mkdirSync(dir, { recursive: true, mode: 0o700 });
			const stamp = new Date().toISOString().replace(/[:.]/g, "-");
			const path = join(dir, `${stamp}-${process.pid}-${this.options.label()}.jsonl`);
			const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
			this.fd = openSync(path, flags, 0o600);
			this.path = path;
			this.options.announce(`Cursor SDK event capture (${ENV_VARS.eventDebug.name}) is writing to ${path}`);
		} catch (error) {
			this.stopped = true;
			this.options.announce(
				`Cursor SDK event capture (${ENV_VARS.eventDebug.name}) could not start: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
			);
		}
		return this.fd;
	}

	private write(event: Record<string, unknown>): void {
		const fd = this.open();
		if (fd === undefined || this.stopped) return;
		const line = `${redactSecrets(JSON.stringify(event), this.options.secrets(), { content: true })}\n`;
		const ceiling = this.options.ceilingBytes ?? EVENT_CAPTURE_CEILING_BYTES;
		try {
			if (this.written + Buffer.byteLength(line) > ceiling) {
				writeSync(
					fd,
					`${JSON.stringify({ event: "capture-stopped", reason: "size ceiling reached", at: Date.now() })}\n`,
				);
				this.stopped = true;
				return;
			}
			this.written += writeSync(fd, line);
		} catch {
			this.stopped = true;
		}
	}

	private static ids(send: SendStarted | SendEnded) {
		return { agentId: send.agentId ?? null, runId: send.runId ?? null };
	}

	sendStarted(send: SendStarted): void {
		this.write({
			event: "send-started",
			at: send.startedAt,
			...EventCapture.ids(send),
			kind: send.kind,
			model: send.model,
		});
	}

	sdkUpdate(send: SendStarted, update: unknown, at: number): void {
		this.write({ event: "delta", at, ms: at - send.startedAt, ...EventCapture.ids(send), update });
	}

	sdkStep(send: SendStarted, step: unknown, at: number): void {
		this.write({ event: "step", at, ms: at - send.startedAt, ...EventCapture.ids(send), step });
	}

	sendEnded(send: SendEnded): void {
		this.write({
			event: "send-ended",
			at: send.endedAt,
			ms: send.endedAt - send.startedAt,
			...EventCapture.ids(send),
			outcome: send.outcome,
			rawUsage: send.rawUsage ?? null,
			mappedUsage: send.mappedUsage ?? null,
			...(send.error ? { error: send.error } : {}),
		});
	}

	close(): void {
		if (this.fd !== undefined) {
			try {
				closeSync(this.fd);
			} catch {
				// already closed
			}
		}
		this.fd = undefined;
	}
}
