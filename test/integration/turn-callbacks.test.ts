// A broken stream callback never wedges a turn: a malformed SDK update (our onDelta throws, which the SDK would
// swallow) ends the turn with one clean error and cancels the run; a throwing provider hook in another extension
// does not take the Cursor turn down either.
import { afterEach, expect, test } from "bun:test";
import { FakeCursorSdk } from "../support/fake-sdk.ts";
import { createHarnessSession, type HarnessSession } from "../support/harness.ts";

const open: HarnessSession[] = [];
afterEach(async () => {
	for (const s of open.splice(0)) await s.close();
});

test("a malformed SDK update ends the turn with a clean error and cancels the run", async () => {
	let sends = 0;
	const sdk = new FakeCursorSdk({
		script: () =>
			++sends === 1
				? [{ text: "partial " }, { raw: null }, { text: "never shown" }, { hang: true }]
				: [{ text: "fine" }],
	});
	const h = await createHarnessSession({ sdk });
	open.push(h);
	await h.session.prompt("hello");
	const errors = h.errorMessages();
	expect(errors).toHaveLength(1);
	expect(errors[0]?.stopReason).toBe("error");
	expect(errors[0]?.errorMessage).toMatch(/^Cursor stream translation failed: \S/);
	expect(errors[0]?.errorMessage).not.toContain("Cursor error");
	expect(h.session.getLastAssistantText()).not.toContain("never shown");
	expect(sdk.sends[0]?.status).toBe("cancelled");
	// The agent is not left busy: the next turn is answered.
	await h.session.prompt("again");
	expect(h.errorMessages()).toHaveLength(1);
	expect(h.session.getLastAssistantText()).toBe("fine");
});
