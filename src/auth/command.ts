// `/cursor-login` and `/cursor-logout`: the same sign-in as Pi's `/login` → Cursor, for where Pi has no `/login`
// (RPC clients; any mode with dialogs). The credential still goes through Pi's own login, into Pi's auth.json.

import type { AuthInteraction, AuthPrompt, AuthType } from "@earendil-works/pi-ai";
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { PROVIDER_ID } from "../catalog/state.ts";
import { scrubText } from "../sdk/errors.ts";
import type { Notify } from "../ui/types.ts";
import { ACCOUNT_LOGIN_LABEL } from "./credentials.ts";

const PASTE_LABEL = "Paste an API key";
const CANCELLED = "Login cancelled";

/** The part of Pi's model runtime that logs in and out (what its `/login` and `/logout` call). */
interface PiCredentialRuntime {
	login(providerId: string, type: AuthType, interaction: AuthInteraction): Promise<unknown>;
	logout(providerId: string, options?: { signal?: AbortSignal }): Promise<void>;
}

/**
 * Pi 0.87.1–1.6.0 give extensions no public way to store a credential; the registry they get wraps the runtime
 * that Pi's `/login` uses. Reached here only, and only when it has that shape.
 */
function credentialRuntime(registry: unknown): PiCredentialRuntime | undefined {
	const runtime = (registry as { runtime?: Partial<PiCredentialRuntime> } | undefined)?.runtime;
	return typeof runtime?.login === "function" && typeof runtime.logout === "function"
		? (runtime as PiCredentialRuntime)
		: undefined;
}

const UNSUPPORTED = "This Pi does not let extensions store credentials: use /login → Cursor in Pi's terminal UI.";

/** Pi's login prompts, answered through the extension UI (select, input, notify). */
function dialogInteraction(ctx: ExtensionCommandContext, signal: AbortSignal, onUrl: () => void): AuthInteraction {
	const prompt = async (request: AuthPrompt): Promise<string> => {
		if (request.type === "select") {
			const labels = request.options.map((option) => option.label);
			const label = await ctx.ui.select(request.message, labels, { signal });
			const id = request.options.find((option) => option.label === label)?.id;
			if (!id) throw new Error(CANCELLED);
			return id;
		}
		const answer = await ctx.ui.input(request.message, request.placeholder, { signal });
		if (answer === undefined) throw new Error(CANCELLED);
		return answer;
	};
	return {
		signal,
		prompt,
		notify: (event) => {
			if (event.type === "auth_url") {
				ctx.ui.notify(
					`Sign in to Cursor: open ${event.url}${event.instructions ? `\n${event.instructions}` : ""}`,
					"info",
				);
				onUrl();
			} else if (event.type === "info" || event.type === "progress") ctx.ui.notify(event.message, "info");
		},
	};
}

async function cursorLogin(args: string, ctx: ExtensionCommandContext, notify: Notify): Promise<void> {
	const runtime = credentialRuntime(ctx.modelRegistry);
	if (!runtime) return notify(UNSUPPORTED, "error");
	if (!ctx.hasUI) return notify("/cursor-login needs dialogs (TUI or RPC). Set CURSOR_API_KEY instead.", "error");
	const arg = args.trim().toLowerCase();
	const method =
		arg === "browser" || arg === "account"
			? ACCOUNT_LOGIN_LABEL
			: arg === "key"
				? PASTE_LABEL
				: await ctx.ui.select("Sign in to Cursor:", [ACCOUNT_LOGIN_LABEL, PASTE_LABEL]);
	if (!method) return;
	const type: AuthType = method === PASTE_LABEL ? "api_key" : "oauth";
	const login = new AbortController();
	const waiting = new AbortController();
	// While the browser step runs, a dialog offers to cancel it (Pi's own /login cancels with Esc).
	const offerCancel = () => {
		void ctx.ui
			.select("Waiting for the Cursor sign-in in the browser…", ["Cancel sign-in"], { signal: waiting.signal })
			.then(() => {
				if (!waiting.signal.aborted) login.abort();
			});
	};
	try {
		await runtime.login(PROVIDER_ID, type, dialogInteraction(ctx, login.signal, offerCancel));
		notify(
			type === "oauth"
				? "Signed in to Cursor. The key is stored in Pi's auth.json; /cursor-doctor shows its account and expiry."
				: "Saved the Cursor API key in Pi's auth.json.",
			"info",
		);
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		if (login.signal.aborted || message === CANCELLED) notify("Cursor sign-in cancelled: nothing was stored.", "info");
		else notify(scrubText(message), "error");
	} finally {
		waiting.abort();
	}
}

async function cursorLogout(ctx: ExtensionCommandContext, notify: Notify): Promise<void> {
	const runtime = credentialRuntime(ctx.modelRegistry);
	if (!runtime) return notify(UNSUPPORTED.replace("/login", "/logout"), "error");
	// Pi refreshes the provider afterwards; an account sign-in then says how long its key stays valid.
	await runtime.logout(PROVIDER_ID, { signal: AbortSignal.timeout(15_000) });
	notify("Removed the stored Cursor credential from Pi's auth.json. CURSOR_API_KEY, if set, is unchanged.", "info");
}

export function registerAuthCommands(pi: ExtensionAPI, notify: Notify): void {
	pi.registerCommand("cursor-login", {
		description: "Sign in to Cursor: your account in the browser (`browser`) or a pasted API key (`key`)",
		handler: (args, ctx) => cursorLogin(args ?? "", ctx, notify),
	});
	pi.registerCommand("cursor-logout", {
		description: "Remove the Cursor sign-in or API key stored in Pi's auth.json",
		handler: (_args, ctx) => cursorLogout(ctx, notify),
	});
}
