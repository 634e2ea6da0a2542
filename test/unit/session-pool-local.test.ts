// What the pool gives the SDK for the local agent's configuration: custom subagent definitions (and their digest in
// the pool key), the enabled safety controls, definition-free summaries, and /cursor-refresh-config's reload.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@earendil-works/pi-ai";
import type { AgentDefinition } from "../../src/sdk/cursor-sdk.ts";
import { type PoolRequest, SessionAgentPool } from "../../src/session/pool.ts";
import { RESUME_ENTRY_TYPE, type ResumeHandle } from "../../src/session/resume.ts";
import { definitionsDigest } from "../../src/settings/subagents.ts";
import type { TurnWatch } from "../../src/turn/watch.ts";
import { FakeCursorSdk } from "../support/fake-sdk.ts";
import { assistantMessage, systemMessage, userMessage } from "../support/messages.ts";
import { poolRequest, testWatch } from "../support/pool-request.ts";

const watches: TurnWatch[] = [];
const pools: SessionAgentPool[] = [];
const scratch: string[] = [];
afterEach(async () => {
	for (const watch of watches.splice(0)) watch.dispose();
	for (const pool of pools.splice(0)) pool.shutdown();
	for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function watch(): TurnWatch {
	const w = testWatch();
	watches.push(w);
	return w;
}

function reviewer(prompt: string): Record<string, AgentDefinition> {
	return { reviewer: { description: "Reviews diffs", prompt, model: "inherit" } };
}

const request = (messages: Message[], extra: Partial<PoolRequest> = {}) => poolRequest(messages, extra);

function withAgents(messages: Message[], agents: Record<string, AgentDefinition>): PoolRequest {
	return request(messages, { agents, agentsDigest: definitionsDigest(agents) });
}

function setup() {
	const sdk = new FakeCursorSdk();
	const entries: { customType: string; data: unknown }[] = [];
	const pool = new SessionAgentPool(sdk, {
		appendEntry: (customType, data) => entries.push({ customType, data }),
		notify: () => {},
	});
	pools.push(pool);
	return { sdk, pool, entries };
}

async function runLease(lease: Awaited<ReturnType<SessionAgentPool["acquire"]>>): Promise<void> {
	const run = await lease.agent.send(lease.prompt.text);
	const result = await run.wait();
	await lease.release(result.status === "finished" ? "finished" : "error");
}

const first: Message[] = [systemMessage(), userMessage("q1")];
const second: Message[] = [...first, assistantMessage("a1"), userMessage("q2")];
const third: Message[] = [...second, assistantMessage("a2"), userMessage("q3")];

describe("custom subagents", () => {
	test("definitions reach Agent.create; the same set keeps the agent, an edited prompt starts a new one", async () => {
		const { sdk, pool } = setup();
		await runLease(await pool.acquire(withAgents(first, reviewer("v1")), watch()));
		await runLease(await pool.acquire(withAgents(second, reviewer("v1")), watch()));
		expect(sdk.agents).toHaveLength(1);
		expect(sdk.agents[0]?.options.agents).toEqual(reviewer("v1"));
		expect(sdk.sends[1]?.text).not.toContain("<pi_instructions>");

		await runLease(await pool.acquire(withAgents(third, reviewer("v2")), watch()));
		expect(sdk.agents).toHaveLength(2);
		expect(sdk.agents[0]?.closed).toBe(true);
		expect(sdk.agents[1]?.options.agents).toEqual(reviewer("v2"));
		expect(sdk.sends[2]?.text).toContain("<pi_instructions>");
	});

	test("no definitions: no `agents` option and the pool key is exactly what it was before the feature", () => {
		const { pool } = setup();
		expect(pool.poolKey(request(first))).not.toContain("agents=");
		expect(pool.poolKey(request(first))).toBe(pool.poolKey(request(first, { agents: undefined })));
		expect(pool.poolKey(withAgents(first, reviewer("v1")))).toBe(
			`${pool.poolKey(request(first))}|agents=${definitionsDigest(reviewer("v1"))}`,
		);
	});

	test("a resume handle recorded under other definitions is refused: bootstrap on a new agent", async () => {
		const { sdk, pool, entries } = setup();
		const storeDir = mkdtempSync(join(tmpdir(), "pool-local-test-"));
		scratch.push(storeDir);
		pool.bind({ storeDir, resume: undefined });
		await runLease(await pool.acquire(withAgents(first, reviewer("v1")), watch()));
		const handle = entries.filter((e) => e.customType === RESUME_ENTRY_TYPE).at(-1)?.data as ResumeHandle;

		const restarted = setup();
		restarted.pool.bind({ storeDir, resume: handle });
		restarted.sdk.resumable.add(handle.agentId);
		await runLease(await restarted.pool.acquire(withAgents(second, reviewer("v2")), watch()));
		expect(restarted.sdk.agents.map((a) => a.origin)).toEqual(["create"]);
		expect(restarted.sdk.sends[0]?.text).toContain("<pi_instructions>");
		expect(sdk.agents).toHaveLength(1);

		const again = setup();
		again.pool.bind({ storeDir, resume: handle });
		again.sdk.resumable.add(handle.agentId);
		await runLease(await again.pool.acquire(withAgents(second, reviewer("v1")), watch()));
		expect(again.sdk.agents.map((a) => a.origin)).toEqual(["resume"]);
		expect(again.sdk.agents[0]?.options.agents).toEqual(reviewer("v1"));
	});

	test("compaction and tree summaries are definition-free", async () => {
		const { sdk, pool } = setup();
		const lease = await pool.acquireForSummary(withAgents(first, reviewer("v1")), watch());
		await runLease(lease);
		expect(sdk.agents[0]?.options.agents).toBeUndefined();
		expect(sdk.agents[0]?.options.tools).toEqual([]);
	});
});

describe("safety controls", () => {
	test("only enabled controls reach `local`; turning one on starts a new agent", async () => {
		const { sdk, pool } = setup();
		await runLease(await pool.acquire(request(first, { safety: {} }), watch()));
		const local = sdk.agents[0]?.options.local ?? {};
		expect("autoReview" in local).toBe(false);
		expect("sandboxOptions" in local).toBe(false);
		await runLease(
			await pool.acquire(request(second, { safety: { autoReview: true, sandboxOptions: { enabled: true } } }), watch()),
		);
		expect(sdk.agents).toHaveLength(2);
		expect(sdk.agents[1]?.options.local).toMatchObject({ autoReview: true, sandboxOptions: { enabled: true } });
		expect(pool.poolKey(request(first, { safety: { autoReview: true } }))).toEndWith("|review");
		expect(pool.poolKey(request(first, { safety: {} }))).toBe(pool.poolKey(request(first)));
	});
});

describe("reloadConfig", () => {
	test("no agent yet → no-agent; with an agent → reload() on it, and the next turn stays incremental", async () => {
		const { sdk, pool } = setup();
		expect(await pool.reloadConfig()).toBe("no-agent");
		expect(sdk.reloads).toEqual([]);
		await runLease(await pool.acquire(request(first), watch()));
		expect(await pool.reloadConfig()).toBe("reloaded");
		expect(sdk.reloads).toEqual([sdk.agents[0]?.agentId as string]);
		await runLease(await pool.acquire(request(second), watch()));
		expect(sdk.agents).toHaveLength(1);
		expect(sdk.sends[1]?.text).not.toContain("<pi_instructions>");
	});
});
