import {
	type AssistantMessage,
	type AssistantMessageEventStream,
	createAssistantMessageEventStream,
	type Model,
	type Provider,
} from "@earendil-works/pi-ai";
import type { CursorSdk } from "./sdk/cursor-sdk.ts";

export const PROVIDER_ID = "cursor";
export const CURSOR_API = "cursor-sdk";
export const CURSOR_BASE_URL = "https://api.cursor.com";

export interface ProviderDeps {
	sdk: CursorSdk;
}

const PLACEHOLDER_MODELS: Model<string>[] = [
	{
		id: "composer-2",
		name: "Composer 2",
		api: CURSOR_API,
		provider: PROVIDER_ID,
		baseUrl: CURSOR_BASE_URL,
		reasoning: false,
		input: ["text", "image"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: 200_000,
		maxTokens: 32_000,
	},
];

/** The native Pi provider for Cursor. */
export function buildProvider(_deps: ProviderDeps): Provider<string> {
	const streamSimple = (model: Model<string>): AssistantMessageEventStream => {
		const stream = createAssistantMessageEventStream();
		const message: AssistantMessage = {
			role: "assistant",
			content: [],
			api: model.api,
			provider: model.provider,
			model: model.id,
			usage: {
				input: 0,
				output: 0,
				cacheRead: 0,
				cacheWrite: 0,
				totalTokens: 0,
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
			},
			stopReason: "error",
			errorMessage: "Cursor turns are not implemented yet.",
			timestamp: Date.now(),
		};
		stream.push({ type: "error", reason: "error", error: message });
		stream.end(message);
		return stream;
	};
	return {
		id: PROVIDER_ID,
		name: "Cursor",
		baseUrl: CURSOR_BASE_URL,
		auth: {
			apiKey: {
				name: "Cursor",
				async login(interaction) {
					const key = (await interaction.prompt({ type: "secret", message: "Cursor API key" })).trim();
					return { type: "api_key", key };
				},
				async resolve({ ctx, credential }) {
					const key = credential?.key ?? (await ctx.env("CURSOR_API_KEY"));
					return key
						? { auth: { apiKey: key }, source: credential?.key ? "stored API key" : "CURSOR_API_KEY" }
						: undefined;
				},
			},
		},
		getModels: () => PLACEHOLDER_MODELS,
		stream: (model) => streamSimple(model),
		streamSimple: (model) => streamSimple(model),
	};
}
