// Context windows learned from real runs, for models whose catalog entry has no `context` parameter (their window
// cannot be read from the model id). After a successful local run the SDK checkpoint's `tokenDetails.maxTokens` is
// stored in a private cache in Pi's agent dir; the next start builds the rows with it. Startup only reads the file:
// no model is ever probed to learn a window.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { atomicWrite } from "../fs/atomic-file.ts";
import { contextValues } from "./capabilities.ts";
import type { CatalogItem, ContextWindowTable } from "./types.ts";

export const LEARNED_WINDOWS_FILENAME = "cursor-sdk-context-windows.json";

/** Windows outside this range are not believed (a corrupt checkpoint must not shrink a row to nothing). */
const MIN_WINDOW = 1_000;
const MAX_WINDOW = 100_000_000;

/** Learned windows by Cursor base model id. */
export type LearnedWindows = Readonly<Record<string, number>>;

interface LearnedDocument {
	version: 1;
	windows: Record<string, { maxTokens: number; observedAt: number }>;
}

export function learnedWindowsPath(agentDir: string): string {
	return join(agentDir, LEARNED_WINDOWS_FILENAME);
}

export function isPlausibleWindow(value: unknown): value is number {
	return typeof value === "number" && Number.isInteger(value) && value >= MIN_WINDOW && value <= MAX_WINDOW;
}

function readDocument(path: string): LearnedDocument {
	try {
		const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<LearnedDocument>;
		if (parsed?.version === 1 && parsed.windows && typeof parsed.windows === "object") {
			const windows: LearnedDocument["windows"] = {};
			for (const [id, entry] of Object.entries(parsed.windows)) {
				if (isPlausibleWindow(entry?.maxTokens)) {
					windows[id] = { maxTokens: entry.maxTokens, observedAt: Number(entry.observedAt) || 0 };
				}
			}
			return { version: 1, windows };
		}
	} catch {
		// missing or unreadable: nothing learned yet
	}
	return { version: 1, windows: {} };
}

/** The learned windows (never throws; invalid entries are ignored). */
export function readLearnedWindows(path: string): LearnedWindows {
	const windows: Record<string, number> = {};
	for (const [id, entry] of Object.entries(readDocument(path).windows)) windows[id] = entry.maxTokens;
	return windows;
}

/** Stores a learned window; returns whether the file changed. */
export async function recordLearnedWindow(
	path: string,
	baseId: string,
	maxTokens: number,
	now: number,
): Promise<boolean> {
	if (!isPlausibleWindow(maxTokens)) return false;
	const document = readDocument(path);
	if (document.windows[baseId]?.maxTokens === maxTokens) return false;
	document.windows[baseId] = { maxTokens, observedAt: now };
	await atomicWrite(path, `${JSON.stringify(document, null, 2)}\n`);
	return true;
}

export function hasContextParameter(item: CatalogItem): boolean {
	return (item.parameters ?? []).some((param) => param.id === "context") || contextValues(item).length > 0;
}

/** The base id of the catalog model a selection id (base id or alias) names, when that model has no `context`. */
export function contextlessBaseId(items: readonly CatalogItem[], selectionId: string): string | undefined {
	const item =
		items.find((candidate) => candidate.id === selectionId) ??
		items.find((candidate) => candidate.aliases?.includes(selectionId));
	return item && !hasContextParameter(item) ? item.id : undefined;
}

/**
 * The context-window table with learned windows in charge of their models: for each model without a `context`
 * parameter that has a learned window, every table key naming it (base id, aliases, `:fast`/`:slow` keys) is
 * replaced by the learned value under its base id.
 */
export function applyLearnedWindows(
	table: ContextWindowTable,
	items: readonly CatalogItem[],
	learned: LearnedWindows,
): ContextWindowTable {
	const result: Record<string, number> = { ...table };
	for (const item of items) {
		const window = learned[item.id];
		if (window === undefined || !isPlausibleWindow(window) || hasContextParameter(item)) continue;
		const names = [item.id, ...(item.aliases ?? [])];
		for (const key of Object.keys(result)) {
			const unsuffixed = key.replace(/:(fast|slow)$/, "");
			if (names.includes(unsuffixed)) delete result[key];
		}
		result[item.id] = window;
	}
	return result;
}

export interface WindowLearnerOptions {
	path: string;
	/** The catalog the selection ids are looked up in. */
	items: () => readonly CatalogItem[];
	/** The checkpoint's `tokenDetails.maxTokens` for an agent, when the SDK has one. */
	readWindow: (agentId: string) => Promise<number | undefined>;
	now?: () => number;
}

/** After each successful send on a model without a `context` parameter, stores the checkpoint's window. */
export class WindowLearner {
	private readonly pending = new Set<Promise<void>>();

	constructor(private readonly options: WindowLearnerOptions) {}

	sendEnded(send: { outcome: string; kind: string; agentId: string | undefined; model: { id: string } }): void {
		const { agentId } = send;
		if (send.outcome !== "finished" || send.kind === "summary" || agentId === undefined) return;
		const baseId = contextlessBaseId(this.options.items(), send.model.id);
		if (!baseId) return;
		const work = this.options
			.readWindow(agentId)
			.then(async (max) => {
				if (max !== undefined)
					await recordLearnedWindow(this.options.path, baseId, max, (this.options.now ?? Date.now)());
			})
			.catch(() => {
				// learning is best effort: the bundled window stays
			})
			.finally(() => this.pending.delete(work));
		this.pending.add(work);
	}

	/** Waits (bounded) for windows still being stored, e.g. before the session's stores close. */
	async flush(timeoutMs = 2_000): Promise<void> {
		if (this.pending.size === 0) return;
		let timer: ReturnType<typeof setTimeout> | undefined;
		await Promise.race([
			Promise.all(this.pending),
			new Promise<void>((resolve) => {
				timer = setTimeout(resolve, timeoutMs);
			}),
		]);
		clearTimeout(timer);
	}
}
