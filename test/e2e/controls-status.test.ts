// Issue 4 acceptance, status and commands: in `pi --mode rpc` the Cursor status (`setStatus("cursor", …)`) and the
// command notices arrive as `extension_ui_request` records. Exact strings per cursor-model-ux-spec.md ("Fast
// Behavior", "Cursor SDK Mode Behavior", "Footer Behavior"). A tiny faux provider stands in for a non-Cursor model.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { type PiHost, piHosts, type TempHome } from "../support/pi.ts";
import { notifications, type RpcPi, type RpcRecord, rpcSuite, SharedRpcPi, statuses } from "../support/rpc.ts";
import { BUNDLE, REPO_ROOT } from "../support/toolchain.ts";

const FAUX = join(REPO_ROOT, "test", "fixtures", "faux-provider-extension.ts");
const TIMEOUT_MS = 120_000;
const KEY = "key_test_controls_k1l2m3";

const suite = rpcSuite();
const home = () => suite.home();

function hostNamed(fragment: string): PiHost {
	const host = piHosts().find((h) => h.name.includes(fragment));
	if (!host) throw new Error(`no host ${fragment}`);
	return host;
}

/** Runs `body` against an RPC Pi (Cursor bundle + faux provider, no session, no reachable backend). */
function withRpcPi(
	args: string[],
	body: (pi: RpcPi, h: TempHome) => Promise<void>,
	options: { env?: Record<string, string>; host?: PiHost; home?: TempHome } = {},
): Promise<void> {
	return suite.limit(async () => {
		const h = options.home ?? home();
		const pi = suite.start([...args, "--no-session"], {
			home: h,
			host: options.host,
			extensions: [BUNDLE, FAUX],
			env: { CURSOR_API_KEY: KEY, CURSOR_BACKEND_URL: suite.refusedUrl, ...options.env },
		});
		try {
			await pi.ready(60_000);
			await body(pi, h);
			const exit = await pi.close();
			expect(exit.code).toBe(0);
			expect(exit.junk).toEqual([]);
		} catch (error) {
			if (error instanceof Error) error.message += `\n${pi.describe()}`;
			await pi.kill();
			throw error;
		}
	});
}

/** Runs one RPC command and returns its notices, status updates and appended custom entry types. */
async function step(pi: RpcPi, command: string | Record<string, unknown>) {
	const { response, records } = typeof command === "string" ? await pi.prompt(command) : await pi.send(command);
	expect(response.success).toBe(true);
	return { notes: notifications(records), status: statuses(records), entries: customEntries(records) };
}

function customEntries(records: readonly RpcRecord[]): string[] {
	return records
		.filter((r) => r.type === "entry_appended")
		.map((r) => (r.entry as { type: string; customType?: string }).customType ?? "")
		.filter((t) => t.startsWith("pi-cursor-sdk:"));
}

const info = (message: string) => [{ message, type: "info" }];

/** The home of the default host's shared Pi. */
let sharedHome: TempHome | undefined;
const defaultHostPi = new SharedRpcPi(() => {
	sharedHome ??= home();
	return suite.start(["--model", "cursor/composer-2", "--no-session"], {
		home: sharedHome,
		host: hostNamed("1.6.0"),
		extensions: [BUNDLE, FAUX],
		env: { CURSOR_API_KEY: KEY, CURSOR_BACKEND_URL: suite.refusedUrl },
		lifetimeMs: 4 * TIMEOUT_MS,
	});
});

/**
 * Runs `body` in a new Pi session of the default host's shared Pi (which starts on composer-2), after `prepare` (given
 * the Pi's home). With `modelId`, the session then selects cursor/`modelId`. `body` gets the index of the records that
 * show the model's status: the session's start, or the selection.
 */
function inNewSession(
	modelId: string | undefined,
	body: (pi: RpcPi, h: TempHome, from: number) => Promise<void>,
	prepare: (h: TempHome) => void = () => {},
): Promise<void> {
	return defaultHostPi.use(
		async (pi) => {
			const h = sharedHome;
			if (!h) throw new Error("the shared Pi has no home");
			try {
				prepare(h);
				let from = pi.mark();
				expect((await pi.send({ type: "new_session" })).response.success).toBe(true);
				if (modelId) {
					from = pi.mark();
					await step(pi, { type: "set_model", provider: "cursor", modelId });
				}
				await body(pi, h, from);
			} catch (error) {
				if (error instanceof Error) error.message += `\n${pi.describe()}`;
				throw error;
			}
		},
		{ sameSession: true },
	);
}

