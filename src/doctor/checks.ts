// /cursor-doctor: each check is a pure function of gathered facts, answering ok / warn / fail with a fix.

export type CheckStatus = "ok" | "warn" | "fail";

export interface CheckResult {
	title: string;
	status: CheckStatus;
	detail: string;
	fix?: string;
}

/** The SDK version this build is made and tested for. */
export const EXPECTED_SDK_VERSION = "1.0.32";
/** The Pi versions this build supports. */
export const PI_RANGE = { min: "0.87.1", max: "1.6.0" } as const;
/** Pi needs at least this Node. */
export const MIN_NODE = "22.19.0";
/** A cached catalog older than this is reported as stale. */
export const STALE_CATALOG_MS = 30 * 24 * 60 * 60 * 1000;

export type BackendFact =
	| { kind: "accepted"; keyName: string | undefined }
	| { kind: "rejected"; message: string }
	| { kind: "unreachable"; message: string }
	| { kind: "error"; message: string }
	| { kind: "skipped" };

export interface NativeFact {
	/** The environment variable the SDK reads. */
	variable: string;
	value: string | undefined;
	/** The value differs from what the extension found in the installed platform package (the user set it). */
	explicit: boolean;
	/** The path holds what the SDK needs. */
	valid: boolean;
}

export interface DoctorFacts {
	/**
	 * `credential`: which kind of key it is (environment, pasted, account sign-in with email and days left), with a
	 * warning near or past an account key's expiry; `error`: why Pi could not resolve one (an expired sign-in).
	 */
	key: {
		present: boolean;
		source: string | undefined;
		credential?: { detail: string; warning?: string };
		error?: string;
	};
	backend: BackendFact;
	/** e.g. `CURSOR_BACKEND_URL` when set (scrubbed), for the backend check's detail. */
	backendUrl: string | undefined;
	versions: { sdk: string | undefined; pi: string | undefined; node: string | undefined; bun: string | undefined };
	natives: { parser: NativeFact; ripgrep: NativeFact };
	transport: { useHttp1: boolean | undefined; source: string; customBackendHttp: boolean };
	settingSources: { ok: true; sources: readonly string[]; isDefault: boolean } | { ok: false; error: string };
	catalog: { source: "fallback" | "cache" | "live"; fetchedAt: number | undefined; rows: number; capturedOn: string };
	bridge: { status: CheckStatus; detail: string; fix?: string };
	/** Where turns run (local or cloud) and where that comes from. */
	runtime: { status: CheckStatus; detail: string; fix?: string };
	/** The cloud target, when the runtime is cloud. */
	cloudTarget?: { status: CheckStatus; detail: string; fix?: string };
	/** `label` says where the root comes from (default, PI_CURSOR_SDK_STATE_ROOT, local.storeRoot). */
	storeRoot: { path: string | undefined; label: string; writable: boolean; error?: string };
	lastError: { message: string; at: number } | undefined;
	now: number;
}

/** Compares dotted numeric versions (`1.6.0` vs `0.87.1`); pre-release tags are ignored. */
export function compareVersions(a: string, b: string): number {
	const parts = (v: string) =>
		v
			.replace(/^v/, "")
			.split(/[-+]/)[0]
			?.split(".")
			.map((n) => Number(n) || 0) ?? [];
	const x = parts(a);
	const y = parts(b);
	for (let i = 0; i < Math.max(x.length, y.length); i++) {
		const d = (x[i] ?? 0) - (y[i] ?? 0);
		if (d !== 0) return d;
	}
	return 0;
}

export function checkKey(facts: DoctorFacts): CheckResult {
	const title = "API key source";
	if (!facts.key.present) {
		return {
			title,
			status: "fail",
			detail: facts.key.error ?? "no Cursor API key is configured",
			fix: "export CURSOR_API_KEY=… before starting Pi, or run /login → Cursor (account sign-in or API key)",
		};
	}
	const from = facts.key.credential?.detail ?? facts.key.source ?? "an unknown source";
	const warning = facts.key.credential?.warning;
	return {
		title,
		status: warning ? "warn" : "ok",
		detail: `from ${from} (the key itself is never shown)`,
		...(warning ? { fix: warning } : {}),
	};
}

