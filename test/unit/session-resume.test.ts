// resumeHandleOf: which `pi-cursor-sdk:resume` entry of a branch a restarted Pi may continue from.
import { describe, expect, test } from "bun:test";
import { RESUME_ENTRY_TYPE, type ResumeHandle, resumeHandleOf } from "../../src/session/resume.ts";

const handle = (agentId: string): ResumeHandle => ({
	agentId,
	storeDir: `/state/pi-sessions/${agentId}`,
	coverage: { poolKey: "k", count: 2, fingerprint: "f".repeat(32), instructions: "i".repeat(32), incrementalSends: 0 },
});
const resume = (data: unknown) => ({ type: "custom", customType: RESUME_ENTRY_TYPE, data, id: "r", parentId: null });
const message = (role: string) => ({ type: "message", message: { role, content: [] }, id: "m", parentId: null });
const other = (customType: string, data: unknown = {}) => ({ type: "custom", customType, data });

describe("resumeHandleOf", () => {
	test("an empty branch, or one without resume entries, has no handle", () => {
		expect(resumeHandleOf([])).toBeUndefined();
		expect(resumeHandleOf([message("system"), message("user"), message("assistant")])).toBeUndefined();
	});

	test("returns the last handle of the branch", () => {
		const branch = [
			message("user"),
			resume(handle("agent-1")),
			message("assistant"),
			message("user"),
			resume(handle("agent-2")),
			message("assistant"),
		];
		expect(resumeHandleOf(branch)).toEqual(handle("agent-2"));
	});

	test("entries after the handle that are not user messages keep it valid", () => {
		const branch = [
			resume(handle("agent-1")),
			message("assistant"),
			message("toolResult"),
			other("pi-cursor-sdk:mode", { mode: "plan" }),
			{ type: "model_change", provider: "cursor", modelId: "composer-2" },
			{ type: "compaction", summary: "s" },
		];
		expect(resumeHandleOf(branch)).toEqual(handle("agent-1"));
	});

	test("a user message after the last handle → undefined (the old process may already have sent it)", () => {
		const branch = [resume(handle("agent-1")), message("assistant"), message("user")];
		expect(resumeHandleOf(branch)).toBeUndefined();
		// … even when an older handle precedes it
		expect(resumeHandleOf([resume(handle("agent-0")), message("user"), ...branch])).toBeUndefined();
	});

	test("malformed handle data is ignored, never returned, never thrown", () => {
		const malformed: unknown[] = [
			undefined,
			null,
			"agent-1",
			42,
			{},
			{ agentId: "agent-1" },
			{ agentId: "agent-1", storeDir: "/s" },
			{ agentId: "agent-1", storeDir: "/s", coverage: {} },
			{ agentId: 7, storeDir: "/s", coverage: { fingerprint: "f" } },
			{ agentId: "agent-1", storeDir: null, coverage: { fingerprint: "f" } },
			{ agentId: "agent-1", storeDir: "/s", coverage: { fingerprint: 1 } },
		];
		for (const data of malformed) {
			expect(resumeHandleOf([resume(data)])).toBeUndefined();
			// A malformed latest handle does not fall back to an older one: its coverage would be stale.
			expect(resumeHandleOf([resume(handle("agent-old")), message("assistant"), resume(data)])).toBeUndefined();
		}
	});

	test("garbage entries in the branch are skipped", () => {
		const branch = [resume(handle("agent-1")), null, undefined, 3, "x", {}, { type: "message" }, other("x", null)];
		expect(resumeHandleOf(branch)).toEqual(handle("agent-1"));
	});

	test("entries of other custom types with handle-shaped data are not handles", () => {
		expect(resumeHandleOf([other("pi-cursor-sdk:resume-v0", handle("agent-1"))])).toBeUndefined();
		expect(resumeHandleOf([{ type: "custom_message", customType: RESUME_ENTRY_TYPE, data: handle("a") }])).toBe(
			undefined,
		);
	});

	describe("with every session entry (allEntries)", () => {
		const entry = (id: string, data: unknown) => ({ ...resume(data), id });
		test("a handle whose agent went on in another branch is refused", () => {
			const h1 = entry("r1", handle("agent-1"));
			const branch = [message("user"), h1, message("assistant")]; // navigated back to the first reply
			const all = [...branch, message("user"), entry("r2", handle("agent-1")), message("assistant")];
			expect(resumeHandleOf(branch)).toEqual(handle("agent-1")); // the branch alone cannot tell
			expect(resumeHandleOf(branch, all)).toBeUndefined();
		});

		test("the latest handle of its agent, or later handles of other agents, keep it valid", () => {
			const h1 = entry("r1", handle("agent-1"));
			const branch = [message("user"), h1, message("assistant")];
			expect(resumeHandleOf(branch, branch)).toEqual(handle("agent-1"));
			const other = [...branch, message("user"), entry("r2", handle("agent-2"))];
			expect(resumeHandleOf(branch, other)).toEqual(handle("agent-1"));
			// entries matched by id when the objects differ (entries re-read from disk)
			const reread = structuredClone(other);
			expect(resumeHandleOf(branch, [...reread, entry("r3", handle("agent-1"))])).toBeUndefined();
		});

		test("garbage in allEntries is skipped", () => {
			const h1 = entry("r1", handle("agent-1"));
			expect(resumeHandleOf([h1], [null, 1, h1, undefined, "x", { type: "custom" }])).toEqual(handle("agent-1"));
		});
	});
});
