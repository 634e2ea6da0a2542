// A demo-only Pi extension (loaded by demo.mjs, never shipped): keeps the demo notice above Pi's editor, because
// Pi's TUI clears the terminal, and with it the banner printed before Pi started. It names the model in use, so it
// follows /model.
import { demoNotice } from "./demo-script.mjs";

export default function demoBanner(pi) {
	const show = (ctx, model) => {
		if (!ctx.hasUI) return;
		const name = model ? `${model.provider}/${model.id}` : "no model";
		ctx.ui.setWidget("pi-cursor-sdk-demo", demoNotice(process.env.CURSOR_BACKEND_URL ?? "unknown", name));
	};
	pi.on("session_start", (_event, ctx) => show(ctx, ctx.model));
	pi.on("model_select", (event, ctx) => show(ctx, event.model));
}
