import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { CursorExtension } from "./extension.ts";

/** Pi extension factory: one independent `CursorExtension` per `ExtensionAPI` (per Pi session runtime). */
export default function piCursorSdk(pi: ExtensionAPI): void {
	new CursorExtension(pi).register();
}
