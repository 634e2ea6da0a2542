// Accounting inside a real Pi AgentSession (in-memory session, fake SDK): every send is journaled (a fileless
// session keeps its journal in memory), each agent gets one lineage entry (failed sends included), and an SDK
// capability warning during a send becomes one notice and one session entry per request (the console hook that
// swallows the raw SDK line is covered by test/unit/capability-notices.test.ts).
import { afterEach, expect, spyOn, test } from "bun:test";
import { CAPABILITY_NOTICE_TYPE } from "../../src/process/capability-notices.ts";
import { LINEAGE_ENTRY_TYPE } from "../../src/usage/lineage.ts";
import type { SendRecord } from "../../src/usage/records.ts";
import { FakeCursorSdk, type FakeStep } from "../support/fake-sdk.ts";
import { createHarnessSession, type HarnessSession } from "../support/harness.ts";

const open: HarnessSession[] = [];
afterEach(async () => {
	for (const s of open.splice(0)) await s.close();
});

const PARSER_WARNING =
	"shell-parser: tree-sitter natives are unavailable in this artifact; shell command analysis degrades to parsingFailed";

/** A step that prints the SDK's parser warning while the run plays (after the send started). */
function warnStep(): FakeStep {
	return {
		get text() {
			console.warn(PARSER_WARNING);
			return "";
		},
	};
}

test("sends are journaled and each agent gets one lineage entry, failed sends included", async () => {
	let n = 0;
	const sdk = new FakeCursorSdk({
		script: () => {
			n++;
			if (n === 2) return [{ fail: "[internal] backend exploded" }];
			return [{ text: `answer ${n}` }, { turnEnded: { inputTokens: 10 * n, outputTokens: n } }];
		},
	});
	const h = await createHarnessSession({ sdk });
	open.push(h);
	await h.session.prompt("first");
	await h.session.prompt("second"); // fails: the pool replaces the agent afterwards
	await h.session.prompt("third");
	const source = h.extension.accounting.ledger.source();
	expect(source?.journal).toBeUndefined();
	const sends = (source?.records ?? []) as SendRecord[];
	expect(sends.map((s) => [s.outcome, s.raw?.inputTokens ?? null])).toEqual([
		["finished", 10],
		["error", null],
		["finished", 30],
	]);
	expect(sends[1]?.error).toContain("backend exploded");
	const lineage: (string | null)[] = h
		.customEntries(LINEAGE_ENTRY_TYPE)
		.map((e) => (e.data as { agentId: string }).agentId);
	expect(lineage).toEqual([...new Set(sends.map((s) => s.agentId))]);
	expect(lineage).toHaveLength(2);
	expect(h.extension.accounting.ledger.lastError?.message).toContain("backend exploded");
});

test("a send that fails before Cursor creates its agent is journaled with its error class, without lineage", async () => {
	const sdk = new FakeCursorSdk();
	let refuse = true;
	const create = sdk.createAgent.bind(sdk);
	sdk.createAgent = async (store, options) => {
		if (!refuse) return create(store, options);
		const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), {
			code: "ECONNREFUSED",
			address: "127.0.0.1",
			port: 9,
		});
		throw Object.assign(new Error("Network request failed", { cause: refused }), { name: "NetworkError" });
	};
	const h = await createHarnessSession({ sdk, settings: { retry: { enabled: false } } });
	open.push(h);
	await h.session.prompt("first");
	refuse = false;
	await h.session.prompt("second");
	const sends = (h.extension.accounting.ledger.source()?.records ?? []) as SendRecord[];
	expect(sends.map((s) => [s.outcome, s.errorKind ?? null, s.agentId === null, s.kind])).toEqual([
		["error", "network", true, "bootstrap"],
		["finished", null, false, "bootstrap"],
	]);
	expect(sends[0]?.error).toContain("127.0.0.1:9 refused the connection");
	expect(h.customEntries(LINEAGE_ENTRY_TYPE)).toHaveLength(1);
	expect(h.extension.accounting.ledger.lastError?.message).toContain("127.0.0.1:9 refused the connection");
});

test("a capability warning during a send: one notice and one entry per request", async () => {
	const errors = spyOn(console, "error").mockImplementation(() => {});
	try {
		const sdk = new FakeCursorSdk({
			script: () => [
				{ delay: 5 },
				warnStep(),
				warnStep(),
				{ text: "done" },
				{ turnEnded: { inputTokens: 1, outputTokens: 1 } },
			],
		});
		const h = await createHarnessSession({ sdk });
		open.push(h);
		await h.session.prompt("run a shell command");
		await h.session.prompt("and another");
		const entries = h.customEntries(CAPABILITY_NOTICE_TYPE);
		expect(entries.map((e) => (e.data as { kind: string }).kind)).toEqual(["native-parser", "native-parser"]);
		expect(String((entries[0]?.data as { message?: string } | undefined)?.message)).toContain("native parser");
		// without a UI the notice goes to stderr: once per request, though the SDK warned twice each time
		const notices = errors.mock.calls.filter((args) => String(args[0]).includes("native parser"));
		expect(notices).toHaveLength(2);
	} finally {
		errors.mockRestore();
	}
});
