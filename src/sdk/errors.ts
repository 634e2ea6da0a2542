// Classifies SDK failures once, at the edge, and renders bounded, scrubbed messages for Pi.

export type CursorErrorKind = "auth" | "network" | "rate-limit" | "module" | "configuration" | "backend";

export interface CursorError {
	kind: CursorErrorKind;
	/** Scrubbed, bounded text for the user. */
	message: string;
}

const MAX_MESSAGE = 600;

// Bearer/Basic credentials: in tool output only token-length values ("Basic understanding" stays).
const AUTH_HEADER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;
const AUTH_HEADER_IN_CONTENT = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{16,}/gi;
// Key-shaped tokens: in messages any `key_…`-like word goes; in tool output (file contents, command output) only
// long ones with a digit, so identifiers such as `user_settings` survive.
const KEY_SHAPED = /\b(key|crsr|sk|cursor|user)_[A-Za-z0-9_-]{6,}/g;
const KEY_SHAPED_IN_CONTENT = /\b(key|crsr|sk|cursor|user)_(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{16,}/g;
// `token = …` pairs: in tool output only a long literal value (not `token: string` or `token = getToken()`).
const SECRET_PAIR = /\b(api[_-]?key|token|authorization)(["']?\s*[:=]\s*["']?)[^\s"',}]+/gi;
const SECRET_PAIR_IN_CONTENT =
	/\b(api[_-]?key|token|authorization)(["']?\s*[:=]\s*["']?)[A-Za-z0-9._~+/=-]{12,}(?![\w(.])/gi;

/**
 * Replaces secrets (keys, bearer tokens, URL userinfo, known secret values) with `[redacted]`; nothing else changes.
 * `content: true` is the gentler variant for tool output.
 */
export function redactSecrets(
	text: string,
	secrets: readonly (string | undefined)[] = [],
	options: { content?: boolean } = {},
): string {
	let out = text;
	for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join("[redacted]");
	// URL userinfo first: the other patterns could eat a URL's scheme (`Bearer https://user:pass@…`) and hide it.
	return out
		.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+(?::[^/\s@]*)?@/gi, "$1[redacted]@")
		.replace(options.content ? AUTH_HEADER_IN_CONTENT : AUTH_HEADER, "$1 [redacted]")
		.replace(options.content ? KEY_SHAPED_IN_CONTENT : KEY_SHAPED, "[redacted]")
		.replace(options.content ? SECRET_PAIR_IN_CONTENT : SECRET_PAIR, "$1$2[redacted]");
}

/** Removes secrets (see {@link redactSecrets}) and stack frames; bounds the length. */
export function scrubText(text: string, secrets: readonly (string | undefined)[] = []): string {
	const withoutFrames = text
		.split("\n")
		.filter((line) => !/^\s+at\s/.test(line))
		.join("\n");
	const out = redactSecrets(withoutFrames, secrets).trim();
	return out.length > MAX_MESSAGE ? `${out.slice(0, MAX_MESSAGE - 1)}…` : out;
}

function describe(error: unknown): { name: string; message: string; code?: string; causeMessage?: string } {
	if (error instanceof Error) {
		const { code, cause } = error as Error & { code?: unknown; cause?: unknown };
		return {
			name: error.name,
			message: error.message,
			...(typeof code === "string" ? { code } : {}),
			...(cause instanceof Error ? { causeMessage: cause.message } : {}),
		};
	}
	return { name: "Error", message: typeof error === "string" ? error : "Unknown error" };
}

/** A Node system error (or undici's connect timeout) found in an SDK error's cause chain. */
interface ConnectionFailure {
	code: string;
	/** Who could not be reached: `host`, `address:port`, or undefined when the error does not say. */
	target: string | undefined;
}

const CONNECTION_CODES = new Set([
	"ENOTFOUND",
	"EAI_AGAIN",
	"ECONNREFUSED",
	"ETIMEDOUT",
	"UND_ERR_CONNECT_TIMEOUT",
	"EHOSTUNREACH",
	"ENETUNREACH",
	"ECONNRESET",
]);

function targetOf(error: Record<string, unknown>): string | undefined {
	if (typeof error.hostname === "string" && error.hostname) return error.hostname;
	if (typeof error.address === "string" && error.address) {
		return typeof error.port === "number" ? `${error.address}:${error.port}` : error.address;
	}
	// undici: "Connect Timeout Error (attempted address: host:443, timeout: 10000ms)"
	const attempted =
		typeof error.message === "string" ? /attempted address(?:es)?: ([^\s,)]+)/.exec(error.message) : null;
	return attempted?.[1];
}

/**
 * The connection failure behind an SDK error (`NetworkError` → `fetch failed` → `connect ECONNREFUSED …`), looking
 * through causes and the attempts of an `AggregateError` (Node tries each address of a host).
 */
function connectionFailure(error: unknown, depth = 0): ConnectionFailure | undefined {
	if (!error || typeof error !== "object" || depth > 6) return undefined;
	const e = error as Record<string, unknown>;
	const own = typeof e.code === "string" && CONNECTION_CODES.has(e.code) ? e.code : undefined;
	const target = own ? targetOf(e) : undefined;
	if (own && target) return { code: own, target };
	for (const attempt of Array.isArray(e.errors) ? e.errors : []) {
		const found = connectionFailure(attempt, depth + 1);
		if (found) return found;
	}
	return connectionFailure(e.cause, depth + 1) ?? (own ? { code: own, target } : undefined);
}

/** What could not be reached and why, and whether that is usually temporary. */
function connectionReason({ code, target }: ConnectionFailure): { reason: string; transient: boolean } {
	const where = target ?? "Cursor's server";
	switch (code) {
		case "ENOTFOUND":
			return { reason: `the name ${where} could not be resolved (DNS lookup failed, ENOTFOUND)`, transient: false };
		case "EAI_AGAIN":
			return { reason: `the DNS lookup of ${where} failed for now (EAI_AGAIN)`, transient: true };
		case "ECONNREFUSED":
			return { reason: `${where} refused the connection (ECONNREFUSED)`, transient: false };
		case "ETIMEDOUT":
		case "UND_ERR_CONNECT_TIMEOUT":
			return { reason: `connecting to ${where} timed out (${code})`, transient: false };
		case "ECONNRESET":
			return { reason: `the connection to ${where} was reset (ECONNRESET)`, transient: true };
		default:
			return { reason: `${where} is unreachable from this machine (${code})`, transient: false };
	}
}

const MODULE_FAILURE =
	/Cannot find (module|package)|ERR_MODULE_NOT_FOUND|ERR_DLOPEN_FAILED|ERR_UNSUPPORTED_ESM_URL_SCHEME|node:sqlite|bun:sqlite|Failed to load/;

/** Classifies an SDK failure: a thrown error, or a run's `[code] message` text. */
export function classifyCursorError(error: unknown, secrets: readonly (string | undefined)[] = []): CursorError {
	const { name, message, code, causeMessage } = describe(error);
	const text = causeMessage && !message.includes(causeMessage) ? `${message} (${causeMessage})` : message;
	const bracket = /^\[([a-z_]+)\]\s*/.exec(message)?.[1];
	const effectiveCode = code ?? bracket;
	const clean = scrubText(text, secrets);
	if (MODULE_FAILURE.test(text)) {
		return {
			kind: "module",
			message: `Cursor SDK failed to load: ${clean}. Reinstall pi-cursor-sdk (npm install) and check that Node >= 22.19 runs Pi; your API key was not used.`,
		};
	}
	if (
		effectiveCode === "unauthenticated" ||
		effectiveCode === "unauthorized" ||
		name === "AuthenticationError" ||
		/Invalid API key|\bHTTP 401\b/i.test(message)
	) {
		return {
			kind: "auth",
			message: `Cursor rejected the API key: ${clean}. Check CURSOR_API_KEY or run /login to store a valid Cursor API key.`,
		};
	}
	if (name === "AgentBusyError") {
		// Not a transient fault: Pi's automatic retry should not hammer it.
		return {
			kind: "backend",
			message:
				"This Cursor Cloud agent is still busy with an earlier run. `/cursor-cloud list` shows it; `/cursor-cloud wait <bc-id>` waits for it (then send again), `/cursor-cloud cancel <bc-id>` stops it, or `/cursor-cloud launch <task>` gives the task to a new agent.",
		};
	}
	if (effectiveCode === "resource_exhausted" || effectiveCode === "rate_limited" || name === "RateLimitError") {
		return { kind: "rate-limit", message: `Cursor rate limit or quota reached: ${clean}. Wait and retry.` };
	}
	const connection = connectionFailure(error);
	if (connection) {
		// "network error" is wording Pi's automatic retry recognises.
		const { reason, transient } = connectionReason(connection);
		const message = transient
			? `Cursor connection failed (network error): ${scrubText(reason, secrets)}. This is usually temporary: retry.`
			: `Cursor could not be reached (network error): ${scrubText(reason, secrets)}. Check your network connection, proxy or firewall, then retry.`;
		return { kind: "network", message };
	}
	if (
		effectiveCode === "unavailable" ||
		name === "NetworkError" ||
		/Failed to connect|fetch failed|ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|Network request failed|Stream ended without turnEnded|Connection stalled|socket hang up/i.test(
			text,
		)
	) {
		// "network error" is wording Pi's automatic retry recognises (a bare "[unavailable] …" would not be retried).
		return {
			kind: "network",
			message: `Cursor connection failed (network error): ${clean}. This is usually temporary: retry.`,
		};
	}
	if (name === "ConfigurationError" || effectiveCode === "invalid_argument") {
		return { kind: "configuration", message: `Cursor rejected the request: ${clean}` };
	}
	return { kind: "backend", message: `Cursor error: ${clean}` };
}
