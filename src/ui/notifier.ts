// Where a session's messages go: Pi's notifications and status line in UI modes, stderr in print and JSON modes
// (stdout stays the answer's).
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { redactSecrets } from "../sdk/errors.ts";
import type { Notify } from "./types.ts";

/** Every notice passes the one scrubber (its gentler variant: notices quote paths, commands and model ids). */
const scrubbed = (message: string) => redactSecrets(message, [], { content: true });

export class Notifier {
	private ui: ExtensionContext["ui"] | undefined;

	/** On session start and model changes: the context's UI, if it has one. */
	bind(ctx: ExtensionContext): void {
		this.ui = ctx.hasUI ? ctx.ui : undefined;
	}

	/** A user-facing notice (informational ones are dropped without a UI). */
	readonly notify: Notify = (message, type = "info") => {
		if (this.ui) this.ui.notify(scrubbed(message), type);
		else if (type !== "info") console.error(scrubbed(message));
	};

	/** Output the user asked for (command results). */
	readonly report: Notify = (message, type = "info") => {
		if (this.ui) this.ui.notify(scrubbed(message), type);
		else console.error(scrubbed(message));
	};

	/** A yes/no question; false without a UI. */
	readonly confirm = (title: string, message: string): Promise<boolean> =>
		this.ui ? this.ui.confirm(title, message) : Promise.resolve(false);

	/** A choice among `options`; undefined without a UI or when dismissed. */
	readonly select = (title: string, options: string[]): Promise<string | undefined> =>
		this.ui ? this.ui.select(title, options) : Promise.resolve(undefined);

	setStatus(key: string, text: string | undefined): void {
		this.ui?.setStatus(key, text);
	}
}
