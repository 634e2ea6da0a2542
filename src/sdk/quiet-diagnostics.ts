// The SDK logs its own INFO inventory frames (rules, skills and plugins loading) through `console.log`, which Pi
// sends to the terminal: they garble Pi's TUI and add noise to print mode. While SDK work is in flight, a log call
// that is exactly one such frame is dropped; every other call passes through unchanged.
//
// `console` is one per process, so the filter is too: it is installed on the console object itself with a lease
// count and removed when the last lease ends. An unrelated extension logging an identical frame during a Cursor turn
// would be dropped as well; text alone cannot tell the two apart.

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");
const SDK_INFO_FRAME =
	/^\d{2}:\d{2}:\d{2}\.\d{3} INFO {2}(managed_skills\.[\w.]+|\w+ load completed)( ctx=\S+)?( meta=\{[^\n]*\})?$/;

export function isSdkInfoFrame(text: string): boolean {
	return SDK_INFO_FRAME.test(text.replace(ANSI, ""));
}

interface Installed {
	original: Console["log"];
	leases: number;
}
const INSTALLED = Symbol.for("pi-cursor-sdk.quiet-diagnostics");
type FilteredConsole = Console & { [INSTALLED]?: Installed };

/** Starts filtering the SDK's INFO frames on `target`; call the returned function (once) to stop. */
export function quietSdkDiagnostics(target: FilteredConsole = console): () => void {
	let installed = target[INSTALLED];
	if (!installed) {
		const original = target.log;
		installed = { original, leases: 0 };
		target[INSTALLED] = installed;
		target.log = (...args: unknown[]) => {
			if (args.length === 1 && typeof args[0] === "string" && isSdkInfoFrame(args[0])) return;
			original.apply(target, args);
		};
	}
	const lease = installed;
	lease.leases++;
	let released = false;
	return () => {
		if (released) return;
		released = true;
		lease.leases--;
		if (lease.leases === 0 && target[INSTALLED] === lease) {
			target.log = lease.original;
			delete target[INSTALLED];
		}
	};
}
