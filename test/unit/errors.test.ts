import { describe, expect, test } from "bun:test";
import { type AssistantMessage, isContextOverflow, isRetryableAssistantError } from "@earendil-works/pi-ai";
import { AGENT_BUSY_ELSEWHERE, classifyCursorError, isActiveRunError, scrubText } from "../../src/sdk/errors.ts";

describe("scrubText", () => {
	test.each([
		["an API key by value", "bad key sk-live-1234567890", ["sk-live-1234567890"], "sk-live"],
		["a key-shaped token", "exchange failed for key_abcdef1234567890", [], "key_abcdef"],
		["a bearer token", "Authorization: Bearer eyJhbGciOi.payload.sig", [], "eyJhbGciOi"],
		["URL userinfo", "connect https://user:hunter2@api.example.com failed", [], "hunter2"],
		["an api_key=value pair", "request api_key=abc123secret rejected", [], "abc123secret"],
	])("removes %s", (_name, text, secrets, secret) => {
		const scrubbed = scrubText(text, secrets);
		expect(scrubbed).not.toContain(secret);
		expect(scrubbed).toContain("[redacted]");
	});

	test("drops stack frames and bounds the length", () => {
		const error = `Error: boom\n    at foo (/x/y.js:1:2)\n    at bar (/x/z.js:3:4)\n${"x".repeat(2000)}`;
		const scrubbed = scrubText(error);
		expect(scrubbed).not.toContain(" at foo");
		expect(scrubbed.length).toBeLessThanOrEqual(600);
	});
});

describe("classifyCursorError", () => {
	test.each([
		["[unauthenticated] Invalid API key", "auth", /CURSOR_API_KEY or run \/login/],
		["[unknown] Invalid API key. Please check your Cursor API key and try again.", "auth", /\/login/],
		["[unauthenticated] HTTP 401", "auth", /\/login/],
		["[unavailable] backend overloaded", "network", /retry/],
		["[unknown] Failed to connect to API key exchange endpoint: fetch failed", "network", /retry/],
		["Stream ended without turnEnded — connection likely dropped mid-stream", "network", /retry/],
		["[resource_exhausted] quota", "rate-limit", /retry/],
		["Cannot find module './626.js'", "module", /API key was not used/],
		["[internal] something broke", "backend", /something broke/],
	])("%s → %s", (message, kind, hint) => {
		const classified = classifyCursorError(new Error(message));
		expect(classified.kind).toBe(kind as never);
		expect(classified.message).toMatch(hint);
	});

	test("module-loading failures are never blamed on the key", () => {
		const classified = classifyCursorError(new Error("Cannot find package '@cursor/sdk' imported from /x"));
		expect(classified.kind).toBe("module");
		expect(classified.message).not.toMatch(/rejected the API key/);
	});

	test("uses error names of the SDK's (minified) classes and scrubs the key", () => {
		const error = Object.assign(new Error("Network request failed for key_supersecret99"), { name: "NetworkError" });
		const classified = classifyCursorError(error, ["key_supersecret99"]);
		expect(classified.kind).toBe("network");
		expect(classified.message).not.toContain("supersecret");
	});

	describe("a connection that could not be made names what and why", () => {
		/** The SDK's shape: NetworkError("Network request failed") → TypeError("fetch failed") → Node's system error. */
		const sdkNetworkError = (system: object) =>
			Object.assign(new Error("Network request failed", { cause: new TypeError("fetch failed", { cause: system }) }), {
				name: "NetworkError",
			});
		const systemError = (message: string, fields: object) => Object.assign(new Error(message), fields);

		test.each([
			[
				"refused",
				systemError("connect ECONNREFUSED 127.0.0.1:45999", {
					code: "ECONNREFUSED",
					address: "127.0.0.1",
					port: 45999,
				}),
				"127.0.0.1:45999 refused the connection (ECONNREFUSED)",
			],
			[
				"DNS",
				systemError("getaddrinfo ENOTFOUND api.example.invalid", {
					code: "ENOTFOUND",
					hostname: "api.example.invalid",
				}),
				"the name api.example.invalid could not be resolved (DNS lookup failed, ENOTFOUND)",
			],
			[
				"connect timeout",
				systemError("Connect Timeout Error (attempted address: api.example.com:443, timeout: 10000ms)", {
					code: "UND_ERR_CONNECT_TIMEOUT",
				}),
				"connecting to api.example.com:443 timed out (UND_ERR_CONNECT_TIMEOUT)",
			],
			[
				"every address of a host refused",
				Object.assign(
					new AggregateError(
						[systemError("connect ECONNREFUSED ::1:443", { code: "ECONNREFUSED", address: "::1", port: 443 })],
						"",
					),
					{ code: "ECONNREFUSED" },
				),
				"::1:443 refused the connection (ECONNREFUSED)",
			],
		])("%s: says who and why, and never calls it usually temporary", (_name, system, reason) => {
			const classified = classifyCursorError(sdkNetworkError(system));
			expect(classified.kind).toBe("network");
			expect(classified.message).toBe(
				`Cursor could not be reached (network error): ${reason}. Check your network connection, proxy or firewall, then retry.`,
			);
		});

		test("a reset connection is usually temporary", () => {
			const reset = systemError("read ECONNRESET", { code: "ECONNRESET", address: "10.0.0.1", port: 443 });
			expect(classifyCursorError(sdkNetworkError(reset)).message).toBe(
				"Cursor connection failed (network error): the connection to 10.0.0.1:443 was reset (ECONNRESET). This is usually temporary: retry.",
			);
		});

		test("without a system error behind it, the SDK's own text is kept", () => {
			const classified = classifyCursorError(sdkNetworkError({}));
			expect(classified.message).toStartWith("Cursor connection failed (network error): Network request failed");
		});
	});
});

