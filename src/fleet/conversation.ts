// `/cursor-cloud show`'s conversation: what the user asked and what Cursor answered, run by run, as text for the
// terminal. Pure: the runs' conversations in, bounded and scrubbed text out (Cursor's thinking is left out).
import type { CloudConversationEntry } from "../sdk/cursor-sdk.ts";
import { redactSecrets } from "../sdk/errors.ts";

/** The whole conversation text stays under this (the newest part is kept). */
export const CONVERSATION_MAX_CHARS = 8000;
/** One message is cut after this. */
export const ENTRY_MAX_CHARS = 2000;
/** How many of an agent's latest runs are shown. */
export const CONVERSATION_RUNS = 5;

export interface RunConversation {
	runId: string;
	status: string;
	/** Undefined: it could not be read (`missing` says why) or the run is still going. */
	entries?: readonly CloudConversationEntry[];
	missing?: string;
}

/** Control characters out (line breaks and tabs stay), secrets redacted, cut at `max`. */
function clean(text: string, secrets: readonly string[], max = ENTRY_MAX_CHARS): string {
	const plain = redactSecrets(text.replace(/[^\P{Cc}\n\t]/gu, ""), secrets, { content: true }).trim();
	return plain.length > max ? `${plain.slice(0, max - 1)}…` : plain;
}

function entryLines(entry: CloudConversationEntry, secrets: readonly string[]): string[] {
	switch (entry.kind) {
		case "user":
			return [`You: ${clean(entry.text, secrets)}`];
		case "assistant":
			return [`Cursor: ${clean(entry.text, secrets)}`];
		case "thinking":
			return [];
		case "tool":
			return [`  [${clean(entry.name, secrets, 80)}]${entry.detail ? ` ${clean(entry.detail, secrets, 200)}` : ""}`];
		case "shell":
			return [
				`  $ ${clean(entry.command, secrets, 200)}${entry.exitCode !== undefined ? ` (exit ${entry.exitCode})` : ""}`,
			];
	}
}

/** Consecutive assistant messages (streamed pieces) read as one. */
function merged(entries: readonly CloudConversationEntry[]): CloudConversationEntry[] {
	const out: CloudConversationEntry[] = [];
	for (const entry of entries) {
		const last = out.at(-1);
		if (entry.kind === "assistant" && last?.kind === "assistant")
			out[out.length - 1] = { ...last, text: last.text + entry.text };
		else out.push(entry);
	}
	return out;
}

/**
 * The conversation of an agent's runs, oldest first: a line per run, then its messages. When the whole is longer than
 * `max`, the oldest lines give way (a line says how many).
 */
export function conversationText(
	runs: readonly RunConversation[],
	secrets: readonly string[],
	max = CONVERSATION_MAX_CHARS,
): string {
	if (runs.length === 0) return "Conversation: none yet.";
	const lines: string[] = [];
	for (const run of runs) {
		lines.push(`── run ${clean(run.runId, secrets, 80)} (${clean(run.status, secrets, 20)})`);
		if (run.missing) lines.push(`  (${clean(run.missing, secrets, 300)})`);
		else if (run.entries?.length) for (const entry of merged(run.entries)) lines.push(...entryLines(entry, secrets));
		else if (run.entries) lines.push("  (no messages)");
	}
	const header = `Conversation (${runs.length} run${runs.length === 1 ? "" : "s"}):`;
	let size = lines.reduce((sum, line) => sum + line.length + 1, header.length);
	let dropped = 0;
	while (size > max && dropped < lines.length - 1) size -= (lines[dropped++] as string).length + 1;
	const kept = lines.slice(dropped).map((line) => (line.length > max ? `${line.slice(0, max - 1)}…` : line));
	return [header, ...(dropped ? [`  … ${dropped} earlier line(s) not shown`] : []), ...kept].join("\n");
}
