// One-line traces of Cursor tool activity: print mode's stderr lines and the transcript fallback when no card can be
// shown. Plain text only: no ANSI, no control characters, no secrets, bounded.
import type { ReplayCard } from "./mapping.ts";
import { LINE_MAX_CHARS, oneLine, sanitize } from "./text.ts";

function outcome(card: ReplayCard): string {
	const { result } = card;
	const { status, exitCode } = result.details;
	if (status === "incomplete") return "did not complete";
	if (exitCode !== undefined) return `exit ${exitCode}`;
	if (result.isError) {
		const first = result.text.split("\n").find((l) => l.trim() !== "") ?? "";
		return `failed: ${oneLine(first, 80)}`;
	}
	return status === "no-result" ? "no result" : "done";
}

/** `Cursor shell: npm test → exit 0` (already scrubbed; bounded to one line). */
export function formatActivityLine(card: ReplayCard): string {
	const { title, summary } = card.activity;
	const text = `${summary ? `${title}: ${summary}` : title} → ${outcome(card)}`;
	return oneLine(sanitize(text), LINE_MAX_CHARS);
}

/** The stderr line print mode writes for a card (newline not included). */
export function formatPrintTrace(card: ReplayCard): string {
	return `[cursor] ${formatActivityLine(card).replace(/^Cursor /, "")}`;
}