describe("context overflow reaches Pi as its own context-overflow error (Pi compacts and retries)", () => {
	const asPiSees = (errorMessage: string) =>
		({
			role: "assistant",
			content: [],
			api: "cursor",
			provider: "cursor",
			model: "composer-2.5",
			usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: {} },
			stopReason: "error",
			errorMessage,
			timestamp: 0,
		}) as unknown as AssistantMessage;

	test.each([
		"[invalid_argument] Input length exceeds the maximum context length",
		"[unknown] Input length exceeds the maximum context length (212345 > 200000)",
		"[internal] This model's maximum context length is 200000 tokens",
		"[invalid_argument] prompt is too long: 210000 tokens > 200000 maximum",
		"[failed_precondition] context_length_exceeded",
		"Your conversation is too long. Please start a new chat.",
		"[invalid_argument] request exceeds the model's context window",
	])("%s", (text) => {
		const classified = classifyCursorError(new Error(text));
		expect(classified.kind).toBe("context-overflow");
		expect(classified.message).toStartWith("Cursor context overflow:");
		expect(isContextOverflow(asPiSees(classified.message))).toBe(true);
	});

	test.each([
		"[resource_exhausted] too many input tokens per minute: rate limit",
		"[internal] something broke",
		"[unavailable] backend overloaded",
	])("not an overflow: %s", (text) => {
		const classified = classifyCursorError(new Error(text));
		expect(classified.kind).not.toBe("context-overflow");
		expect(isContextOverflow(asPiSees(classified.message))).toBe(false);
	});
});

describe("a local agent busy in another Pi process", () => {
	const sdkError = new Error("Agent agent-3f2a0500-500a-4b1c-9d2e-000000000500 already has active run");

	test("is said plainly, without the agent id or the SDK's words", () => {
		const classified = classifyCursorError(sdkError);
		expect(classified.message).toBe(AGENT_BUSY_ELSEWHERE);
		expect(classified.message).not.toMatch(/agent-|active run/);
		expect(isActiveRunError(sdkError)).toBe(true);
		expect(isActiveRunError(new Error("wrapped", { cause: sdkError }))).toBe(true);
		expect(isActiveRunError(new Error("[unavailable] fetch failed"))).toBe(false);
	});

	test("is not retried by Pi: its text matches none of Pi's retryable patterns", () => {
		const message = { role: "assistant", stopReason: "error", errorMessage: classifyCursorError(sdkError).message };
		expect(isRetryableAssistantError(message as never)).toBe(false);
	});
});
