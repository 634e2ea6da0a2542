// In-process Pi sessions (the SDK's `createAgentSession`) with our `CursorExtension` on an injected `CursorSdk`
// (usually test/support/fake-sdk.ts). Each harness session has its own ModelRuntime, resource loader, in-memory
// SessionManager and extension instance, like independent sessions embedded in one host process.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryCredentialStore, InMemoryModelsStore } from "@earendil-works/pi-ai";
import {
	type AgentSession,
	type AgentSessionEvent,
	createAgentSession,
	DefaultResourceLoader,
	type ExtensionFactory,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { CursorExtension } from "../../src/extension.ts";
import type { CursorSdk } from "../../src/sdk/cursor-sdk.ts";

export interface HarnessOptions {
	sdk: CursorSdk;
	/** Cursor model id (default "composer-2"). */
	model?: string;
	apiKey?: string;
	/** Pi settings (in memory), e.g. `{ compaction: { keepRecentTokens: 1 } }`. */
	settings?: Record<string, unknown>;
	/** Pi's mode as the extension sees it (default "json": no UI, the full turn shape). */
	mode?: "json" | "rpc";
	/** Other extensions, loaded before and after ours (load order decides who owns a tool name). */
	extensions?: { before?: ExtensionFactory[]; after?: ExtensionFactory[] };
}

export interface HarnessSession {
	readonly session: AgentSession;
	readonly extension: CursorExtension;
	readonly runtime: ModelRuntime;
	/** Every session event, in order. */
	readonly events: AgentSessionEvent[];
	/** Extension errors reported through the bindings. */
	readonly extensionErrors: unknown[];
	readonly dir: string;
	/** Custom entries of the current branch (`customType` → data), in order. */
	customEntries(customType?: string): { customType: string; data: unknown }[];
	/** Assistant messages that ended with an error (none expected in a healthy run). */
	errorMessages(): { stopReason: string; errorMessage?: string }[];
	/** session_shutdown (as Pi emits it on quit), then dispose; removes the temp dir. Idempotent. */
	close(): Promise<void>;
}

export async function createHarnessSession(options: HarnessOptions): Promise<HarnessSession> {
	const dir = mkdtempSync(join(tmpdir(), "pi-cursor-harness-"));
	const agentDir = join(dir, "agent");
	let extension: CursorExtension | undefined;
	try {
		// Credentials and model store in memory: nothing is written behind the test's back (or after close).
		const runtime = await ModelRuntime.create({
			credentials: new InMemoryCredentialStore(),
			modelsStore: new InMemoryModelsStore(),
			modelsPath: null,
		});
		const loader = new DefaultResourceLoader({
			cwd: dir,
			agentDir,
			noExtensions: true,
			noSkills: true,
			noPromptTemplates: true,
			noThemes: true,
			noContextFiles: true,
			extensionFactories: [
				...(options.extensions?.before ?? []),
				(pi) => {
					extension = new CursorExtension(pi, options.sdk, agentDir);
					extension.register();
				},
				...(options.extensions?.after ?? []),
			],
		});
		await loader.reload();
		const { session } = await createAgentSession({
			cwd: dir,
			agentDir,
			modelRuntime: runtime,
			resourceLoader: loader,
			settingsManager: SettingsManager.inMemory(options.settings ?? {}),
			sessionManager: SessionManager.inMemory(dir),
		});
		const events: AgentSessionEvent[] = [];
		session.subscribe((event) => {
			events.push(event);
		});
		const extensionErrors: unknown[] = [];
		// JSON mode by default: no UI, but the full turn shape (tool cards), like `pi --mode json`.
		await session.bindExtensions({ mode: options.mode ?? "json", onError: (error) => extensionErrors.push(error) });
		await runtime.setRuntimeApiKey("cursor", options.apiKey ?? "key_test_harness");
		const model = runtime.getModel("cursor", options.model ?? "composer-2");
		if (!model) throw new Error(`no cursor model ${options.model ?? "composer-2"} in the harness runtime`);
		await session.setModel(model);
		const ext = extension;
		if (!ext) throw new Error("the Cursor extension factory did not run");
		let closed = false;
		return {
			session,
			extension: ext,
			runtime,
			events,
			extensionErrors,
			dir,
			customEntries(customType) {
				return session.sessionManager
					.getBranch()
					.filter((e) => e.type === "custom" && (customType === undefined || e.customType === customType))
					.map((e) => {
						const entry = e as { customType: string; data?: unknown };
						return { customType: entry.customType, data: entry.data };
					});
			},
			errorMessages() {
				return events
					.filter((e) => e.type === "message_end" && e.message.role === "assistant")
					.map((e) => (e as { message: { stopReason: string; errorMessage?: string } }).message)
					.filter((m) => m.stopReason === "error");
			},
			async close() {
				if (closed) return;
				closed = true;
				try {
					await session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
				} finally {
					session.dispose();
					rmSync(dir, { recursive: true, force: true });
				}
			},
		};
	} catch (error) {
		rmSync(dir, { recursive: true, force: true });
		throw error;
	}
}
