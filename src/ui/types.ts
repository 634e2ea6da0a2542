// Contracts shared by the command modules.

/** A user-facing message: Pi's notification in UI modes, stderr in print/json mode. */
export type Notify = (message: string, type?: "info" | "warning" | "error") => void;
