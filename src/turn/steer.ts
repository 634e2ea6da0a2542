// Pi's steering while a Cursor run is live. Pi queues a message typed while the model works and delivers it after the
// tool calls of the current assistant message ran, before the next model call ("steer"); a follow-up waits until the
// agent has nothing left to do, so it always starts a new send. A Pi steer therefore reaches us as a provider call
// whose messages end with the results Cursor's live run waits for, then the steering user message(s).
import type { Message, UserMessage } from "@earendil-works/pi-ai";

/** Whether `messages` end with Pi's results for every tool call the live run's last message handed to Pi. */
export function answersLiveRun(messages: readonly Message[], awaiting: ReadonlySet<string>): boolean {
	if (awaiting.size === 0 || messages.at(-1)?.role !== "toolResult") return false;
	const answered = new Set<string>();
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i];
		if (message?.role !== "toolResult") break;
		answered.add(message.toolCallId);
	}
	return [...awaiting].every((id) => answered.has(id));
}

export interface Steering {
	/** The messages up to Pi's tool results: what the live run's last provider turn handed out, answered. */
	answered: readonly Message[];
	/** The steering user messages Pi delivered after those results. */
	messages: readonly UserMessage[];
}

/**
 * Pi's steering of a live run: `messages` end with the results of every awaited tool call, then one or more user
 * messages. Anything else (a new prompt, a retry, results alone) is not steering.
 */
export function steeringOf(messages: readonly Message[], awaiting: ReadonlySet<string>): Steering | undefined {
	let end = messages.length;
	while (end > 0 && messages[end - 1]?.role === "user") end--;
	if (end === messages.length) return undefined;
	const answered = messages.slice(0, end);
	if (!answersLiveRun(answered, awaiting)) return undefined;
	return { answered, messages: messages.slice(end) as UserMessage[] };
}

/**
 * The text `Run.steer` gives Cursor for these messages (it takes text only), or undefined when they cannot be steered
 * into a running turn: one carries an image, or there is no text at all. They then go as a follow-up.
 */
export function steerText(messages: readonly UserMessage[]): string | undefined {
	const parts: string[] = [];
	for (const message of messages) {
		if (typeof message.content === "string") {
			parts.push(message.content);
			continue;
		}
		for (const part of message.content) {
			if (part.type !== "text") return undefined;
			parts.push(part.text);
		}
	}
	const text = parts
		.map((part) => part.trim())
		.filter((part) => part !== "")
		.join("\n\n");
	return text === "" ? undefined : text;
}
