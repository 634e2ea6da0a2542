// The API key, and any URL with userinfo, never appear in what we show or store, whatever input carries them: SDK
// errors and run failures, Cursor's tool calls (cards, activity lines, print traces), `cursor-sdk.json` values and
// PI_CURSOR_* values echoed in warnings. (Cursor's own answer text is the model's and is shown as it is.)
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readBridgeSettings } from "../../src/bridge/settings.ts";
import { readMcpTimeoutSettings } from "../../src/process/mcp-timeouts.ts";
import { mapCompletedToolCall, mapIncompleteToolCall } from "../../src/replay/mapping.ts";
import { formatActivityLine, formatPrintTrace } from "../../src/replay/trace.ts";
import { classifyCursorError } from "../../src/sdk/errors.ts";
import { chooseStoreRoot, prepareStoreRoot, unsafeRootMessage } from "../../src/session/store-root.ts";
import { CursorSdkConfigFile } from "../../src/settings/config-file.ts";
import { readEnv } from "../../src/settings/env.ts";
import { fc, PropertyTarget } from "../support/property.ts";
import { driveTurn } from "../support/turn-driver.ts";

const target = new PropertyTarget("secrets");
const dir = mkdtempSync(join(tmpdir(), "pi-cursor-secrets-property-"));
afterAll(() => {
	target.report();
	rmSync(dir, { recursive: true, force: true });
});

/** Keys shaped like Cursor's, and URLs with a user and password (a proxy, a backend). */
const key = fc.oneof(
	fc.stringMatching(/^[0-9a-f]{64}$/).map((hex) => `key_${hex}`),
	fc.stringMatching(/^[A-Za-z0-9]{40}$/).map((body) => `crsr_${body}`),
);
const userinfoUrl = fc
	.record({
		scheme: fc.constantFrom("https", "http", "socks5"),
		user: fc.stringMatching(/^[A-Za-z0-9._~-]{3,10}$/),
		// Distinctive (a digit and a mark around random text), so no ordinary word contains it by chance.
		password: fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=%-]{6,14}$/).map((p) => `7${p}!`),
		host: fc.constantFrom("proxy.example:8080", "10.0.0.1", "api.cursor.com"),
	})
	.map((u) => ({ ...u, url: `${u.scheme}://${u.user}:${u.password}@${u.host}/v1` }));
const secrets = fc.record({ key, proxy: userinfoUrl });
type Secrets = typeof secrets extends fc.Arbitrary<infer T> ? T : never;

/** Text around a secret the way errors and outputs carry it. */
const carrier = fc.constantFrom(
	(s: string) => s,
	(s: string) => `request failed: ${s}`,
	(s: string) => `{"apiKey":"${s}"}`,
	(s: string) => `Authorization: Bearer ${s}`,
	(s: string) => `[unauthenticated] (${s})\n    at fetch (node:internal)`,
	(s: string) => `"${s}"`,
	(s: string) => `value=${s};`,
);

function leaked(text: string, s: Secrets): string[] {
	const found: string[] = [];
	if (text.includes(s.key)) found.push("key");
	if (text.includes(s.key.slice(0, 20))) found.push("key prefix");
	if (text.includes(`${s.proxy.user}:${s.proxy.password}`)) found.push("userinfo");
	if (text.includes(s.proxy.password)) found.push("password");
	return found;
}

test("SDK errors and run failures: the message never shows the key or a URL's userinfo", async () => {
	await target.check(
		fc.property(secrets, carrier, carrier, fc.boolean(), (s, wrapKey, wrapUrl, knownKey) => {
			const error = new Error(`${wrapKey(s.key)} via ${wrapUrl(s.proxy.url)}`, {
				cause: new Error(wrapUrl(s.proxy.url)),
			});
			const message = classifyCursorError(error, knownKey ? [s.key] : []).message;
			expect(leaked(message, s)).toEqual([]);
		}),
		1500,
	);
});

test("a turn whose tool calls and failure carry secrets: no event, card, line or trace shows them", async () => {
	const toolCall = (s: Secrets, wrap: (x: string) => string) => ({
		type: "shell",
		args: { command: `curl -H 'Authorization: Bearer ${s.key}' ${s.proxy.url}` },
		result: { status: "success", value: { stdout: wrap(s.key), stderr: wrap(s.proxy.url), exitCode: 0 } },
	});
	await target.check(
		fc.asyncProperty(secrets, carrier, fc.boolean(), fc.boolean(), async (s, wrap, print, fails) => {
			const call = toolCall(s, wrap);
			const turn = await driveTurn(
				[
					{ type: "tool-call-started", callId: "c1", toolCall: call },
					{ type: "tool-call-completed", callId: "c1", toolCall: call },
					{
						type: "tool-call-started",
						callId: "c2",
						toolCall: { type: "mcp", args: { url: s.proxy.url, token: s.key } },
					},
				],
				fails
					? { result: { id: "r", status: "error", error: { message: wrap(`${s.key} ${s.proxy.url}`) } } as never }
					: { rejects: new Error(wrap(s.proxy.url)) },
				{ display: { print } },
			);
			const shown = JSON.stringify([turn.events, turn.message, turn.traces]);
			expect(leaked(shown, { ...s, key: s.key })).toEqual([]);
			// The same calls as replay cards (what Pi's tool cards and print traces show).
			const card = mapCompletedToolCall("c1", call, { cwd: "/w", secrets: [s.key] });
			const incomplete = mapIncompleteToolCall("c2", call, { cwd: "/w", secrets: [s.key] }, "failed");
			const cards = JSON.stringify([card, incomplete, formatActivityLine(card), formatPrintTrace(card)]);
			expect(leaked(cards, s)).toEqual([]);
		}),
		600,
	);
});

test("cursor-sdk.json values and PI_CURSOR_* values echoed in warnings never show a secret", async () => {
	let n = 0;
	await target.check(
		fc.property(secrets, carrier, (s, wrap) => {
			const values = [wrap(s.key), wrap(s.proxy.url)];
			const path = join(dir, `cursor-sdk-${n++ % 4}.json`);
			writeFileSync(
				path,
				JSON.stringify({
					fastDefaults: { "composer-2": values[0] },
					local: { autoReview: values[1], useHttp1ForAgent: values[0], sandboxOptions: values[1], storeRoot: 5 },
				}),
			);
			const warnings = [new CursorSdkConfigFile(path).readSync().warning ?? ""];
			for (const value of values) {
				warnings.push(
					...readBridgeSettings(readEnv({ PI_CURSOR_PI_BRIDGE_CALL_TIMEOUT_MS: value }), 60_000).problems,
					...readMcpTimeoutSettings(readEnv({ PI_CURSOR_MCP_TOOL_TIMEOUT_MS: value })).problems,
				);
				const sources = readEnv({ PI_CURSOR_SETTING_SOURCES: value }).settingSources;
				if (!sources.ok) warnings.push(sources.error);
				const choice = chooseStoreRoot(readEnv({ PI_CURSOR_SDK_STATE_ROOT: value }), undefined);
				const root = choice.kind === "custom" ? prepareStoreRoot(choice.path) : undefined;
				if (root && !root.ok) warnings.push(unsafeRootMessage(choice, root.problem));
			}
			for (const warning of warnings) expect({ warning, leaked: leaked(warning, s) }).toEqual({ warning, leaked: [] });
		}),
		500,
	);
});
