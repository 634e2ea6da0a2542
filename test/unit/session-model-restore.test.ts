// The model Pi would have started a session with, had its availability check settled: recordedModel reads a branch as
// Pi does on resume; cursorModelPiWouldPick applies Pi's order (recorded, settings default, first usable model).
import { afterAll, describe, expect, test } from "bun:test";
import { PI_THINKING_LEVELS } from "../../src/catalog/thinking-map.ts";
import {
	cliThinkingLevel,
	cursorModelPiWouldPick,
	type PiStart,
	recordedLevel,
	recordedModel,
} from "../../src/session/model-restore.ts";
import { anyJson, fc, PropertyTarget } from "../support/property.ts";

const modelChange = (provider: string, modelId: string) => ({ type: "model_change", provider, modelId });
const thinking = (thinkingLevel: string) => ({ type: "thinking_level_change", thinkingLevel });
const assistant = (provider: string, model: string) => ({
	type: "message",
	message: { role: "assistant", provider, model, content: [] },
});
const user = { type: "message", message: { role: "user", content: [{ type: "text", text: "hi" }] } };
const models = (...refs: string[]) =>
	refs.map((ref) => {
		const [provider = "", id = ""] = ref.split("/");
		return { provider, id };
	});

describe("recordedModel", () => {
	test("the last model_change and thinking level", () => {
		const branch = [modelChange("cursor", "composer-2"), thinking("high"), user, assistant("cursor", "composer-2")];
		const recorded = [...branch, modelChange("cursor", "grok-4.6"), thinking("low")];
		expect(recordedModel(recorded)).toEqual({ provider: "cursor", modelId: "grok-4.6" });
		expect(recordedLevel(recorded)).toBe("low");
	});

	test("an assistant message after the last model_change names the model, as in Pi", () => {
		expect(recordedModel([modelChange("openai", "gpt-5"), user, assistant("cursor", "composer-2")])).toEqual({
			provider: "cursor",
			modelId: "composer-2",
		});
	});

	test("no model entry: nothing recorded; an unknown thinking level keeps the last valid one", () => {
		expect(recordedModel([])).toBeUndefined();
		expect(recordedModel([user, thinking("high")])).toBeUndefined();
		const branch = [modelChange("cursor", "composer-2"), thinking("medium"), thinking("turbo")];
		expect(recordedLevel(branch)).toBe("medium");
	});
});

describe("cursorModelPiWouldPick", () => {
	const start = (over: Partial<PiStart>): PiStart => ({
		branch: [],
		defaultModel: undefined,
		thinkingFor: () => undefined,
		available: models("cursor/composer-2", "cursor/grok-4.6", "cursor/gpt-5.5"),
		...over,
	});

	test("a resumed session: the model and thinking level it recorded", () => {
		const branch = [modelChange("cursor", "grok-4.6"), thinking("low"), user, assistant("cursor", "grok-4.6")];
		const defaultModel = { provider: "cursor", modelId: "gpt-5.5" };
		expect(cursorModelPiWouldPick(start({ branch, defaultModel }))).toEqual({
			modelId: "grok-4.6",
			thinkingLevel: "low",
		});
	});

	test("a new session: the settings' default, with its thinking level, else Pi's default level", () => {
		const defaultModel = { provider: "cursor", modelId: "gpt-5.5" };
		const thinkingFor = (ref: { modelId: string }) => (ref.modelId === "gpt-5.5" ? "high" : undefined);
		expect(cursorModelPiWouldPick(start({ defaultModel, thinkingFor }))).toEqual({
			modelId: "gpt-5.5",
			thinkingLevel: "high",
		});
		expect(cursorModelPiWouldPick(start({ defaultModel }))).toEqual({ modelId: "gpt-5.5", thinkingLevel: "medium" });
	});

	test("no usable default: the first usable model", () => {
		const defaultModel = { provider: "cursor", modelId: "retired-model" };
		expect(cursorModelPiWouldPick(start({ defaultModel }))?.modelId).toBe("composer-2");
		expect(cursorModelPiWouldPick(start({}))?.modelId).toBe("composer-2");
	});

	test("a recorded model Pi cannot use falls back the same way", () => {
		const branch = [modelChange("cursor", "retired-model"), thinking("low")];
		expect(cursorModelPiWouldPick(start({ branch }))).toEqual({ modelId: "composer-2", thinkingLevel: "medium" });
	});

	test("the command line's --thinking wins over the recorded and the settings' level, as in Pi", () => {
		const resumed = [modelChange("cursor", "grok-4.6"), thinking("low"), user, assistant("cursor", "grok-4.6")];
		const defaultModel = { provider: "cursor", modelId: "grok-4.6" };
		const thinkingFor = () => "xhigh";
		expect(cursorModelPiWouldPick(start({ branch: resumed, cliThinking: "high" }))?.thinkingLevel).toBe("high");
		// A new session that lost the race: Pi recorded "off" (no model to think), the flag's level is the one.
		const lost = [thinking("off")];
		expect(cursorModelPiWouldPick(start({ branch: lost, defaultModel, thinkingFor, cliThinking: "low" }))).toEqual({
			modelId: "grok-4.6",
			thinkingLevel: "low",
		});
		expect(cursorModelPiWouldPick(start({ branch: lost, defaultModel, thinkingFor }))?.thinkingLevel).toBe("xhigh");
		expect(cursorModelPiWouldPick(start({ branch: lost, defaultModel, cliThinking: "turbo" }))?.thinkingLevel).toBe(
			"medium",
		);
	});

	test("a resumed session keeps its level whichever model is picked; without one, the settings' default level", () => {
		const retired = [modelChange("cursor", "retired-model"), thinking("low"), user];
		const thinkingFor = () => "xhigh";
		expect(cursorModelPiWouldPick(start({ branch: retired, thinkingFor }))).toEqual({
			modelId: "composer-2",
			thinkingLevel: "low",
		});
		const unleveled = [modelChange("cursor", "grok-4.6"), user, assistant("cursor", "grok-4.6")];
		expect(cursorModelPiWouldPick(start({ branch: unleveled, thinkingFor, defaultThinking: "minimal" }))).toEqual({
			modelId: "grok-4.6",
			thinkingLevel: "minimal",
		});
		expect(cursorModelPiWouldPick(start({ branch: unleveled, thinkingFor }))?.thinkingLevel).toBe("medium");
	});

	test("a branch without context is a new session: a model it names does not count", () => {
		const branch = [modelChange("cursor", "grok-4.6"), thinking("high")];
		expect(cursorModelPiWouldPick(start({ branch }))).toEqual({ modelId: "composer-2", thinkingLevel: "medium" });
	});

	test("when Pi's choice is another provider's model, or there is none, nothing is chosen", () => {
		const available = models("other/m1", "cursor/composer-2");
		expect(cursorModelPiWouldPick(start({ available, branch: [modelChange("other", "m1")] }))).toBeUndefined();
		expect(
			cursorModelPiWouldPick(start({ available, defaultModel: { provider: "other", modelId: "m1" } })),
		).toBeUndefined();
		expect(cursorModelPiWouldPick(start({ available }))).toBeUndefined();
		expect(cursorModelPiWouldPick(start({ available: [] }))).toBeUndefined();
	});
});

