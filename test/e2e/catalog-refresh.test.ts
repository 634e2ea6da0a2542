// Issue 3 acceptance, live catalog refresh: `/cursor-refresh-models` in `pi --mode rpc` against the loopback fake
// Cursor backend (CURSOR_BACKEND_URL). Success publishes the new rows and caches them (0600, keyed by a fingerprint,
// never the key); 401 / refused / hanging backends give one actionable, scrubbed error and leave the catalog alone;
// a restart restores the cached catalog offline, without a single request.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { type FakeBackend, type RestBehaviour, startFakeBackend } from "../support/fake-backend/client.ts";
import { type PiHost, parseModelTable, piHosts, runPi, type TempHome } from "../support/pi.ts";
import { notifications, pool, type RpcPi, rpcSuite } from "../support/rpc.ts";
import { REPO_ROOT } from "../support/toolchain.ts";

const TIMEOUT_MS = 150_000;
const CACHE_FILE = "cursor-sdk-model-list.json";
const GOLDEN = join(REPO_ROOT, "test", "fixtures", "list-models.golden.txt");

/** A small live catalog: a known fast-capable model, a brand-new plain model and a brand-new context model. */
const LIVE_MODELS = [
	{
		id: "composer-2",
		displayName: "Composer 2",
		parameters: [{ id: "fast", displayName: "Fast", values: [{ value: "false" }, { value: "true" }] }],
		variants: [
			{ params: [{ id: "fast", value: "true" }], displayName: "Composer 2", isDefault: true },
			{ params: [{ id: "fast", value: "false" }], displayName: "Composer 2" },
		],
	},
	{ id: "brand-new-model", displayName: "Brand New Model" },
	{
		id: "nova-1",
		displayName: "Nova 1",
		parameters: [{ id: "context", displayName: "Context", values: [{ value: "200k" }, { value: "1m" }] }],
		variants: [
			{ params: [{ id: "context", value: "200k" }], displayName: "Nova 1", isDefault: true },
			{ params: [{ id: "context", value: "1m" }], displayName: "Nova 1" },
		],
	},
];
const LIVE_ROWS = [
	"brand-new-model",
	"composer-2",
	"composer-2:fast",
	"composer-2:slow",
	"nova-1@1m",
	"nova-1@200k",
].sort();

const suite = rpcSuite();
const { limit } = suite;
const home = () => suite.home();
const backends: FakeBackend[] = [];
afterAll(async () => {
	await Promise.all(backends.map((b) => b.stop()));
});

async function fake(rest: Partial<RestBehaviour>): Promise<FakeBackend> {
	const backend = await startFakeBackend({ rest });
	backends.push(backend);
	return backend;
}

function hostNamed(fragment: string): PiHost {
	const host = piHosts().find((h) => h.name.includes(fragment));
	if (!host) throw new Error(`no host ${fragment}`);
	return host;
}

const ARGS = ["--model", "cursor/composer-2", "--no-session"];

async function modelIds(pi: RpcPi): Promise<string[]> {
	const { response } = await pi.send({ type: "get_available_models" });
	expect(response.success).toBe(true);
	const models = (response.data as { models: { provider: string; id: string }[] }).models;
	return models.filter((m) => m.provider === "cursor").map((m) => m.id);
}

/** The `model` column of the golden (the bundled fallback catalog). */
function goldenIds(): string[] {
	return parseModelTable(readFileSync(GOLDEN, "utf8")).map((row) => row.model ?? "");
}

interface Refresh {
	notes: { message: string; type: string }[];
	before: string[];
	after: string[];
	elapsedMs: number;
}

/** Runs `/cursor-refresh-models` in `pi` and returns its notifications, the catalog before/after and the elapsed time. */
async function refreshIn(pi: RpcPi): Promise<Refresh> {
	return withPiOutput(pi, async () => {
		const before = await modelIds(pi);
		const started = Date.now();
		const { records, response } = await pi.prompt("/cursor-refresh-models", { timeoutMs: 60_000 });
		const elapsedMs = Date.now() - started;
		expect(response.success).toBe(true); // 1.6.0 adds {disposition: "handled"}; 0.87.1 has no data
		const after = await modelIds(pi);
		return { notes: notifications(records), before, after, elapsedMs };
	});
}

