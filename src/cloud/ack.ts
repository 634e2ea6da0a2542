// The one-time confirmation of Cursor Cloud: a cloud turn runs the agent on Cursor's machines against a remote
// repository (it clones it, works on a branch, may push and open a pull request). The TUI asks once and remembers the
// answer in the user's cursor-sdk.json (`cloud.acknowledged`); other modes need `--cursor-cloud-ack` or
// `PI_CURSOR_CLOUD_ACK=1`, else the turn fails before any request.
import type { ConfigDocument } from "../settings/config-schema.ts";
import { defineOwn, isRecord } from "../settings/plain-data.ts";
import { CLOUD_ENV, CLOUD_FLAGS } from "./options.ts";

export const CLOUD_ACK_TITLE = "Run Cursor turns in Cursor Cloud?";

export const CLOUD_ACK_TEXT =
	"Cursor Cloud runs the agent on Cursor's machines, not here: it clones the target repository from its remote, works on a branch there, and can push it and open a pull request. Local files that are not pushed are not visible to it. Confirm once; the answer is saved in cursor-sdk.json.";

export const CLOUD_ACK_NEEDED = `Cursor Cloud runs turns on Cursor's machines against a remote repository and must be confirmed first: pass --${CLOUD_FLAGS.ack} or set ${CLOUD_ENV.ack}=1 (the TUI asks once).`;

export const CLOUD_ACK_DECLINED =
	"Cursor Cloud was not confirmed, so nothing was sent. Use /cursor-runtime local to run turns on this machine.";

/** Sets `cloud.acknowledged: true`; skipped (returns false) when `cloud` is there but not an object. */
export function setCloudAcknowledged(document: ConfigDocument): boolean {
	const cloud = document.cloud;
	if (cloud !== undefined && !isRecord(cloud)) return false;
	const section = isRecord(cloud) ? cloud : {};
	defineOwn(section, "acknowledged", true);
	defineOwn(document, "cloud", section);
	return true;
}

export interface AckDeps {
	confirm(title: string, message: string): Promise<boolean>;
	/** Saves `cloud.acknowledged` in the user's cursor-sdk.json. */
	save(): Promise<{ ok: true } | { ok: false; message: string }>;
	warn(message: string): void;
}

/** The TUI's question, asked until answered yes; a yes that could not be saved holds for this session. */
export function cloudAcknowledger(deps: AckDeps): () => Promise<boolean> {
	let confirmed = false;
	return async () => {
		if (confirmed) return true;
		if (!(await deps.confirm(CLOUD_ACK_TITLE, CLOUD_ACK_TEXT))) return false;
		confirmed = true;
		const saved = await deps.save();
		if (!saved.ok) deps.warn(`Cursor Cloud confirmed for this session only: ${saved.message}`);
		return true;
	};
}
