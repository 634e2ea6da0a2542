// A broken SDK update never wedges or ends a turn: a malformed update (here `null`, which would make a naive
// callback throw, and the SDK swallows callback errors) is ignored, the rest of Cursor's answer streams on, and the
// turn ends as Cursor ends it.
import { afterEach, expect, test } from "bun:test";
import { FakeCursorSdk } from "../support/fake-sdk.ts";
import { createHarnessSession, type HarnessSession } from "../support/harness.ts";

const open: HarnessSession[] = [];
afterEach(async () => {
	for (const s of open.splice(0)) await s.close();
});

test("a malformed SDK update is ignored: the answer streams on and the turn ends as Cursor ends it", async () => {
	let sends = 0;
	const sdk = new FakeCursorSdk({
		script: () =>
			++sends === 1
				? [{ text: "partial " }, { raw: null }, { raw: { type: "text-delta", text: 7 } }, { text: "and the rest" }]
				: [{ text: "fine" }],
	});
	const h = await createHarnessSession({ sdk });
	open.push(h);
	await h.session.prompt("hello");
	expect(h.errorMessages()).toEqual([]);
	expect(h.session.getLastAssistantText()).toBe("partial and the rest");
	expect(sdk.sends[0]?.status).toBe("finished");
	// The agent is not left busy: the next turn is answered on the same agent.
	await h.session.prompt("again");
	expect(h.errorMessages()).toEqual([]);
	expect(h.session.getLastAssistantText()).toBe("fine");
	expect(sdk.sends[1]?.agentId).toBe(sdk.sends[0]?.agentId);
});
