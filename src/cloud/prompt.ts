// What a cloud turn sends. A new cloud agent gets Pi's instructions and the latest user message (`fresh`, the
// default) or, with `bootstrap`, the prior conversation too; an agent that already holds the conversation gets only
// the latest user message.
import type { Message } from "@earendil-works/pi-ai";
import { buildBootstrapPrompt, buildIncrementalPrompt, type CursorPrompt } from "../prompt/transcript.ts";
import type { CloudContext } from "./options.ts";

export function cloudPrompt(messages: readonly Message[], context: CloudContext, continuing: boolean): CursorPrompt {
	const latest = messages.findLast((message) => message.role === "user");
	if (continuing) return buildIncrementalPrompt(latest ? [latest] : []);
	if (context === "bootstrap") return buildBootstrapPrompt(messages);
	return buildBootstrapPrompt(messages.filter((message) => message.role === "system" || message === latest));
}
