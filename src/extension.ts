import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { buildProvider } from "./provider.ts";
import { type CursorSdk, cursorSdk } from "./sdk/cursor-sdk.ts";
import { applyNativePaths, locateNativePaths } from "./sdk/native-paths.ts";

/**
 * Everything the extension knows about one Pi session runtime. Pi may host several sessions in one process; each
 * gets its own instance, so pools, bridges and settings are never shared.
 */
export class CursorExtension {
	constructor(
		private readonly pi: ExtensionAPI,
		private readonly sdk: CursorSdk = cursorSdk,
	) {}

	register(): void {
		// The SDK's own native lookup walks up from Pi's argv[1]/execPath and misses our node_modules.
		applyNativePaths(process.env, locateNativePaths());
		this.pi.registerProvider(buildProvider({ sdk: this.sdk }));
	}
}