describe("cliThinkingLevel", () => {
	test("Pi's --thinking <level>: the last valid one, before any --", () => {
		const node = ["/usr/bin/node", "/pi/cli.js"];
		expect(cliThinkingLevel([...node, "-p", "--thinking", "low", "hello"])).toBe("low");
		expect(cliThinkingLevel([...node, "--thinking", "low", "--thinking", "xhigh"])).toBe("xhigh");
		expect(cliThinkingLevel([...node, "--thinking", "low", "--thinking", "turbo"])).toBe("low");
		expect(cliThinkingLevel([...node, "-p", "hello"])).toBeUndefined();
		expect(cliThinkingLevel([...node, "--thinking"])).toBeUndefined();
		expect(cliThinkingLevel([...node, "--", "--thinking", "high"])).toBeUndefined();
		// The flag takes the next argument as its value, as Pi's parser does: "high" is then a message.
		expect(cliThinkingLevel([...node, "--thinking", "--thinking", "high"])).toBeUndefined();
	});
});

describe("cursorModelPiWouldPick on any branch and settings (property)", () => {
	const target = new PropertyTarget("session-lost-model");
	afterAll(() => target.report());

	const id = fc.constantFrom<string>("composer-2", "grok-4.6", "m1", "", "__proto__");
	const provider = fc.constantFrom<string>("cursor", "other", "Cursor");
	const entry = fc.oneof(
		anyJson,
		fc.constant(user),
		fc.tuple(provider, id).map(([p, m]) => modelChange(p, m)),
		fc.tuple(provider, id).map(([p, m]) => assistant(p, m)),
		fc.oneof(fc.constantFrom(...PI_THINKING_LEVELS), fc.string({ maxLength: 6 })).map(thinking),
		fc.record({ type: fc.constantFrom("model_change", "thinking_level_change", "message"), message: anyJson }),
	);
	const piStart = fc.record({
		branch: fc.array(entry, { maxLength: 10 }),
		defaultModel: fc.option(fc.record({ provider, modelId: id }), { nil: undefined }),
		level: fc.option(fc.string({ maxLength: 6 }), { nil: undefined }),
		defaultThinking: fc.option(fc.oneof(fc.constantFrom(...PI_THINKING_LEVELS), fc.string({ maxLength: 6 })), {
			nil: undefined,
		}),
		cliThinking: fc.option(fc.oneof(fc.constantFrom(...PI_THINKING_LEVELS), fc.string({ maxLength: 6 })), {
			nil: undefined,
		}),
		available: fc.uniqueArray(fc.record({ provider, id }), {
			maxLength: 4,
			selector: (m) => `${m.provider}/${m.id}`,
		}),
	});

	test("never throws; a choice is always a usable Cursor model with a level Pi knows", async () => {
		await target.check(
			fc.property(piStart, ({ level, ...rest }) => {
				const choice = cursorModelPiWouldPick({ ...rest, thinkingFor: () => level });
				if (!choice) return;
				expect(rest.available).toContainEqual({ provider: "cursor", id: choice.modelId });
				expect(PI_THINKING_LEVELS).toContain(choice.thinkingLevel);
				const flag = PI_THINKING_LEVELS.find((l) => l === rest.cliThinking);
				if (flag) expect(choice.thinkingLevel).toBe(flag);
			}),
			400,
		);
	});

	test("only Cursor's models usable: a choice always exists", async () => {
		await target.check(
			fc.property(piStart, ({ level, available, ...rest }) => {
				const cursorOnly = [
					{ provider: "cursor", id: "composer-2" },
					...available.filter((m) => m.provider === "cursor"),
				];
				const unique = cursorOnly.filter((m, i) => cursorOnly.findIndex((n) => n.id === m.id) === i);
				expect(cursorModelPiWouldPick({ ...rest, available: unique, thinkingFor: () => level })).toBeDefined();
			}),
			400,
		);
	});
});
