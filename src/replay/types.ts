// The names replay cards are shown under (shared by the mapping and its rule table).

/** Pi tool names a Cursor call can be replayed under when we own them; everything else uses {@link NEUTRAL_TOOL}. */
export const NATIVE_TOOL_NAMES = ["read", "bash", "grep", "find", "ls", "edit", "write"] as const;
export type NativeToolName = (typeof NATIVE_TOOL_NAMES)[number];
export const NEUTRAL_TOOL = "cursor";
export type ReplayToolName = NativeToolName | typeof NEUTRAL_TOOL;
