// The scripted Cursor runs of the plan-then-build tests: a plan-mode run that writes Cursor's plan (its `createPlan`
// tool call) and the build run that answers "Implement the plan above".
import type { Scenario } from "./fake-backend/client.ts";

export const PLAN_MARKDOWN = [
	"# Add a /hello command",
	"",
	"1. Create `src/hello.ts` with the handler",
	"2. Register it in `src/commands.ts`",
	"3. Cover it in `test/hello.test.ts`",
].join("\n");

/** Cursor looks around, writes its plan, and says so. */
export const PLAN_RUN: Scenario = {
	name: "plan",
	steps: [
		{ thinking: "Looking at the commands." },
		{ toolCallStarted: { callId: "plan-1", createPlan: { plan: PLAN_MARKDOWN, name: "Add a /hello command" } } },
		{
			toolCallCompleted: {
				callId: "plan-1",
				createPlan: { plan: PLAN_MARKDOWN, name: "Add a /hello command", result: "success" },
			},
		},
		{ text: "The plan is ready." },
		{ turnEnded: { inputTokens: 40, outputTokens: 12 } },
	],
};

export const BUILD_ANSWER = "Built: src/hello.ts is in place.";
export const BUILD_RUN: Scenario = {
	name: "build",
	steps: [{ text: BUILD_ANSWER }, { turnEnded: { inputTokens: 50, outputTokens: 8 } }],
};
