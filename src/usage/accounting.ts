// Knowing what happened, per extension instance: the usage ledger (journal + lineage + last error), the SDK event
// capture, learned context windows and capability notices, all fed by one TurnObserver.
import { dirname, join } from "node:path";
import { WindowLearner } from "../catalog/learned-windows.ts";
import type { CatalogItem } from "../catalog/types.ts";
import {
	CAPABILITY_GUIDANCE,
	CAPABILITY_NOTICE_TYPE,
	CapabilityNotices,
	watchCapabilityWarnings,
} from "../process/capability-notices.ts";
import { readEnvVar } from "../settings/env.ts";
import type { SendEnded, SendStarted, TurnObserver } from "../turn/observer.ts";
import { EVENT_CAPTURE_DIR, EventCapture } from "./event-capture.ts";
import { headerFacts } from "./inherited.ts";
import { sessionDigest } from "./journal.ts";
import { UsageLedger } from "./ledger.ts";
import { combineObservers } from "./observers.ts";

type NoticeType = "info" | "warning" | "error";

export interface AccountingHooks {
	learnedWindowsPath: string;
	appendEntry(customType: string, data: unknown): void;
	/** A notice (warnings reach stderr in print mode). */
	notify(message: string, type: NoticeType): void;
	/** Output the user asked for, or must see once: the UI, else stderr. */
	report(message: string, type: NoticeType): void;
	catalogItems(): readonly CatalogItem[];
	/** The context window in an agent's latest checkpoint, read from the store that agent writes to. */
	readWindow(agentId: string): Promise<number | undefined>;
	/** The state root (for the event capture), or undefined when it is unusable. */
	stateRoot(): string | undefined;
}

/** What `session_start` tells us about the session (a subset of Pi's read-only SessionManager). */
export interface SessionFacts {
	getSessionId(): string;
	getSessionFile(): string | undefined;
	getHeader(): unknown;
	getEntries(): readonly unknown[];
}

const sendKey = (send: SendStarted | SendEnded) => `${send.agentId}\u0000${send.startedAt}`;

export class Accounting {
	readonly ledger: UsageLedger;
	readonly learner: WindowLearner;
	readonly observer: TurnObserver;
	private readonly capture: EventCapture;
	private readonly notices = new CapabilityNotices();
	/** Sends that reported `sendStarted` and have not ended (capability notices belong to them). */
	private readonly running = new Set<string>();
	private unwatch: (() => void) | undefined;
	/** The key of the current turn, only to redact it from the event capture (memory only). */
	private turnKey: string | undefined;

	constructor(private readonly hooks: AccountingHooks) {
		this.ledger = new UsageLedger({
			appendEntry: hooks.appendEntry,
			warn: (message) => hooks.notify(message, "warning"),
		});
		this.learner = new WindowLearner({
			path: hooks.learnedWindowsPath,
			items: hooks.catalogItems,
			readWindow: hooks.readWindow,
		});
		this.capture = new EventCapture({
			dir: () => {
				const root = hooks.stateRoot();
				if (!root) throw new Error("no usable state root");
				return join(root, EVENT_CAPTURE_DIR);
			},
			label: () => sessionDigest(this.ledger.sessionId ?? "no-session").slice(0, 12),
			secrets: () => [this.turnKey, readEnvVar(process.env, "apiKey")],
			announce: (message) => hooks.report(message, "info"),
		});
		const lifecycle: TurnObserver = {
			sendStarted: (send) => {
				this.running.add(sendKey(send));
				this.notices.requestStarted();
			},
			sendEnded: (send) => {
				if (this.running.delete(sendKey(send))) this.notices.requestEnded();
			},
		};
		const capture = readEnvVar(process.env, "eventDebug") ? [this.capture] : [];
		this.observer = combineObservers([lifecycle, this.ledger, this.learner, ...capture]);
	}

	/** On `session_start`. */
	start(session: SessionFacts): void {
		const file = session.getSessionFile();
		this.ledger.bind({
			sessionId: session.getSessionId(),
			sessionDir: file ? dirname(file) : undefined,
			header: headerFacts(session.getHeader()),
			entries: session.getEntries(),
		});
		this.unwatch ??= watchCapabilityWarnings((kind) => {
			const decision = this.notices.decide(kind);
			if (decision === "ignore") return false;
			if (decision === "show") {
				const message = CAPABILITY_GUIDANCE[kind];
				this.hooks.notify(message, "warning");
				try {
					this.hooks.appendEntry(CAPABILITY_NOTICE_TYPE, { kind, message, at: Date.now() });
				} catch {
					// the notice was shown; a session that cannot take entries just misses the record
				}
			}
			return true;
		});
	}

	/** What `prepare` decided for a turn: a setup (its key is kept for redaction) or an error to remember. */
	noteTurn(result: { apiKey: string } | { message: string }): void {
		if ("apiKey" in result) this.turnKey = result.apiKey;
		else this.ledger.noteError(result.message);
	}

	/** On `session_shutdown`, before the pool closes its stores. */
	async shutdown(): Promise<void> {
		await this.learner.flush();
		this.capture.close();
		this.unwatch?.();
		this.unwatch = undefined;
	}
}
