import type { Message } from "@earendil-works/pi-ai";
import { buildBootstrapPrompt } from "../prompt/transcript.ts";
import type { CursorSdk } from "../sdk/cursor-sdk.ts";
import type { SettingSources } from "../settings/env.ts";
import type { AgentLease, TurnSetup } from "../turn/stream.ts";

export interface AgentEnvironment {
	cwd: string;
	settingSources: SettingSources;
}

/** A new SDK agent for one turn, sent the full context, closed when the run ends. */
export async function acquireFreshAgent(
	sdk: CursorSdk,
	setup: TurnSetup,
	environment: AgentEnvironment,
	messages: readonly Message[],
): Promise<AgentLease> {
	const agent = await sdk.createAgent({
		apiKey: setup.apiKey,
		model: setup.selection,
		mode: setup.mode,
		local: { cwd: environment.cwd, settingSources: [...environment.settingSources], enableAgentRetries: false },
	});
	return {
		agent,
		prompt: buildBootstrapPrompt(messages),
		release: () => agent.close(),
	};
}
