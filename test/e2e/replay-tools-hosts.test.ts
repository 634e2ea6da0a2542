// The replay tools in every supported Pi host (npm Pi 1.6.0 and 0.87.1, compiled Pi 1.6.0), loaded from the built
// bundle: after a switch to another provider, its plain `bash` call really runs (Pi's built-in behaviour, through the
// host's own tool factories), while a stale Cursor replay id and the neutral `cursor` tool run nothing and say why.
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { piHosts, runPi } from "../support/pi.ts";
import { HomeRegistry, jsonLines, withOutput } from "../support/pi-turn.ts";
import { BUNDLE, REPO_ROOT } from "../support/toolchain.ts";

const FIXTURE = join(REPO_ROOT, "test", "fixtures", "faux-tool-caller-extension.ts");
const homes = new HomeRegistry();
afterAll(() => homes.removeAll());

for (const host of piHosts()) {
	test.concurrent(`${host.name}: another provider's bash runs; stale replays and the neutral tool fail closed`, async () => {
		const home = homes.create();
		const result = await runPi(["--model", "faux/faux-1", "--mode", "json", "--no-session", "go"], {
			host,
			home,
			extensions: [BUNDLE, FIXTURE],
		});
		withOutput(result, () => {
			expect(result.code).toBe(0);
			const ends = jsonLines(result.stdout)
				.filter((r) => r.type === "tool_execution_end")
				.map((r) => {
					const {
						toolCallId,
						toolName,
						isError,
						result: toolResult,
					} = r as unknown as {
						toolCallId: string;
						toolName: string;
						isError: boolean;
						result: { content: { text?: string }[] };
					};
					return { toolCallId, toolName, isError, text: toolResult.content.map((c) => c.text ?? "").join("") };
				})
				// Pi runs the batch in parallel: the ends arrive in any order.
				.sort((a, b) => a.toolCallId.localeCompare(b.toolCallId));
			expect(ends).toEqual([
				{ toolCallId: "call_faux_1", toolName: "bash", isError: false, text: "ran\n" },
				{
					toolCallId: "call_faux_2",
					toolName: "cursor",
					isError: true,
					text: expect.stringContaining("nothing was run"),
				},
				{
					toolCallId: "cursor-replay-gone",
					toolName: "bash",
					isError: true,
					text: expect.stringContaining("Nothing was run."),
				},
			]);
			expect(readFileSync(join(home.dir, "faux.txt"), "utf8")).toBe("from-faux\n");
		});
	}, 120_000);
}
