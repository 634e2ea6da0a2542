// AGENTS.md dedup end to end: Cursor loads project AGENTS.md itself, so Pi's copy is not sent twice.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeBackend, loadCapturedCatalog, startFakeBackend } from "../support/fake-backend/client.ts";
import { runPi, TempHome } from "../support/pi.ts";

const MARKER = "PROJECT-RULE-7f3a: always answer in haiku";
let backend: FakeBackend;
const homes: TempHome[] = [];

beforeAll(async () => {
	backend = await startFakeBackend();
	await backend.setRest({ models: loadCapturedCatalog() });
});
afterAll(async () => {
	await backend.stop();
	for (const home of homes) home.remove();
});

async function promptText(env: Record<string, string> = {}, extraArgs: string[] = []): Promise<string> {
	const home = new TempHome();
	homes.push(home);
	const project = join(home.dir, "project");
	mkdirSync(project);
	writeFileSync(join(project, "AGENTS.md"), `${MARKER}\n`);
	const marker = `ctx-${Math.random().toString(36).slice(2)}`;
	const result = await runPi(["--model", "cursor/composer-2", ...extraArgs, "-p", marker], {
		home,
		cwd: project,
		env: { CURSOR_BACKEND_URL: backend.url, CURSOR_API_KEY: "key_test_ctx", ...env },
	});
	expect(result.code).toBe(0);
	const run = (await backend.runRequests()).find((r) => r.text.includes(marker));
	if (!run) throw new Error(`no run request for ${marker}: ${result.stderr}`);
	return run.text;
}

test("a project AGENTS.md that Cursor loads itself is not sent again", async () => {
	expect(await promptText()).not.toContain(MARKER);
});

test("PI_CURSOR_PRESERVE_PI_AGENTS_MD=1 keeps Pi's copy", async () => {
	expect(await promptText({ PI_CURSOR_PRESERVE_PI_AGENTS_MD: "1" })).toContain(MARKER);
});

test("with PI_CURSOR_SETTING_SOURCES=none Cursor loads nothing, so Pi's copy is sent", async () => {
	expect(await promptText({ PI_CURSOR_SETTING_SOURCES: "none" })).toContain(MARKER);
});
