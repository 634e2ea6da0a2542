// The SDK logs its own INFO inventory frames (rules, skills and plugins loading) through `console.log`. They garble
// Pi's TUI, and when one arrives after Pi has restored its console (the SDK keeps loading after a print-mode turn
// ends) it lands on stdout, breaking `-p` and JSON/RPC output. Once a Cursor turn has started, a `console.log` call
// that is exactly one such frame is dropped; every other call passes through unchanged.
//
// The SDK's executor lives as long as the process and may log at any later time, so the filter does too: it is
// installed once, on the console object itself. An unrelated extension logging an identical frame would be dropped
// as well; text alone cannot tell the two apart.

/** SGR colour sequences, as the SDK's logger writes them. */
export const ANSI_SGR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");
const SDK_INFO_FRAME =
	/^\d{2}:\d{2}:\d{2}\.\d{3} INFO {2}(managed_skills\.[\w.]+|\w+ load completed)( ctx=\S+)?( meta=\{[^\n]*\})?$/;
const INSTALLED = Symbol.for("pi-cursor-sdk.quiet-diagnostics");

export function isSdkInfoFrame(text: string): boolean {
	return SDK_INFO_FRAME.test(text.replace(ANSI_SGR, ""));
}

/** Drops the SDK's INFO inventory frames from `target.log` from now on (idempotent). */
export function quietSdkDiagnostics(target: Console & { [INSTALLED]?: true } = console): void {
	if (target[INSTALLED]) return;
	target[INSTALLED] = true;
	const original = target.log;
	target.log = (...args: unknown[]) => {
		if (args.length === 1 && typeof args[0] === "string" && isSdkInfoFrame(args[0])) return;
		original.apply(target, args);
	};
}