export function checkBackend(facts: DoctorFacts): CheckResult {
	const title = "Cursor accepts the key";
	const where = facts.backendUrl ? ` (backend ${facts.backendUrl})` : "";
	const b = facts.backend;
	const failed = (detail: string, fix: string): CheckResult => ({ title, status: "fail", detail, fix });
	switch (b.kind) {
		case "accepted":
			return { title, status: "ok", detail: `Cursor.me answered${b.keyName ? ` for key "${b.keyName}"` : ""}${where}` };
		case "skipped":
			return { title, status: "fail", detail: "not checked: no API key", fix: "configure a key first (see above)" };
		case "rejected":
			return failed(
				`${b.message}${where}`,
				"the key is wrong, expired or revoked: create a new one in Cursor's dashboard, then update CURSOR_API_KEY or run /login",
			);
		case "unreachable":
			return failed(
				`${b.message}${where}`,
				"check the network, proxy and firewall; behind a proxy that breaks HTTP/2 try /cursor-http on",
			);
		default:
			return {
				title,
				status: "warn",
				detail: `${b.message}${where}`,
				fix: "retry; if it persists, include this report in a bug report",
			};
	}
}

export function checkVersions(facts: DoctorFacts): CheckResult {
	const title = "Versions";
	const { sdk, pi, node, bun } = facts.versions;
	const runtime = bun ? `compiled Pi (Bun ${bun})` : `Node ${node ?? "unknown"}`;
	const detail = `@cursor/sdk ${sdk ?? "not found"} · Pi ${pi ?? "unknown"} · ${runtime}`;
	if (!sdk) {
		return {
			title,
			status: "fail",
			detail,
			fix: "reinstall pi-cursor-sdk so that @cursor/sdk is installed beside it (npm install)",
		};
	}
	if (sdk !== EXPECTED_SDK_VERSION) {
		return {
			title,
			status: "warn",
			detail: `${detail}; this build is made for @cursor/sdk ${EXPECTED_SDK_VERSION}`,
			fix: `reinstall pi-cursor-sdk to get @cursor/sdk ${EXPECTED_SDK_VERSION}`,
		};
	}
	if (pi && (compareVersions(pi, PI_RANGE.min) < 0 || compareVersions(pi, PI_RANGE.max) > 0)) {
		return {
			title,
			status: "warn",
			detail: `${detail}; supported Pi versions are ${PI_RANGE.min} through ${PI_RANGE.max}`,
			fix: "install a supported Pi version, or expect untested behaviour",
		};
	}
	if (!bun && node && compareVersions(node, MIN_NODE) < 0) {
		return { title, status: "fail", detail: `${detail}; Pi needs Node ${MIN_NODE} or newer`, fix: "upgrade Node" };
	}
	return { title, status: "ok", detail };
}

function checkNative(title: string, fact: NativeFact, missing: string): CheckResult {
	if (fact.valid) {
		return { title, status: "ok", detail: `${fact.variable}=${fact.value}${fact.explicit ? " (set by you)" : ""}` };
	}
	if (fact.explicit && fact.value) {
		return {
			title,
			status: "warn",
			detail: `${fact.variable}=${fact.value} does not hold the SDK's natives (stale or wrong); ${missing}`,
			fix: `unset ${fact.variable} so pi-cursor-sdk finds the installed natives, or point it at a valid path`,
		};
	}
	return {
		title,
		status: "warn",
		detail: `the SDK's platform package (@cursor/sdk-${process.platform}-${process.arch}) was not found; ${missing}`,
		fix: "reinstall pi-cursor-sdk with its optional dependencies (npm install, without --no-optional)",
	};
}

export function checkParser(facts: DoctorFacts): CheckResult {
	return checkNative("Native shell parser", facts.natives.parser, "shell command analysis is disabled");
}

export function checkRipgrep(facts: DoctorFacts): CheckResult {
	return checkNative("ripgrep", facts.natives.ripgrep, "Cursor's search tools fall back to slower ones");
}

export function checkTransport(facts: DoctorFacts): CheckResult {
	const { useHttp1, source, customBackendHttp } = facts.transport;
	const from =
		source === "default"
			? "SDK default"
			: source === "env"
				? "PI_CURSOR_HTTP_1_1"
				: source === "session"
					? "set with /cursor-http for this session"
					: "your cursor-sdk.json default";
	if (customBackendHttp) {
		return { title: "Transport", status: "ok", detail: "HTTP/1.1 + SSE (the plain-http CURSOR_BACKEND_URL needs it)" };
	}
	const detail = useHttp1 ? `HTTP/1.1 + SSE (${from})` : `HTTP/2 (${useHttp1 === false ? from : "SDK default"})`;
	return { title: "Transport", status: "ok", detail };
}