/**
 * Starts an RPC Pi on cursor/composer-2 (no session), runs `/cursor-refresh-models` (see {@link refreshIn}) and closes
 * the Pi, which must exit 0.
 */
async function refreshOnce(h: TempHome, env: Record<string, string>, host?: PiHost): Promise<Refresh> {
	return limit(async () => {
		const pi = suite.start(ARGS, { home: h, env, host, lifetimeMs: 120_000 });
		await withPiOutput(pi, () => pi.ready(60_000));
		const refresh = await refreshIn(pi);
		await withPiOutput(pi, async () => expect((await pi.close()).code).toBe(0));
		return refresh;
	});
}

/** Runs `body`, adding the Pi's captured output to a failure. */
async function withPiOutput<T>(pi: RpcPi, body: () => Promise<T>): Promise<T> {
	try {
		return await body();
	} catch (error) {
		if (error instanceof Error) error.message += `\n${pi.describe()}`;
		throw error;
	}
}

const FAILING_KEY = "key_live_secret_401_abcdef123";

/**
 * The failure cases share one RPC Pi (their subject is the command, not Pi's start) and take it in turn, in the
 * order the tests below ask for it (their order in the file). Its backend URL first refuses connections (nothing
 * listens on that port yet); then a forwarder to a fake backend opens on that port, for the 401 and then the hang,
 * whose step closes the Pi: it must still exit promptly. A failed step kills the Pi; the next one starts a fresh Pi.
 */
function failureCases() {
	let url: string | undefined;
	let home: TempHome | undefined;
	let pi: RpcPi | undefined;
	let backend: FakeBackend | undefined;
	let forwarder: Server | undefined;
	const sockets = new Set<Socket>();
	const inTurn = pool(1);
	const defined = <T>(value: T | undefined): T => {
		if (value === undefined) throw new Error("set in beforeAll");
		return value;
	};
	beforeAll(() => {
		url = suite.refusedUrl;
		home = suite.home();
	});
	afterAll(async () => {
		for (const socket of sockets) socket.destroy();
		await new Promise((resolve) => (forwarder ? forwarder.close(resolve) : resolve(undefined)));
	});
	const env = () => ({
		CURSOR_API_KEY: FAILING_KEY,
		CURSOR_BACKEND_URL: defined(url),
		// Not read by the product yet (the bound is a fixed 15 s); the hang test follows whatever the notice reports.
		PI_CURSOR_SDK_MODEL_REFRESH_TIMEOUT_MS: "2000",
	});
	return {
		get url() {
			return defined(url);
		},
		get home() {
			return defined(home);
		},
		/** Runs `body` on the shared Pi once the steps asked for before are over. */
		step<T>(body: (pi: RpcPi) => Promise<T>): Promise<T> {
			return inTurn(() =>
				limit(async () => {
					if (!pi || pi.gone) {
						const started = suite.start(ARGS, { home: defined(home), env: env(), lifetimeMs: 120_000 });
						pi = started;
						await withPiOutput(started, () => started.ready(60_000));
					}
					const current = pi;
					try {
						return await body(current);
					} catch (error) {
						await current.kill();
						throw error;
					}
				}),
			);
		},
		/**
		 * The fake backend behind the URL from now on (started, and forwarded to, on the first call) with `rest` on
		 * top; its `requests()` are the ones that arrive after this call.
		 */
		async backend(rest: Partial<RestBehaviour>): Promise<Pick<FakeBackend, "requests">> {
			if (!backend) {
				backend = await fake({});
				forwarder = await forward(new URL(defined(url)).port, new URL(backend.url).port, sockets);
			}
			const serving = backend;
			await serving.setRest(rest);
			const seen = (await serving.requests()).length;
			return { requests: async () => (await serving.requests()).slice(seen) };
		},
	};
}
const failures = failureCases();

