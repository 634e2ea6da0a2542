// Pi's TranscriptContext → the text (and images) sent to Cursor. Cursor keeps its own conversation, so a bootstrap
// carries Pi's instructions and the whole prior conversation once; an incremental send carries only what is new.
import { getCurrentSystemPrompt, type ImageContent, type Message, type UserMessage } from "@earendil-works/pi-ai";
import { pointSkillsAtTool } from "./skills.ts";

export interface PromptImage {
	data: string;
	mimeType: string;
}

export interface CursorPrompt {
	text: string;
	images: PromptImage[];
}

export const IMAGE_PLACEHOLDER = "[image omitted from transcript]";
const IMAGE_NOTICE =
	"Images from earlier messages are not available to you (shown as [image omitted from transcript]); if you need one, ask the user to re-attach or describe it.";
const MAX_TOOL_RESULT_CHARS = 20_000;

export const TOOL_BOUNDARY = [
	"<cursor_tool_boundary>",
	"You are answering inside Pi through Cursor. Do all workspace work (reading, searching, editing files, running commands) with your own Cursor tools.",
	'Tool names in Pi\'s instructions and "Historical tool" blocks belong to Pi: they record what already happened and are not callable by you. Never write tool calls as text.',
	"</cursor_tool_boundary>",
].join("\n");

export const TOOL_TAIL_GUARD =
	"(Answer the latest user request. Use your Cursor tools for any file or shell work; never write tool calls as text. Shell commands start in the workspace root, so `cd` explicitly when needed.)";

/** Neutralises our own section tags inside user-controlled text so it cannot close a section early. */
function guard(text: string): string {
	return text.replace(
		/<\/(pi_instructions|conversation_history|latest_user_request|cursor_tool_boundary)>/g,
		"<\\/$1>",
	);
}

/** Text of a message; images become placeholders unless they travel as real images (`sentImages`). */
function textOf(content: string | readonly { type: string; text?: string }[], sentImages = false): string {
	if (typeof content === "string") return content;
	return content
		.map((part) =>
			part.type === "text" ? (part.text ?? "") : part.type === "image" && !sentImages ? IMAGE_PLACEHOLDER : "",
		)
		.filter((part) => part !== "")
		.join("\n");
}

function bounded(text: string): string {
	if (text.length <= MAX_TOOL_RESULT_CHARS) return text;
	return `${text.slice(0, MAX_TOOL_RESULT_CHARS)}\n[… ${text.length - MAX_TOOL_RESULT_CHARS} more characters omitted]`;
}

function renderHistoryMessage(message: Message): string | undefined {
	switch (message.role) {
		case "system":
			return undefined; // instructions are rendered once, from the replayed current system prompt
		case "user":
			return `User:\n${guard(textOf(message.content))}`;
		case "assistant": {
			const parts: string[] = [];
			for (const part of message.content) {
				if (part.type === "text" && part.text.trim() !== "") parts.push(guard(part.text));
				if (part.type === "toolCall") {
					parts.push(
						`[Historical tool request] ${part.name} (id: ${part.id})\narguments: ${guard(JSON.stringify(part.arguments))}`,
					);
				}
			}
			return parts.length > 0 ? `Assistant:\n${parts.join("\n")}` : undefined;
		}
		case "toolResult": {
			const label = message.isError ? "Historical tool error" : "Historical tool result";
			return `[${label}] ${message.toolName} (id: ${message.toolCallId})\n${guard(bounded(textOf(message.content)))}`;
		}
	}
}

function latestUserIndex(messages: readonly Message[]): number {
	for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === "user") return i;
	return -1;
}

function imagesOf(message: UserMessage | undefined): PromptImage[] {
	if (!message || typeof message.content === "string") return [];
	return message.content
		.filter((part): part is ImageContent => part.type === "image")
		.map(({ data, mimeType }) => ({ data, mimeType }));
}

/**
 * The full-context prompt for a new Cursor conversation. `toolGuards: false` (compaction and tree summaries) keeps
 * Pi's instructions but leaves out the coding-tool boundary and tail guard.
 */
/**
 * The first prompt of a Cursor conversation: Pi's instructions, the history and the latest request. `manifest`: the
 * Pi tools Cursor can call through the bridge (bootstrap prompts only). `skillTool`: the bridged name of
 * `cursor_activate_skill`, when offered; Pi's skill catalog then points at it.
 */
export function buildBootstrapPrompt(
	messages: readonly Message[],
	{ toolGuards = true, manifest = "", skillTool }: { toolGuards?: boolean; manifest?: string; skillTool?: string } = {},
): CursorPrompt {
	const latest = latestUserIndex(messages);
	const latestUser = latest >= 0 ? (messages[latest] as UserMessage) : undefined;
	const history = messages.filter((_, i) => i !== latest);
	const sections: string[] = [];
	const piInstructions = getCurrentSystemPrompt(messages).trim();
	const instructions = skillTool ? pointSkillsAtTool(piInstructions, skillTool) : piInstructions;
	if (instructions) sections.push(`<pi_instructions>\n${guard(instructions)}\n</pi_instructions>`);
	const rendered = history.map(renderHistoryMessage).filter((m): m is string => m !== undefined);
	if (rendered.length > 0) sections.push(`<conversation_history>\n${rendered.join("\n\n")}\n</conversation_history>`);
	const anyOmittedImage = history.some(
		(m) =>
			(m.role === "user" || m.role === "toolResult") &&
			typeof m.content !== "string" &&
			m.content.some((p) => p.type === "image"),
	);
	if (anyOmittedImage) sections.push(IMAGE_NOTICE);
	if (toolGuards) sections.push(TOOL_BOUNDARY);
	if (manifest) sections.push(`<pi_tools>\n${manifest}\n</pi_tools>`);
	sections.push(
		`<latest_user_request>\n${guard(latestUser ? textOf(latestUser.content, true) : "")}\n</latest_user_request>`,
	);
	if (toolGuards) sections.push(TOOL_TAIL_GUARD);
	return { text: sections.join("\n\n"), images: imagesOf(latestUser) };
}

/** A follow-up on a Cursor conversation that already holds the context: only the new user input. */
export function buildIncrementalPrompt(newMessages: readonly Message[]): CursorPrompt {
	const latest = latestUserIndex(newMessages);
	const latestUser = latest >= 0 ? (newMessages[latest] as UserMessage) : undefined;
	const earlier = newMessages
		.filter((_, i) => i !== latest)
		.map(renderHistoryMessage)
		.filter((m): m is string => m !== undefined);
	const sections: string[] = [];
	if (earlier.length > 0) sections.push(`<conversation_history>\n${earlier.join("\n\n")}\n</conversation_history>`);
	sections.push(
		`<latest_user_request>\n${guard(latestUser ? textOf(latestUser.content, true) : "")}\n</latest_user_request>`,
	);
	sections.push(TOOL_TAIL_GUARD);
	return { text: sections.join("\n\n"), images: imagesOf(latestUser) };
}
