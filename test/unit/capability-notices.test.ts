import { expect, test } from "bun:test";
import {
	CAPABILITY_GUIDANCE,
	CapabilityNotices,
	classifyCapabilityWarning,
	watchCapabilityWarnings,
} from "../../src/process/capability-notices.ts";

const PARSER =
	"shell-parser: tree-sitter natives are unavailable in this artifact; shell command analysis degrades to parsingFailed";
const PLUGIN =
	"\u001b[2m10:00:00.000\u001b[0m WARN  loadUserLocalPlugin my-plugin rejected: symlink target /home/u/src/p is outside /home/u/.cursor/plugins/local";

test("the SDK's two capability warnings are recognised; other text is not", () => {
	expect(classifyCapabilityWarning(PARSER)).toBe("native-parser");
	expect(classifyCapabilityWarning(PLUGIN)).toBe("plugin-confinement");
	expect(classifyCapabilityWarning("loadUserLocalPlugin x rejected: failed to resolve symlink (ENOENT)")).toBe(
		"plugin-confinement",
	);
	expect(classifyCapabilityWarning("some other warning")).toBeUndefined();
});

test("guidance is fixed text: no paths or SDK metadata", () => {
	for (const text of Object.values(CAPABILITY_GUIDANCE)) {
		expect(text).not.toMatch(/\/home|\/tmp|meta=|ctx=/);
		expect(text).toContain("/cursor-doctor");
	}
});

test("once per kind per request, and only while a send runs", () => {
	const notices = new CapabilityNotices();
	expect(notices.decide("native-parser")).toBe("ignore");
	notices.requestStarted();
	expect(notices.decide("native-parser")).toBe("show");
	expect(notices.decide("native-parser")).toBe("drop");
	expect(notices.decide("plugin-confinement")).toBe("show");
	notices.requestEnded();
	expect(notices.decide("native-parser")).toBe("ignore");
	notices.requestStarted();
	expect(notices.decide("native-parser")).toBe("show");
	notices.requestEnded();
});

test("the console hook hands recognised warnings to listeners, who may take them over", () => {
	const printed: unknown[][] = [];
	const target = {
		warn: (...args: unknown[]) => printed.push(args),
		error: (...args: unknown[]) => printed.push(args),
		log: (...args: unknown[]) => printed.push(args),
	} as unknown as Console;
	const seen: string[] = [];
	const stop = watchCapabilityWarnings((kind) => {
		seen.push(kind);
		return kind === "native-parser";
	}, target);
	target.warn(PARSER);
	target.warn(PLUGIN);
	target.log("unrelated");
	expect(seen).toEqual(["native-parser", "plugin-confinement"]);
	expect(printed).toEqual([[PLUGIN], ["unrelated"]]);
	stop();
	target.warn(PARSER);
	expect(printed.at(-1)).toEqual([PARSER]);
});
