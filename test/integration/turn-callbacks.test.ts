// A broken stream never wedges a turn: a malformed SDK update is ignored and the answer goes on (only Cursor ends a
// turn); a throwing provider hook in another extension does not take the Cursor turn down either.
import { afterEach, expect, test } from "bun:test";
import { FakeCursorSdk } from "../support/fake-sdk.ts";
import { createHarnessSession, type HarnessSession } from "../support/harness.ts";

const open: HarnessSession[] = [];
afterEach(async () => {
	for (const s of open.splice(0)) await s.close();
});

test("a malformed SDK update is ignored: the answer goes on whole and the agent is free for the next turn", async () => {
	let sends = 0;
	const sdk = new FakeCursorSdk({
		script: () =>
			++sends === 1 ? [{ text: "partial " }, { raw: null }, { text: "and the rest" }] : [{ text: "fine" }],
	});
	const h = await createHarnessSession({ sdk });
	open.push(h);
	await h.session.prompt("hello");
	expect(h.errorMessages()).toEqual([]);
	expect(h.session.getLastAssistantText()).toBe("partial and the rest");
	expect(sdk.sends[0]?.status).toBe("finished");
	await h.session.prompt("again");
	expect(h.errorMessages()).toEqual([]);
	expect(h.session.getLastAssistantText()).toBe("fine");
});
