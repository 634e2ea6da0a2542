// `cursor_ask_question` (opt-in, `PI_CURSOR_ASK_QUESTION=1`): a Pi tool Cursor calls through the bridge
// (`pi__cursor_ask_question`) to ask the user something in Pi's UI. Off by default, so Cursor states an assumption.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

export const ASK_QUESTION_TOOL = "cursor_ask_question";
/** Emitted on Pi's event bus while the question waits for the user (`{ active: true }`, then `{ active: false }`). */
export const ASK_QUESTION_BLOCKED_EVENT = "pi-cursor-sdk:ask-question:blocked";

export const NO_UI_ANSWER =
	"No one can answer: Pi runs without an interactive UI (print, JSON or RPC without dialogs). State your assumption and continue.";

export function registerAskQuestion(pi: ExtensionAPI): void {
	pi.registerTool({
		name: ASK_QUESTION_TOOL,
		label: "Ask the user",
		description:
			"Ask the user a question in Pi and wait for the answer. Give options when the answer is one of a few choices.",
		parameters: Type.Object({
			question: Type.String({ description: "The question, in one or two sentences" }),
			options: Type.Optional(Type.Array(Type.String(), { description: "Choices to pick from (optional)" })),
		}),
		// One dialog at a time: parallel calls would overlap.
		executionMode: "sequential",
		async execute(_id, params, signal, _onUpdate, ctx) {
			if (!ctx.hasUI) return { content: [{ type: "text", text: NO_UI_ANSWER }], details: {} };
			pi.events.emit(ASK_QUESTION_BLOCKED_EVENT, { active: true });
			try {
				const answer =
					params.options && params.options.length > 0
						? await ctx.ui.select(params.question, params.options, { signal })
						: await ctx.ui.input(params.question, undefined, { signal });
				const text = answer?.trim() ? `The user answered: ${answer.trim()}` : "The user gave no answer.";
				return { content: [{ type: "text", text }], details: {} };
			} finally {
				pi.events.emit(ASK_QUESTION_BLOCKED_EVENT, { active: false });
			}
		},
	});
}