/** A TCP forwarder on loopback `port` to loopback `target`; its open sockets are kept in `sockets`. */
function forward(port: string, target: string, sockets: Set<Socket>): Promise<Server> {
	const server = createServer((client) => {
		const upstream = connect(Number(target), "127.0.0.1");
		const end = () => {
			client.destroy();
			upstream.destroy();
			sockets.delete(client);
			sockets.delete(upstream);
		};
		for (const socket of [client, upstream]) {
			sockets.add(socket);
			socket.on("error", end);
			socket.on("close", end);
		}
		client.pipe(upstream).pipe(client);
	});
	return new Promise((resolve, reject) => {
		server.once("error", reject);
		server.listen(Number(port), "127.0.0.1", () => resolve(server));
	});
}

function cacheText(h: TempHome): string | undefined {
	const path = join(h.agentDir, CACHE_FILE);
	return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}

describe.concurrent("/cursor-refresh-models", () => {
	for (const hostName of ["1.6.0", "0.87.1"]) {
		test(
			`success (Pi ${hostName}): new rows, a count notice, a 0600 key-free cache; a restart restores it offline`,
			async () => {
				const host = hostNamed(hostName);
				const backend = await fake({ models: LIVE_MODELS });
				const h = home();
				const storedKey = `key_test_stored_${hostName.replace(/\./g, "")}_x1y2z3`;
				const envKey = "key_test_ambient_q9w8e7";
				h.writeAgentFile("auth.json", { cursor: { type: "api_key", key: storedKey } });
				const env = { CURSOR_API_KEY: envKey, CURSOR_BACKEND_URL: backend.url };

				const { notes, before, after } = await refreshOnce(h, env, host);
				expect(before.sort()).toEqual(goldenIds().sort());
				expect(notes).toEqual([
					{
						message: `Cursor models refreshed: 3 models, ${LIVE_ROWS.length} rows (was ${before.length}).`,
						type: "info",
					},
				]);
				expect(after.sort()).toEqual(LIVE_ROWS);

				// The stored key wins over the ambient one (native precedence) and is what Cursor received.
				const requests = await backend.requests();
				const listCalls = requests.filter((r) => r.method === "GET" && r.path === "/v1/models");
				expect(listCalls.map((r) => r.bearer)).toEqual([storedKey]);
				expect(requests.some((r) => r.bearer === envKey)).toBe(false);

				const cachePath = join(h.agentDir, CACHE_FILE);
				const text = cacheText(h);
				expect(text).toBeDefined();
				expect(statSync(cachePath).mode & 0o777).toBe(0o600);
				expect(text).not.toContain(storedKey);
				expect(text).not.toContain(envKey);
				expect(text).toContain("nova-1");
				const document = JSON.parse(text ?? "{}") as { version: number; entries: Record<string, unknown> };
				expect(document.version).toBe(1);
				expect(Object.keys(document.entries)).toHaveLength(1);
				for (const key of Object.keys(document.entries)) expect(key).toMatch(/^[0-9a-f]{16}$/);

				// Restart, offline: the cached catalog comes back without any request to the backend.
				const requestCount = requests.length;
				const restarted = await limit(() => runPi(["--list-models", "cursor"], { host, home: h, env }));
				expect(restarted.code).toBe(0);
				expect(parseModelTable(restarted.stdout).map((r) => r.model)).toEqual(LIVE_ROWS);
				expect(restarted.stdout + restarted.stderr).not.toContain(storedKey);

				// The refresh stored the rows it built, and a start shows them as stored, without building them: a stored
				// row changed by hand shows changed. Rows stored from anything else (here, a changed key) are built again.
				const stored = JSON.parse(readFileSync(cachePath, "utf8")) as {
					entries: Record<string, { built: { key: string; rows: { id: string; contextWindow: number }[] } }>;
				};
				const [entry] = Object.values(stored.entries);
				if (!entry) throw new Error("no cache entry");
				expect(entry.built.rows.map((row) => row.id).sort()).toEqual(LIVE_ROWS);
				const row = entry.built.rows.find((r) => r.id === "brand-new-model");
				if (!row) throw new Error("brand-new-model is not stored");
				row.contextWindow = 123_000;
				writeFileSync(cachePath, JSON.stringify(stored));
				const contextOf = (stdout: string) =>
					parseModelTable(stdout).find((r) => r.model === "brand-new-model")?.context;
				const fromStore = await limit(() => runPi(["--list-models", "cursor"], { host, home: h, env }));
				expect(contextOf(fromStore.stdout)).toBe("123K");
				entry.built.key = `x${entry.built.key.slice(1)}`;
				writeFileSync(cachePath, JSON.stringify(stored));
				const rebuilt = await limit(() => runPi(["--list-models", "cursor"], { host, home: h, env }));
				expect(rebuilt.stdout).toBe(restarted.stdout);

				// Another key's fingerprint does not match: the bundled fallback serves, still offline.
				h.writeAgentFile("auth.json", { cursor: { type: "api_key", key: "key_test_other_m5n6b7" } });
				const otherKey = await limit(() => runPi(["--list-models", "cursor"], { host, home: h, env }));
				expect(otherKey.code).toBe(0);
				expect(otherKey.stdout).toBe(readFileSync(GOLDEN, "utf8"));
				expect((await backend.requests()).length).toBe(requestCount);
			},
			TIMEOUT_MS,
		);
	}

	test(
		"connection refused: one network error naming what refused, the catalog untouched",
		async () => {
			const { notes, before, after } = await failures.step(refreshIn);
			expect(notes).toHaveLength(1);
			const [note] = notes;
			expect(note?.type).toBe("error");
			expect(note?.message).toBe(
				`Could not refresh Cursor models: Cursor could not be reached (network error): ${new URL(failures.url).host} refused the connection (ECONNREFUSED). Check your network connection, proxy or firewall, then retry. The current catalog is unchanged.`,
			);
			expect(after).toEqual(before);
			expect(cacheText(failures.home)).toBeUndefined();
		},
		TIMEOUT_MS,
	);

	test(
		"401: one actionable error, the key scrubbed, the catalog and cache untouched",
		async () => {
			const key = FAILING_KEY;
			let backend: Pick<FakeBackend, "requests"> | undefined;
			const { notes, before, after } = await failures.step(async (pi) => {
				backend = await failures.backend({
					routes: {
						"GET /v1/models": {
							status: 401,
							json: { error: { code: "unauthenticated", message: `Invalid API key ${key}` } },
						},
					},
				});
				return refreshIn(pi);
			});
			expect(notes).toHaveLength(1);
			const [note] = notes;
			expect(note?.type).toBe("error");
			expect(note?.message).toStartWith("Could not refresh Cursor models: Cursor rejected the API key:");
			expect(note?.message).toContain("Check CURSOR_API_KEY or run /login");
			expect(note?.message).toEndWith("The current catalog is unchanged.");
			expect(note?.message.split("Cursor rejected the API key").length).toBe(2); // not wrapped twice
			expect(note?.message).not.toContain(key);
			expect(after).toEqual(before);
			expect(cacheText(failures.home)).toBeUndefined();
			expect((await backend?.requests())?.some((r) => r.path === "/v1/models" && r.status === 401)).toBe(true);
		},
		TIMEOUT_MS,
	);

	test(
		"a hanging backend is bounded by the discovery timeout; the process still exits promptly",
		async () => {
			let backend: Pick<FakeBackend, "requests"> | undefined;
			const { notes, before, after, elapsedMs } = await failures.step(async (pi) => {
				backend = await failures.backend({ routes: { "GET /v1/models": { hang: true } } });
				const refresh = await refreshIn(pi);
				await withPiOutput(pi, async () => expect((await pi.close()).code).toBe(0));
				return refresh;
			});
			expect(notes).toHaveLength(1);
			const [note] = notes;
			expect(note?.type).toBe("error");
			const bound = Number(/did not answer within (\d+) ms/.exec(note?.message ?? "")?.[1]);
			expect(bound).toBeGreaterThan(0);
			expect(bound).toBeLessThanOrEqual(15_000);
			expect(elapsedMs).toBeGreaterThanOrEqual(bound - 100);
			expect(elapsedMs).toBeLessThan(bound + 15_000);
			expect(note?.message).toEndWith("The current catalog is unchanged.");
			expect(after).toEqual(before);
			expect(cacheText(failures.home)).toBeUndefined();
			expect((await backend?.requests())?.some((r) => r.method === "GET" && r.path === "/v1/models")).toBe(true);
		},
		TIMEOUT_MS,
	);
});
