import { expect, test } from "bun:test";
import type { Message } from "@earendil-works/pi-ai";
import { cloudPrompt } from "../../src/cloud/prompt.ts";
import { branchAgents, CLOUD_AGENT_ENTRY } from "../../src/runtime/cloud.ts";

const messages = [
	{ role: "system", content: "You are Pi. Be brief.", timestamp: 1 },
	{ role: "user", content: "Earlier question", timestamp: 2 },
	{ role: "assistant", content: [{ type: "text", text: "Earlier answer" }], timestamp: 3 },
	{ role: "user", content: "Fix the login", timestamp: 4 },
] as unknown as Message[];

test("a new agent: fresh sends Pi's instructions and the latest message; bootstrap adds the conversation", () => {
	const fresh = cloudPrompt(messages, "fresh", false).text;
	expect(fresh).toContain("You are Pi. Be brief.");
	expect(fresh).toContain("Fix the login");
	expect(fresh).not.toContain("Earlier question");
	const bootstrap = cloudPrompt(messages, "bootstrap", false).text;
	expect(bootstrap).toContain("You are Pi. Be brief.");
	expect(bootstrap).toContain("Earlier question");
	expect(bootstrap).toContain("Earlier answer");
	expect(bootstrap).toContain("Fix the login");
});

test("an agent that holds the conversation gets only the latest message", () => {
	const followUp = cloudPrompt(messages, "bootstrap", true).text;
	expect(followUp).toContain("Fix the login");
	expect(followUp).not.toContain("Earlier question");
	expect(followUp).not.toContain("You are Pi.");
});

test("the agents a session branch holds: valid cloud-agent entries only, oldest first", () => {
	const agent = (agentId: unknown) => ({ type: "custom", customType: CLOUD_AGENT_ENTRY, data: { agentId } });
	const branch = [
		agent("bc-1111"),
		{ type: "custom", customType: "other", data: { agentId: "bc-2222" } },
		agent("not-an-id"),
		agent(42),
		null,
		agent("bc-3333"),
	];
	expect(branchAgents(branch)).toEqual(["bc-1111", "bc-3333"]);
});
