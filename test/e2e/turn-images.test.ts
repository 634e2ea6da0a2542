// Images through the real `pi --mode rpc` (Node 24), the built bundle and the real @cursor/sdk, checked in the run
// requests the loopback fake Cursor backend decoded: the latest user image travels as an SDK image; an earlier image
// is never re-sent, and when the conversation is replayed to a new Cursor agent it appears only as a placeholder.
import { expect } from "bun:test";
import type { RunRequestSummary } from "../support/fake-backend/client.ts";
import { leakedSecrets, type PiProcess, PNG_BASE64, turnSuite, withOutput } from "../support/pi-turn.ts";

const PLACEHOLDER = "[image omitted from transcript]";

const answer = (text: string) => ({ steps: [{ text }, { turnEnded: { inputTokens: 50, outputTokens: 5 } }] });

const suite = turnSuite({
	scenarioMap: {
		"[[img:look]]": answer("A single transparent pixel."),
		"[[img:follow]]": answer("Still a pixel."),
		// Longest marker: the replayed history of turn 3 also contains the earlier markers.
		"[[img:switch-model]]": answer("It was a pixel."),
	},
});

/** The text between `<tag>` and `</tag>` in a prompt ("" when absent). */
function section(text: string, tag: string): string {
	const start = text.indexOf(`<${tag}>`);
	const end = text.indexOf(`</${tag}>`);
	return start >= 0 && end > start ? text.slice(start, end) : "";
}

async function promptAndSettle(pi: PiProcess, id: string, command: object): Promise<void> {
	const from = pi.all().length;
	pi.send({ id, type: "prompt", ...command });
	const response = await pi.waitFor((r) => r.type === "response" && r.id === id, 30_000, from);
	expect(response.success).toBe(true);
	await pi.waitFor((r) => r.type === "agent_settled", 60_000, from);
}

suite.test("the latest user image reaches Cursor as an SDK image; later turns never re-send its bytes", async () => {
	await suite.withPi(["--mode", "rpc", "--no-session", "--model", "cursor/composer-2.5"], {}, async (pi) => {
		// Turn 1: a prompt with an image.
		await promptAndSettle(pi, "look", {
			message: "[[img:look]] What is in this image?",
			images: [{ type: "image", data: PNG_BASE64, mimeType: "image/png" }],
		});
		// Turn 2: same model, no image.
		await promptAndSettle(pi, "follow", { message: "[[img:follow]] Thanks. Anything else?" });
		// Turn 3: another Cursor model (a new Cursor conversation gets Pi's history), no image.
		const from = pi.all().length;
		pi.send({ id: "model", type: "set_model", provider: "cursor", modelId: "composer-2" });
		const switched = await pi.waitFor((r) => r.type === "response" && r.id === "model", 30_000, from);
		expect(switched.success).toBe(true);
		await promptAndSettle(pi, "switch", { message: "[[img:switch-model]] Describe it again." });
		const exit = await pi.close();

		const requests = await suite.backend.runRequests();
		const find = (marker: string) => requests.filter((r) => r.text.includes(`<latest_user_request>\n${marker}`));
		const [look] = find("[[img:look]]");
		const [follow] = find("[[img:follow]]");
		const [replay] = find("[[img:switch-model]]");
		const answers = pi
			.all()
			.filter((r) => r.type === "message_end" && r.message?.role === "assistant")
			.map((r) => [r.message.stopReason, r.message.content]);

		withOutput(pi, () => {
			expect(exit.code).toBe(0);
			expect(answers).toEqual([
				["stop", [{ type: "text", text: "A single transparent pixel." }]],
				["stop", [{ type: "text", text: "Still a pixel." }]],
				["stop", [{ type: "text", text: "It was a pixel." }]],
			]);
			expect(leakedSecrets(pi.stdout + pi.stderr)).toEqual([]);

			// Turn 1: the image itself, not a placeholder.
			expect(look?.images).toEqual([{ mimeType: "image/png", data: PNG_BASE64, blobId: null }]);
			expect(section(look?.text ?? "", "latest_user_request")).toContain("What is in this image?");
			expect(look?.text).not.toContain(PLACEHOLDER);

			// Turn 2 and 3: no image bytes anywhere, and any replay of turn 1 shows only the placeholder.
			for (const request of [follow, replay] as (RunRequestSummary | undefined)[]) {
				expect(request).toBeDefined();
				expect(request?.images).toEqual([]);
				expect(request?.text).not.toContain(PNG_BASE64.slice(0, 40));
				expect(section(request?.text ?? "", "latest_user_request")).not.toContain(PLACEHOLDER);
				const history = section(request?.text ?? "", "conversation_history");
				if (history.includes("What is in this image?")) expect(history).toContain(PLACEHOLDER);
			}

			// Turn 3 went to composer-2 with the whole conversation replayed: the earlier image is a placeholder.
			expect(replay?.modelId).toBe("composer-2");
			const history = section(replay?.text ?? "", "conversation_history");
			expect(history).toContain("What is in this image?");
			expect(history).toContain(PLACEHOLDER);
			expect(history).toContain("Still a pixel.");
		});
	});
});

suite.nothingLeftBehind();