export function checkSettingSources(facts: DoctorFacts): CheckResult {
	const title = "Cursor setting sources";
	const s = facts.settingSources;
	if (!s.ok) return { title, status: "fail", detail: s.error, fix: "fix or unset PI_CURSOR_SETTING_SOURCES" };
	const list = s.sources.length === 0 ? "none" : s.sources.join(",");
	return { title, status: "ok", detail: `${list}${s.isDefault ? " (default)" : " (PI_CURSOR_SETTING_SOURCES)"}` };
}

export function checkCatalog(facts: DoctorFacts): CheckResult {
	const title = "Model catalog";
	const { source, fetchedAt, rows, capturedOn } = facts.catalog;
	if (source === "fallback") {
		return {
			title,
			status: "ok",
			detail: `bundled catalog (captured ${capturedOn}), ${rows} rows; /cursor-refresh-models fetches Cursor's current list`,
		};
	}
	const age = fetchedAt === undefined ? undefined : facts.now - fetchedAt;
	const ageText = age === undefined ? "age unknown" : `fetched ${Math.max(0, Math.round(age / 3_600_000))} h ago`;
	const detail = `${source === "live" ? "live" : "cached"} catalog, ${rows} rows, ${ageText}`;
	if (age !== undefined && age > STALE_CATALOG_MS) {
		return { title, status: "warn", detail, fix: "run /cursor-refresh-models to pick up Cursor's current models" };
	}
	return { title, status: "ok", detail };
}

export function checkBridge(facts: DoctorFacts): CheckResult {
	return { title: "Pi tool bridge", ...facts.bridge };
}

export function checkRuntime(facts: DoctorFacts): CheckResult {
	return { title: "Runtime", ...facts.runtime };
}

export function checkCloudTarget(facts: DoctorFacts): CheckResult | undefined {
	return facts.cloudTarget && { title: "Cursor Cloud target", ...facts.cloudTarget };
}

export function checkStoreRoot(facts: DoctorFacts): CheckResult {
	const title = "Agent store root";
	const { path, label, writable, error } = facts.storeRoot;
	if (!path) {
		return {
			title,
			status: "fail",
			detail: error ?? `${label} cannot be used`,
			fix: "set PI_CURSOR_SDK_STATE_ROOT (or local.storeRoot in cursor-sdk.json) to a private absolute directory, or unset it",
		};
	}
	if (!writable) {
		return {
			title,
			status: "fail",
			detail: `${path} (${label}) is not writable (${error ?? "unknown error"})`,
			fix: "fix the directory's permissions, or set PI_CURSOR_SDK_STATE_ROOT to a writable absolute directory",
		};
	}
	return { title, status: "ok", detail: `${path} (${label}) is writable` };
}

export function checkLastError(facts: DoctorFacts): CheckResult {
	const title = "Last Cursor error in this session";
	if (!facts.lastError) return { title, status: "ok", detail: "none" };
	const at = new Date(facts.lastError.at).toISOString().replace("T", " ").slice(0, 19);
	return {
		title,
		status: "warn",
		detail: `${at} UTC: ${facts.lastError.message}`,
		fix: "see the message; the checks above usually point at the cause",
	};
}

export function runChecks(facts: DoctorFacts): CheckResult[] {
	return [
		checkKey(facts),
		checkBackend(facts),
		checkVersions(facts),
		checkParser(facts),
		checkRipgrep(facts),
		checkTransport(facts),
		checkSettingSources(facts),
		checkCatalog(facts),
		checkBridge(facts),
		checkRuntime(facts),
		checkCloudTarget(facts),
		checkStoreRoot(facts),
		checkLastError(facts),
	].filter((result) => result !== undefined);
}

const LABEL: Record<CheckStatus, string> = { ok: "ok  ", warn: "WARN", fail: "FAIL" };

const counted = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** The report: its verdict first (what a glance at the TUI shows), then one line per check. */
export function renderDoctor(results: readonly CheckResult[]): string {
	const counts = { ok: 0, warn: 0, fail: 0 };
	for (const r of results) counts[r.status]++;
	const warnings = counts.warn > 0 ? `, ${counted(counts.warn, "warning")}` : "";
	const verdict =
		counts.fail > 0
			? `${counted(counts.fail, "check")} failed${warnings}. Cursor will not work until the failures are fixed.`
			: counts.warn > 0
				? `All essential checks passed${warnings}.`
				: "All checks passed.";
	const lines = [`Cursor doctor report: ${verdict}`];
	for (const r of results) {
		lines.push(`[${LABEL[r.status]}] ${r.title}: ${r.detail}`);
		if (r.fix && r.status !== "ok") lines.push(`       fix: ${r.fix}`);
	}
	return lines.join("\n");
}
