import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { InteractionUpdate } from "../../src/sdk/cursor-sdk.ts";
import type { SendStarted } from "../../src/turn/observer.ts";
import { EventCapture } from "../../src/usage/event-capture.ts";
import { tempDirs } from "../support/temp-dirs.ts";

const tempDir = tempDirs("pi-cursor-capture-");

const KEY = "key_capture_secret_55555";
const send: SendStarted = {
	agentId: "agent-1",
	runId: "run-1",
	model: { id: "composer-2" },
	kind: "bootstrap",
	startedAt: 1000,
};

function capture(dir: string, ceilingBytes?: number) {
	const announced: string[] = [];
	const c = new EventCapture({
		dir: () => join(dir, "events"),
		label: () => "abc",
		secrets: () => [KEY],
		announce: (m) => announced.push(m),
		...(ceilingBytes ? { ceilingBytes } : {}),
	});
	return { c, announced };
}

test("each update and step is one scrubbed JSON line with its timing; the path is announced once", () => {
	const dir = tempDir();
	const { c, announced } = capture(dir);
	c.sendStarted(send);
	c.sdkUpdate(send, { type: "text-delta", text: `the key is ${KEY}` } as InteractionUpdate, 1250);
	c.sdkStep(send, { type: "assistantMessage", message: { text: "hi" } }, 1300);
	c.sendEnded({ ...send, outcome: "finished", rawUsage: undefined, mappedUsage: undefined, endedAt: 1400 });
	c.close();
	const files = readdirSync(join(dir, "events"));
	expect(files).toHaveLength(1);
	const file = join(dir, "events", files[0] as string);
	expect(statSync(file).mode & 0o777).toBe(0o600);
	expect(statSync(join(dir, "events")).mode & 0o777).toBe(0o700);
	expect(announced).toEqual([expect.stringContaining(file)]);
	const text = readFileSync(file, "utf8");
	expect(text).not.toContain(KEY);
	const lines = text
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l));
	expect(lines.map((l) => [l.event, l.ms])).toEqual([
		["send-started", undefined],
		["delta", 250],
		["step", 300],
		["send-ended", 400],
	]);
	expect(lines[1].update.text).toBe("the key is [redacted]");
});

test("the capture stops at its ceiling with a marker line", () => {
	const dir = tempDir();
	const { c } = capture(dir, 400);
	for (let i = 0; i < 20; i++)
		c.sdkUpdate(send, { type: "text-delta", text: "x".repeat(50) } as InteractionUpdate, 1000 + i);
	c.close();
	const file = join(dir, "events", readdirSync(join(dir, "events"))[0] as string);
	const lines = readFileSync(file, "utf8").trim().split("\n");
	expect(lines.at(-1)).toContain("capture-stopped");
	expect(statSync(file).size).toBeLessThan(600);
});

test("a capture that cannot start says so once and never throws", () => {
	const dir = tempDir();
	writeFileSync(join(dir, "blocker"), "");
	const announced: string[] = [];
	const c = new EventCapture({
		dir: () => join(dir, "blocker", "events"),
		label: () => "x",
		secrets: () => [],
		announce: (m) => announced.push(m),
	});
	c.sendStarted(send);
	c.sdkUpdate(send, { type: "text-delta", text: "a" } as InteractionUpdate, 1001);
	expect(announced).toHaveLength(1);
	expect(announced[0]).toContain("could not start");
});
