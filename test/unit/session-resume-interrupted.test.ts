// A reopened session whose last turn was cut off (Pi crashed mid-run): resumeCandidateOf finds the branch's handle and
// the interrupted turn after it, mayResume decides from what the SDK's store records whether the same Cursor agent may
// go on. The property: whatever the branch and the store, the conversation Cursor ends up with holds every user
// message of the branch exactly once, and nothing from a branch the agent went on with elsewhere.
import { afterAll, describe, expect, test } from "bun:test";
import type { AgentRunState } from "../../src/sdk/cursor-sdk.ts";
import {
	mayResume,
	RESUME_ENTRY_TYPE,
	type ResumeHandle,
	resumeCandidateOf,
	resumeHandleOf,
	sessionResume,
} from "../../src/session/resume.ts";
import { fc, PropertyTarget } from "../support/property.ts";

const target = new PropertyTarget("interrupted-turn-resume");
afterAll(() => target.report());

const handle = (agentId: string): ResumeHandle => ({
	agentId,
	storeDir: `/state/pi-sessions/${agentId}`,
	coverage: { poolKey: "k", count: 2, fingerprint: "f".repeat(32), instructions: "i".repeat(32), incrementalSends: 0 },
});
let nextId = 0;
const resume = (agentId: string) => ({
	type: "custom",
	customType: RESUME_ENTRY_TYPE,
	data: handle(agentId),
	id: `r${nextId++}`,
	parentId: null,
});
const message = (role: string, text = role) => ({
	type: "message",
	message: { role, content: [{ type: "text", text }] },
	id: `m${nextId++}`,
	parentId: null,
});

const ACTIVE: AgentRunState = { kind: "active", conversationAdvanced: false };
const ADVANCED: AgentRunState = { kind: "active", conversationAdvanced: true };
const IDLE: AgentRunState = { kind: "idle" };

describe("resumeCandidateOf", () => {
	test("a user message after the handle marks the turn interrupted; the handle is still found", () => {
		const h = resume("agent-1");
		const branch = [message("user"), message("assistant"), h, message("user", "crashed prompt")];
		expect(resumeCandidateOf(branch, branch)).toEqual({ handle: handle("agent-1"), interrupted: true });
		expect(resumeHandleOf(branch, branch)).toBeUndefined(); // the plain rule still refuses it
	});

	test("Cursor's replayed tool calls of the interrupted run (assistant, tool results) keep it interrupted", () => {
		const branch = [resume("agent-1"), message("user"), message("assistant"), message("toolResult")];
		expect(resumeCandidateOf(branch)?.interrupted).toBe(true);
	});

	test("without a user message after it, the handle is not interrupted", () => {
		const branch = [message("user"), message("assistant"), resume("agent-1"), { type: "model_change" }];
		expect(resumeCandidateOf(branch)).toEqual({ handle: handle("agent-1"), interrupted: false });
	});

	test("a handle whose agent went on elsewhere is no candidate, interrupted or not", () => {
		const h = resume("agent-1");
		const branch = [h, message("user")];
		const all = [...branch, message("user"), resume("agent-1")];
		expect(resumeCandidateOf(branch, all)).toBeUndefined();
	});

	test("sessionResume: the handle and the interrupted turn of a saved session; none without a file or when off", () => {
		const branch = [resume("agent-1"), message("user")];
		const session = (file: string | undefined) => ({
			getSessionFile: () => file,
			getBranch: () => branch,
			getEntries: () => branch,
		});
		expect(sessionResume(session("/s.jsonl"), true)).toEqual({ resume: handle("agent-1"), interrupted: true });
		expect(sessionResume(session(undefined), true)).toEqual({ resume: undefined, interrupted: false });
		expect(sessionResume(session("/s.jsonl"), false)).toEqual({ resume: undefined, interrupted: false });
	});
});

describe("mayResume", () => {
	const interrupted = { handle: handle("agent-1"), interrupted: true };
	test("a finished last turn always continues its agent", () => {
		expect(mayResume({ handle: handle("agent-1"), interrupted: false }, undefined, true)).toBe(true);
	});

	test("an interrupted turn continues the agent only when its run is still active and Cursor recorded none of it", () => {
		expect(mayResume(interrupted, ACTIVE, false)).toBe(true);
		// Cursor's conversation moved during the run: it may hold the prompt (and some of its work) already.
		expect(mayResume(interrupted, ADVANCED, false)).toBe(false);
		// The run ended (it finished before Pi could record it, or failed): the conversation may hold the prompt.
		expect(mayResume(interrupted, IDLE, false)).toBe(false);
		// The store does not know the agent, or could not be read.
		expect(mayResume(interrupted, undefined, false)).toBe(false);
	});

	test("while another live Pi holds the session it may own the run: no", () => {
		expect(mayResume(interrupted, ACTIVE, true)).toBe(false);
	});
});

