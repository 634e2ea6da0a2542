// Classifies SDK failures once, at the edge, and renders bounded, scrubbed messages for Pi.

export type CursorErrorKind =
	| "auth"
	| "network"
	| "rate-limit"
	| "context-overflow"
	| "module"
	| "configuration"
	| "backend";

export interface CursorError {
	kind: CursorErrorKind;
	/** Scrubbed, bounded text for the user. */
	message: string;
}

const MAX_MESSAGE = 600;

// The one scrubber: every message path (errors, notices, tool cards and traces, debug and event logs, echoed settings)
// goes through `redactSecrets`. Rules, in order:
// - URL userinfo (`scheme://user:pass@host`, the password may hold `@` and `:`) and SCP-style userinfo
//   (`user:pass@host:path`; a bare `git@` stays);
// - cookies (`Cookie:` / `Set-Cookie:` headers and `"cookie": …` fields: the whole value);
// - query parameters named like a credential (`?access_token=…`, `&sig=…`, `&session_id=…`);
// - Bearer/Basic credentials, key-shaped tokens and `name = value` pairs of credential names (keys, tokens,
//   passwords, secrets, session ids).

// URL userinfo: everything between `scheme://` and the authority's last `@`.
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^\s/?#"<>]*@/gi;
// SCP-style `user[:password]@host:path` (the password may hold `@` and `:`); a plain `git@host:` is no secret.
const SCP_USERINFO =
	/(^|[\s"'=(,[<])(?!git@)([^\s@/"'=(,[\]<>:]+(?::[^\s/"<>]*)?)@(?=[A-Za-z0-9][A-Za-z0-9.-]*:(?!\/\/))/g;
// Cookie headers and fields: the whole value (every cookie of the header).
const COOKIE_HEADER = /\b((?:set-)?cookie\s*:\s*)[^"\r\n]+/gi;
const COOKIE_FIELD = /(\\?["']?\b(?:set-)?cookies?\\?["']?\s*[:=]\s*\\?["'])[^"\r\n\\]*/gi;
// Query parameters whose name says credential.
const QUERY_SECRET =
	/([?&;][^=&\s#"']*(?:token|key|secret|sig|signature|password|passwd|pwd|auth|session|sid|credential|code)[^=&\s#"']*=)[^&\s#"']+/gi;
// Bearer/Basic credentials: in tool output only token-length values ("Basic understanding" stays).
const AUTH_HEADER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;
const AUTH_HEADER_IN_CONTENT = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{16,}/gi;
// Key-shaped tokens: in messages any `key_…`-like word goes; in tool output (file contents, command output) only
// long ones with a digit, so identifiers such as `user_settings` survive.
const KEY_SHAPED = /\b(key|crsr|sk|cursor|user)_[A-Za-z0-9_-]{6,}/g;
const KEY_SHAPED_IN_CONTENT = /\b(key|crsr|sk|cursor|user)_(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{16,}/g;
// `token = …` pairs of credential names: in tool output only a long literal value (not `token: string` or
// `token = getToken()`). Session ids go in both variants, whatever their length; a bare `session` or `sid` counts only
// as `session=…` (cookie style): "this session: …" is prose. The separator may be JSON, escaped or not (`\":\"`).
const SEPARATOR = `(\\\\?["']?\\s*[:=]\\s*\\\\?["']?)`;
const SECRET_NAME =
	"api[_-]?key|(?:access[_-]?|refresh[_-]?|id[_-]?|csrf[_-]?|xsrf[_-]?)?token|authorization|password|passwd|client[_-]?secret|secret";
const SECRET_PAIR = new RegExp(`\\b(${SECRET_NAME})${SEPARATOR}[^\\s"',;&}]+`, "gi");
const SECRET_PAIR_IN_CONTENT = new RegExp(`\\b(${SECRET_NAME})${SEPARATOR}[A-Za-z0-9._~+/=-]{12,}(?![\\w(.])`, "gi");
const SESSION_PAIR = new RegExp(
	`\\b((?:[a-z]+[_-]?)?session[_-]?(?:id|token|key)|j?sessionid|phpsessid)${SEPARATOR}[^\\s"',;&}\\\\]+`,
	"gi",
);
const SESSION_COOKIE = /\b(session|sid)=[^\s"',;&}]+/gi;
// An `Authorization:` header's credential, whatever its length (also in tool output).
const AUTHORIZATION_HEADER = /\b(authorization\s*:\s*)(?:(Bearer|Basic|token)\s+)?[^\s"',;]+/gi;

/**
 * Replaces secrets (userinfo, cookies, credential query parameters, keys, bearer tokens, credential pairs and known
 * secret values) with `[redacted]`; nothing else changes. `content: true` is the gentler variant for tool output.
 */
export function redactSecrets(
	text: string,
	secrets: readonly (string | undefined)[] = [],
	options: { content?: boolean } = {},
): string {
	let out = text;
	for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join("[redacted]");
	// Userinfo first: the other patterns could eat a URL's scheme (`Bearer https://user:pass@…`) and hide it.
	return out
		.replace(URL_USERINFO, "$1[redacted]@")
		.replace(SCP_USERINFO, "$1[redacted]@")
		.replace(COOKIE_HEADER, "$1[redacted]")
		.replace(COOKIE_FIELD, "$1[redacted]")
		.replace(QUERY_SECRET, "$1[redacted]")
		.replace(
			AUTHORIZATION_HEADER,
			(_m, head: string, scheme?: string) => `${head}${scheme ? `${scheme} ` : ""}[redacted]`,
		)
		.replace(options.content ? AUTH_HEADER_IN_CONTENT : AUTH_HEADER, "$1 [redacted]")
		.replace(options.content ? KEY_SHAPED_IN_CONTENT : KEY_SHAPED, "[redacted]")
		.replace(options.content ? SECRET_PAIR_IN_CONTENT : SECRET_PAIR, "$1$2[redacted]")
		.replace(SESSION_PAIR, "$1$2[redacted]")
		.replace(SESSION_COOKIE, "$1=[redacted]");
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

/**
 * Cursor's wordings for a prompt longer than the model's context ("Input length exceeds the maximum context length"
 * and the providers' own texts it passes on). Rate limits that mention tokens are not overflows.
 */
const CONTEXT_OVERFLOW =
	/input length exceeds the maximum context length|exceeds (?:the )?(?:model'?s )?(?:maximum )?context (?:length|window)|maximum context length|context[_ ](?:length|window)[_ ]exceeded|prompt (?:is )?too long|input is too long|too many input tokens|conversation (?:is )?too long|token limit exceeded/i;
const NOT_OVERFLOW = /rate limit|too many requests|resource_exhausted|quota/i;

/**
 * What Pi reads as a context overflow (its `isContextOverflow` matches "exceeds the context window"): Pi then
 * compacts the session and retries the turn. Kept free of Pi's non-overflow words ("rate limit", "too many requests").
 */
export function contextOverflowMessage(detail: string): string {
	return `Cursor context overflow: the prompt exceeds the context window of this model (${detail}). Pi compacts the session and retries.`;
}

const MODULE_FAILURE =
	/Cannot find (module|package)|ERR_MODULE_NOT_FOUND|ERR_DLOPEN_FAILED|ERR_UNSUPPORTED_ESM_URL_SCHEME|node:sqlite|bun:sqlite|Failed to load/;

/** The SDK's refusal to start a run on a local agent whose store records another run as active. */
const ACTIVE_RUN = /\balready has active run\b/;

/** Whether an SDK failure is the local store's "Agent … already has active run". */
export function isActiveRunError(error: unknown): boolean {
	const { message, causeMessage } = describe(error);
	return ACTIVE_RUN.test(message) || (causeMessage !== undefined && ACTIVE_RUN.test(causeMessage));
}

export const AGENT_BUSY_ELSEWHERE =
	"This session's Cursor agent is busy with a turn in another Pi process (a Cursor agent runs one turn at a time), so nothing was sent. Send your message again to go on here with a new Cursor agent that gets the whole conversation; the other Pi keeps the current one. Or wait until the other Pi is done and reopen the session there.";

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
	if (CONTEXT_OVERFLOW.test(text) && !NOT_OVERFLOW.test(text)) {
		return { kind: "context-overflow", message: contextOverflowMessage(clean) };
	}
	if (ACTIVE_RUN.test(text)) {
		// A local agent runs one turn at a time and another Pi process holds this one (a crashed process's run is
		// recovered before it gets here). Said once: no wording Pi's automatic retry recognises, no agent id.
		return { kind: "backend", message: AGENT_BUSY_ELSEWHERE };
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