describe.concurrent("Cursor status and commands", () => {
	for (const hostName of ["1.6.0", "0.87.1"]) {
		test(
			`a fast-capable model through fast, mode, http, a model without fast and a non-Cursor model (Pi ${hostName})`,
			async () => {
				// Pi 0.87.1's RPC mode does not emit `entry_appended`; the persistence tests read the session file instead.
				const seesEntries = hostName === "1.6.0";
				const body = async (pi: RpcPi, h: TempHome, from: number) => {
					// Catalog default for composer-2 is fast=true.
					expect(statuses(pi.records.slice(from))).toEqual(["cursor:local · fast:on"]);

					let s = await step(pi, "/cursor-fast");
					expect(s.notes).toEqual(info("Cursor fast off for composer-2."));
					expect(s.status).toEqual(["cursor:local · fast:off"]);
					if (seesEntries) expect(s.entries).toEqual(["pi-cursor-sdk:fast"]);

					s = await step(pi, "/cursor-mode plan");
					expect(s.notes).toEqual(info("Cursor mode set to plan for this session."));
					expect(s.status).toEqual(["cursor:local · fast:off · plan"]);
					if (seesEntries) expect(s.entries).toEqual(["pi-cursor-sdk:mode"]);

					s = await step(pi, "/cursor-http on");
					expect(s.notes).toEqual(info("Cursor HTTP/1.1 transport on."));
					expect(s.status).toEqual(["cursor:local · fast:off · http1 · plan"]);
					if (seesEntries) expect(s.entries).toEqual(["pi-cursor-sdk:http"]);

					s = await step(pi, "/cursor-mode");
					expect(s.notes).toEqual(info("Cursor mode: plan. Usage: /cursor-mode [agent|plan]"));
					expect(s.status).toEqual([]);
					expect(s.entries).toEqual([]);

					s = await step(pi, "/cursor-http");
					expect(s.notes).toEqual(info("Cursor HTTP/1.1 transport: on. Usage: /cursor-http [on|off|toggle]"));
					expect(s.status).toEqual([]);
					expect(s.entries).toEqual([]);

					s = await step(pi, "/cursor-mode bogus");
					expect(s.notes).toEqual([
						{ message: 'Unknown Cursor mode "bogus". Usage: /cursor-mode [agent|plan]', type: "warning" },
					]);
					expect(s.entries).toEqual([]);

					s = await step(pi, { type: "set_model", provider: "cursor", modelId: "gemini-3.1-pro" });
					expect(s.status).toEqual(["cursor:local · fast:n/a · http1 · plan"]);

					s = await step(pi, "/cursor-fast");
					expect(s.notes).toEqual(info("Fast mode not supported by gemini-3.1-pro"));
					expect(s.status).toEqual([]);
					expect(s.entries).toEqual([]);

					// A non-Cursor model has no Cursor status: it is cleared (text undefined).
					s = await step(pi, { type: "set_model", provider: "faux", modelId: "faux-1" });
					expect(s.status).toEqual([undefined]);

					s = await step(pi, "/cursor-fast");
					expect(s.notes).toEqual(info("Fast mode applies only to Cursor models."));
					expect(s.status).toEqual([]);

					// Back on Cursor: the session state is still there.
					s = await step(pi, { type: "set_model", provider: "cursor", modelId: "composer-2" });
					expect(s.status).toEqual(["cursor:local · fast:off · http1 · plan"]);

					s = await step(pi, "/cursor-mode agent");
					expect(s.status).toEqual(["cursor:local · fast:off · http1"]);

					s = await step(pi, "/cursor-http off");
					expect(s.notes).toEqual(info("Cursor HTTP/1.1 transport off."));
					expect(s.status).toEqual(["cursor:local · fast:off"]);

					// /cursor-fast and /cursor-http also saved user defaults (0600); the mode is session-only.
					const configPath = join(h.agentDir, "cursor-sdk.json");
					expect(statSync(configPath).mode & 0o777).toBe(0o600);
					expect(JSON.parse(readFileSync(configPath, "utf8"))).toEqual({
						fastDefaults: { "composer-2": false },
						local: { useHttp1ForAgent: false },
					});
					expect(existsSync(`${configPath}.lock`)).toBe(false);
				};
				if (hostName === "1.6.0") {
					// The saved defaults this test asserts start from none.
					await inNewSession(undefined, body, (h) => rmSync(join(h.agentDir, "cursor-sdk.json"), { force: true }));
				} else {
					await withRpcPi(["--model", "cursor/composer-2"], (pi, h) => body(pi, h, 0), { host: hostNamed(hostName) });
				}
			},
			TIMEOUT_MS,
		);
	}

	test(
		"a model without fast shows fast:n/a",
		async () => {
			await inNewSession("gemini-3.1-pro", async (pi, _h, from) => {
				expect(statuses(pi.records.slice(from))).toEqual(["cursor:local · fast:n/a"]);
			});
		},
		TIMEOUT_MS,
	);

	test(
		"PI_CURSOR_FOOTER=0 clears the status (commands still work)",
		async () => {
			await withRpcPi(
				["--model", "cursor/composer-2"],
				async (pi) => {
					expect(statuses(pi.records).length).toBeGreaterThan(0); // an explicit clear, not just silence
					expect(statuses(pi.records).every((text) => text === undefined)).toBe(true);
					const fast = await step(pi, "/cursor-fast");
					expect(fast.notes).toEqual(info("Cursor fast off for composer-2."));
					const mode = await step(pi, "/cursor-mode plan");
					expect(mode.notes).toEqual(info("Cursor mode set to plan for this session."));
					expect(statuses(pi.records).every((text) => text === undefined)).toBe(true);
				},
				{ env: { PI_CURSOR_FOOTER: "0" } },
			);
		},
		TIMEOUT_MS,
	);

	test(
		":fast / :slow aliases decide fast themselves; /cursor-fast explains that and persists nothing",
		async () => {
			const original = `${JSON.stringify({ fastDefaults: { "composer-2": false }, extra: "kept" }, null, 2)}\n`;
			let configPath = "";
			let mtime = 0;
			await inNewSession(
				"composer-2:fast",
				async (pi, _h, from) => {
					// The alias beats the saved default (false).
					expect(statuses(pi.records.slice(from))).toEqual(["cursor:local · fast:on"]);
					let s = await step(pi, "/cursor-fast");
					expect(s.notes).toEqual(
						info(
							"Fast is fixed to on by the selected composer-2:fast model; select the unsuffixed model to change the saved default.",
						),
					);
					expect(s.status).toEqual([]);
					expect(s.entries).toEqual([]);

					s = await step(pi, { type: "set_model", provider: "cursor", modelId: "composer-2:slow" });
					expect(s.status).toEqual(["cursor:local · fast:off"]);
					s = await step(pi, "/cursor-fast");
					expect(s.notes).toEqual(
						info(
							"Fast is fixed to off by the selected composer-2:slow model; select the unsuffixed model to change the saved default.",
						),
					);
					expect(s.entries).toEqual([]);

					// The unsuffixed model uses the saved default.
					s = await step(pi, { type: "set_model", provider: "cursor", modelId: "composer-2" });
					expect(s.status).toEqual(["cursor:local · fast:off"]);
					expect(readFileSync(configPath, "utf8")).toBe(original);
					expect(statSync(configPath).mtimeMs).toBe(mtime);
				},
				(h) => {
					configPath = h.writeAgentFile("cursor-sdk.json", original);
					mtime = statSync(configPath).mtimeMs;
				},
			);
		},
		TIMEOUT_MS,
	);

	test(
		"--cursor-no-fast and --cursor-mode set where the run starts: shown in the status, never saved to the session; /cursor-fast changes the run",
		async () => {
			await withRpcPi(["--model", "cursor/grok-4.6", "--cursor-no-fast", "--cursor-mode", "plan"], async (pi) => {
				// grok-4.6's catalog default is fast=true; the flag starts this run with it off.
				expect(statuses(pi.records)).toEqual(["cursor:local · fast:off · plan"]);
				let s = await step(pi, "/cursor-fast");
				expect(s.notes).toEqual(info("Cursor fast on for grok-4.6."));
				expect(s.status).toEqual(["cursor:local · fast:on · plan"]);
				s = await step(pi, "/cursor-fast");
				expect(s.notes).toEqual(info("Cursor fast off for grok-4.6."));
				expect(s.status).toEqual(["cursor:local · fast:off · plan"]);
				s = await step(pi, "/cursor-mode");
				expect(s.notes).toEqual(info("Cursor mode: plan. Usage: /cursor-mode [agent|plan]"));
				// Only the two /cursor-fast toggles were recorded; the flags were not.
				const types = customEntries(pi.records);
				expect(types).toEqual(["pi-cursor-sdk:fast", "pi-cursor-sdk:fast"]);
			});
		},
		TIMEOUT_MS,
	);
});

test(
	"the default host's shared Pi exits cleanly (code 0, only JSON on stdout) and its exit writes no setting",
	async () => {
		const configPath = join(sharedHome?.agentDir ?? "", "cursor-sdk.json");
		const before = existsSync(configPath)
			? { text: readFileSync(configPath, "utf8"), mtimeMs: statSync(configPath).mtimeMs }
			: undefined;
		await defaultHostPi.closeCleanly();
		const after = existsSync(configPath)
			? { text: readFileSync(configPath, "utf8"), mtimeMs: statSync(configPath).mtimeMs }
			: undefined;
		expect(after).toEqual(before);
	},
	TIMEOUT_MS,
);