// --- the property ---------------------------------------------------------------------------------------------------

type Step =
	| { kind: "user" }
	| { kind: "assistant" }
	| { kind: "toolResult" }
	| { kind: "other" }
	| { kind: "resume"; agent: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
	fc.constant<Step>({ kind: "user" }),
	fc.constant<Step>({ kind: "assistant" }),
	fc.constant<Step>({ kind: "toolResult" }),
	fc.constant<Step>({ kind: "other" }),
	fc.record({ kind: fc.constant("resume" as const), agent: fc.integer({ min: 0, max: 2 }) }),
);

const runStateArb: fc.Arbitrary<AgentRunState | undefined> = fc.constantFrom(undefined, IDLE, ACTIVE, ADVANCED);

/** A session: the branch Pi reopens, and entries of other branches appended after some of its entries. */
const sessionArb = fc.record({
	branch: fc.array(stepArb, { maxLength: 14 }),
	elsewhere: fc.array(fc.record({ after: fc.nat(), step: stepArb }), { maxLength: 4 }),
	runs: fc.array(runStateArb, { minLength: 3, maxLength: 3 }),
	heldByAnotherPi: fc.boolean(),
	/** Where the store cannot tell, whether Cursor's conversation took the interrupted turn's prompt. */
	recordedWhenUnknown: fc.boolean(),
});

function build(steps: readonly Step[], label: string) {
	return steps.map((step, i) => {
		if (step.kind === "resume") return resume(`agent-${step.agent}`);
		if (step.kind === "other") return { type: "custom", customType: "other", data: {}, id: `o${nextId++}` };
		return message(step.kind, `${label}${i}`);
	});
}

const userTexts = (entries: readonly unknown[]): string[] =>
	entries.flatMap((e) => {
		const m = (e as { type?: string; message?: { role?: string; content?: { text?: string }[] } }).message;
		return (e as { type?: string }).type === "message" && m?.role === "user" ? [m.content?.[0]?.text ?? ""] : [];
	});

test("property: the resumed or new conversation holds every user message of the branch exactly once", async () => {
	await target.check(
		fc.property(sessionArb, ({ branch: steps, elsewhere, runs, heldByAnotherPi, recordedWhenUnknown }) => {
			const branch = build(steps, "b");
			const all: unknown[] = [];
			branch.forEach((entry, i) => {
				all.push(entry);
				for (const e of elsewhere) if (e.after % Math.max(branch.length, 1) === i) all.push(...build([e.step], "x"));
			});
			const candidate = resumeCandidateOf(branch, all);
			const at = branch.findLastIndex((e) => (e as { customType?: string }).customType === RESUME_ENTRY_TYPE);
			const run = candidate ? runs[Number(candidate.handle.agentId.slice("agent-".length))] : undefined;
			// What the agent's conversation holds, as the SDK's store and Cursor work: the branch up to its handle, then
			// whatever the agent did after it. On other branches: their messages. After the handle on this branch: the
			// interrupted prompt, unless the run is still marked active, its checkpoint never moved and no live Pi can
			// move it (the conversation is the checkpoint the next run sends); a moved checkpoint holds it.
			const conversation: string[] = [];
			if (candidate) {
				conversation.push(...userTexts(branch.slice(0, at + 1)));
				const later = all.slice(all.indexOf(branch[at]) + 1).filter((e) => !branch.includes(e as never));
				const agentId = candidate.handle.agentId;
				if (later.some((e) => (e as { data?: { agentId?: string } }).data?.agentId === agentId)) {
					conversation.push(...userTexts(later));
				}
				const pending = userTexts(branch.slice(at + 1));
				const untouched = run?.kind === "active" && !run.conversationAdvanced && !heldByAnotherPi;
				const advanced = run?.kind === "active" && run.conversationAdvanced;
				if (pending.length > 0 && !untouched && (advanced || recordedWhenUnknown)) conversation.push(pending[0] ?? "");
			}
			const resumes = candidate !== undefined && mayResume(candidate, run, heldByAnotherPi);
			// Resumed: Cursor continues the conversation and gets everything after the handle as new input. Otherwise a new
			// agent gets the whole branch.
			const cursorGets = resumes ? [...conversation, ...userTexts(branch.slice(at + 1))] : userTexts(branch);
			expect(cursorGets).toEqual(userTexts(branch));
		}),
		500,
	);
});
