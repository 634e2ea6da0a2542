// A demo-only Pi extension (loaded by demo.mjs, never shipped): keeps the demo notice above Pi's editor, because
// Pi's TUI clears the terminal, and with it the banner printed before Pi started.
import { demoNotice } from "./demo-script.mjs";

export default function demoBanner(pi) {
	pi.on("session_start", (_event, ctx) => {
		if (!ctx.hasUI) return;
		ctx.ui.setWidget("pi-cursor-sdk-demo", demoNotice(process.env.CURSOR_BACKEND_URL ?? "unknown"));
	});
}
