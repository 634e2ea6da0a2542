import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { lastPlanEntry, PLAN_ENTRY_TYPE, planOfRun } from "../../src/plan/capture.ts";
import { parsePlan, planCardText } from "../../src/plan/card.ts";

describe("parsePlan: the card a user reads", () => {
	test("a heading, numbered steps and the files they name", () => {
		const plan = parsePlan(
			[
				"# Add a **/hello** command",
				"",
				"Greets the user.",
				"",
				"1. Create `src/hello.ts` with the handler",
				"2. Register it in [the command table](src/commands.ts#L12)",
				"   1. nested detail stays out",
				"3. Test it in `test/hello.test.ts:4` (run `npm test`, see `process.env` and https://example.com/a.ts)",
			].join("\n"),
		);
		expect(plan.title).toBe("Add a /hello command");
		expect(plan.steps).toEqual([
			"Create `src/hello.ts` with the handler",
			"Register it in the command table",
			"Test it in `test/hello.test.ts:4` (run `npm test`, see `process.env` and https://example.com/a.ts)",
		]);
		expect(plan.files).toEqual(["src/hello.ts", "test/hello.test.ts", "src/commands.ts"]);
	});

	test("Cursor's front matter: its name and to-dos win", () => {
		const plan = parsePlan(
			[
				"---",
				'name: "Dark mode"',
				"overview: Adds a theme switch",
				"todos:",
				"  - id: one",
				"    content: Add the theme tokens",
				"  - id: two",
				"    content: Wire the toggle into `src/ui/header.tsx`",
				"---",
				"# Something else",
				"1. not a step when to-dos exist",
			].join("\n"),
		);
		expect(plan.title).toBe("Dark mode");
		expect(plan.steps).toEqual(["Add the theme tokens", "Wire the toggle into `src/ui/header.tsx`"]);
		expect(plan.files).toEqual([]); // files come from the plan's body, not its front matter
	});

	test("checkbox items, then numbered headings, count as steps; code samples do not", () => {
		expect(parsePlan("Plan\n- [ ] first\n- [x] second").steps).toEqual(["first", "second"]);
		const headed = parsePlan("# Refactor\n## 1. Split `a.py`\n```\n1. code, not a step\n```\n### Step 2: Move tests");
		expect(headed.steps).toEqual(["Split `a.py`", "Move tests"]);
		expect(headed.files).toEqual(["a.py"]);
	});

	test("a plan without structure keeps its first line as title and shows as written", () => {
		const plan = parsePlan("  Just rename the function and update callers.\nNothing else.  ");
		expect(plan).toEqual({
			title: "Just rename the function and update callers.",
			steps: [],
			files: [],
			text: "Just rename the function and update callers.\nNothing else.",
			body: "Just rename the function and update callers.\nNothing else.",
			stepsFromTodos: false,
		});
		expect(planCardText(plan)).toBe(plan.text);
		expect(parsePlan("").title).toBe("Plan");
	});

	test("the card shows each step once: the plan below its title, then the files it names", () => {
		expect(planCardText(parsePlan("# T\n1. Edit `a.ts`\n2. Ship"))).toBe("1. Edit `a.ts`\n2. Ship\n\nFiles: a.ts");
		// A heading that is not the title stays; the front matter's to-dos come first, its YAML never shows.
		const todos = parsePlan("---\nname: Dark\ntodos:\n  - content: Add `t.css`\n---\n# Notes\nKeep it small.");
		expect(planCardText(todos)).toBe("1. Add `t.css`\n\n# Notes\nKeep it small.");
		expect(planCardText(parsePlan("# Only a title"))).toBe("# Only a title");
	});

	test("any markdown gives a bounded card that keeps the plan", () => {
		fc.assert(
			fc.property(fc.string({ unit: "grapheme", maxLength: 3000 }), (markdown) => {
				const plan = parsePlan(markdown);
				expect(plan.title.length).toBeGreaterThan(0);
				expect(plan.title.length).toBeLessThanOrEqual(160);
				expect(plan.title).not.toContain("\n");
				expect(plan.steps.length).toBeLessThanOrEqual(30);
				for (const step of plan.steps) expect(step.length).toBeLessThanOrEqual(160);
				expect(plan.files.length).toBeLessThanOrEqual(20);
				for (const file of plan.files) expect(file).not.toMatch(/\s/);
				expect(plan.text).toBe(markdown.trim());
				const card = planCardText(plan);
				if (plan.body !== "") expect(card).toContain(plan.body);
				// Nothing shown twice: without to-dos, the card is the plan (less its title) and one files line.
				const filesLine = plan.files.length > 0 ? `Files: ${plan.files.join(", ")}`.length + 2 : 0;
				if (!plan.stepsFromTodos) expect(card.length).toBeLessThanOrEqual(plan.text.length + filesLine);
			}),
			{ numRuns: 300 },
		);
	});
});

const CWD = "/home/user/project";
const user = { role: "user", content: "make a plan" };
const answer = (text: string, extra: object = {}) => ({
	role: "assistant",
	provider: "cursor",
	stopReason: "stop",
	content: [
		{ type: "thinking", thinking: "hmm" },
		{ type: "text", text },
	],
	...extra,
});
const planCard = (plan: string, extra: object = {}) => ({
	role: "toolResult",
	toolName: "cursor",
	isError: false,
	details: { cursorTool: "createPlan", status: "success", plan },
	...extra,
});

describe("planOfRun: where a plan-mode run's plan is", () => {
	test("Cursor's last plan card wins over the answer that follows it", () => {
		const messages = [
			user,
			answer("", { stopReason: "toolUse" }),
			planCard("# Old"),
			planCard("# New"),
			answer("Done."),
		];
		expect(planOfRun(messages, CWD)).toBe("# New");
	});

	test("without a plan card, the answer is the plan (workspace paths relative)", () => {
		expect(planOfRun([user, answer(`1. Edit \`${CWD}/src/a.ts\``)], CWD)).toBe("1. Edit `src/a.ts`");
	});

	test("failed, aborted, empty and non-Cursor runs have no plan; a failed plan card is not one", () => {
		expect(planOfRun([user, answer("partial", { stopReason: "error" })], CWD)).toBeUndefined();
		expect(planOfRun([user, answer("partial", { stopReason: "aborted" })], CWD)).toBeUndefined();
		expect(planOfRun([user, answer("  ")], CWD)).toBeUndefined();
		expect(planOfRun([user, answer("a plan", { provider: "openai" })], CWD)).toBeUndefined();
		expect(planOfRun([user], CWD)).toBeUndefined();
		expect(planOfRun([user, planCard("# Bad", { isError: true }), answer("the answer")], CWD)).toBe("the answer");
	});

	test("the last valid plan entry on the branch is the session's last plan", () => {
		const entry = (data: unknown) => ({ type: "custom", customType: PLAN_ENTRY_TYPE, data });
		expect(lastPlanEntry([])).toBeUndefined();
		expect(
			lastPlanEntry([
				entry({ text: "first" }),
				{ type: "custom", customType: "pi-cursor-sdk:mode", data: { mode: "agent" } },
				entry({ text: "second" }),
				entry({ text: 3 }),
				entry(null),
			]),
		).toBe("second");
	});
});
