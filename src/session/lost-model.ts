// The adapter of src/session/model-restore.ts: on `session_start`, once Pi's availability check has settled, selects
// the Cursor model Pi would have picked when Pi's start-up race left the session with no model at all.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { SettingsManager } from "@earendil-works/pi-coding-agent";
import { PROVIDER_ID } from "../catalog/state.ts";
import type { Notify } from "../ui/types.ts";
import { cliThinkingLevel, cursorModelPiWouldPick } from "./model-restore.ts";

export interface LostModelDeps {
	readonly pi: Pick<ExtensionAPI, "setModel" | "setThinkingLevel">;
	readonly agentDir: string;
	readonly notify: Notify;
}

/**
 * Pi's start-up race can leave a session with no model although Cursor has a key (src/session/model-restore.ts):
 * once Pi's availability check has settled, make the choice Pi would have made, when it is a Cursor model.
 */
export async function restoreLostModel(deps: LostModelDeps, ctx: ExtensionContext): Promise<void> {
	const { model: current, modelRegistry: registry } = ctx;
	// Pi's stand-in for "no model" names no provider it knows; a model it does know, even by an id its provider
	// does not list (`--model cursor/typo`), is the user's.
	if (current && registry.getProvider(current.provider)) return;
	await registry.refresh({ allowNetwork: false });
	const settings = SettingsManager.create(ctx.cwd, deps.agentDir, { projectTrusted: ctx.isProjectTrusted() });
	const [provider, modelId] = [settings.getDefaultProvider(), settings.getDefaultModel()];
	const choice = cursorModelPiWouldPick({
		branch: ctx.sessionManager.getBranch(),
		defaultModel: provider && modelId ? { provider, modelId } : undefined,
		thinkingFor: (ref) =>
			settings.getModelThinkingLevel(ref.provider, ref.modelId) ?? settings.getDefaultThinkingLevel(),
		defaultThinking: settings.getDefaultThinkingLevel(),
		// Pi gave the command line's level to no model: the session shows "off", the level lives only in argv.
		cliThinking: cliThinkingLevel(process.argv),
		available: registry.getAvailable(),
	});
	const model = choice && registry.find(PROVIDER_ID, choice.modelId);
	if (!model || !(await deps.pi.setModel(model))) return;
	deps.pi.setThinkingLevel(choice.thinkingLevel);
	deps.notify(
		`Pi started without a model (a start-up race in Pi); selected ${PROVIDER_ID}/${model.id}, as Pi would have.`,
		"info",
	);
}
