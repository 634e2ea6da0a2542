// What `npm run demo` shows: the scripted conversation the fake Cursor backend plays for every prompt, the files of
// the throwaway workspace, and the banner. Pure data; the launcher is demo.mjs.

/** The Cursor model the demo selects (a row of the bundled catalog). */
export const DEMO_MODEL = "cursor/composer-2";

/** The workspace file the scripted turn reads. */
export const DEMO_FILE = "notes.md";

export const DEMO_FILES = {
	[DEMO_FILE]: [
		"# Demo workspace",
		"",
		"A throwaway folder created by `npm run demo` and removed when Pi exits.",
		"The scripted Cursor turn reads this file and lists the folder.",
		"",
	].join("\n"),
};

/** First words of the scripted answer (tests look for them on screen). */
export const DEMO_ANSWER_START = "This reply is scripted by the local fake Cursor backend";

export const DEMO_ANSWER = [
	`${DEMO_ANSWER_START} that \`npm run demo\` started; nothing was sent to Cursor.`,
	"",
	`On the way here, the real Cursor SDK read \`${DEMO_FILE}\` and ran \`ls -l\` in the demo's throwaway workspace.`,
	"Every message you send gets this same scripted turn.",
	"",
	"To use Cursor for real, with your own key: `export CURSOR_API_KEY=…; npm start`.",
].join("\n");

/** The scenario (fake backend language, see test/support/fake-backend/README.md) played for every prompt. */
export function demoScenario() {
	return {
		name: "demo",
		steps: [
			{ stepStarted: 1 },
			{ thinking: "This is the pi-cursor-sdk demo. " },
			{ thinking: `I'll read ${DEMO_FILE}, list the workspace, then explain that this answer is scripted.` },
			{ thinkingCompleted: 400 },
			{ tool: { callId: "demo-read", read: { path: DEMO_FILE } } },
			{ tool: { callId: "demo-shell", shell: { command: "ls -l" } } },
			...answerChunks(DEMO_ANSWER).map((text) => ({ text })),
			{ stepCompleted: { stepId: 1, durationMs: 900 } },
			{ turnEnded: { inputTokens: 1800, outputTokens: 120, cacheReadTokens: 0, cacheWriteTokens: 0 } },
		],
		// Slow enough to see the answer stream in, fast enough not to bore.
		frameDelayMs: 15,
	};
}

/** Splits text into word-sized chunks, as a model streams it. */
function answerChunks(text) {
	return text.match(/\S+\s*|\s+/g) ?? [text];
}

/**
 * What the demo is, in a few lines: printed before Pi starts and shown above Pi's editor (demo-banner.mjs), naming
 * `model`, the model in use.
 */
export function demoNotice(backendUrl, model) {
	const sdk = model.startsWith("cursor/")
		? `the real Cursor SDK (${model}) in a throwaway workspace.`
		: `the real Cursor SDK in a throwaway workspace once a Cursor model is selected (now: ${model}).`;
	return [
		"pi-cursor-sdk demo: no Cursor key needed, nothing is sent to Cursor.",
		`Replies are scripted by a local fake Cursor backend (${backendUrl}), played through`,
		sdk,
		"Type any message to see a scripted turn; ctrl+d (or ctrl+c twice) ends the demo.",
		"Real use with your own key:  export CURSOR_API_KEY=…; npm start",
	];
}

/** The text printed before Pi starts. */
export function demoBanner({ backendUrl, workspace, model }) {
	const lines = [...demoNotice(backendUrl, model), `Workspace (removed when the demo ends): ${workspace}`];
	return `\n${lines.map((line) => `  ${line}`).join("\n")}\n`;
}
