// The bridge surface: which of Pi's tools Cursor may call, under which MCP names, with which schema and description.
// Pure: built from `pi.getActiveTools()` / `pi.getAllTools()` data, once per turn.
import { createHash } from "node:crypto";

/** The fields of Pi's `ToolInfo` the bridge reads (Pi 0.87.1 has no `exposure`). */
export interface PiToolInfo {
	readonly name: string;
	readonly description?: string;
	readonly parameters?: unknown;
	readonly promptGuidelines?: readonly string[];
	readonly exposure?: string;
}

export interface BridgeTool {
	/** The real Pi tool name: what Pi executes and shows. */
	readonly piName: string;
	/** The name Cursor calls through MCP (`pi__<name>`, sanitized and unique). */
	readonly mcpName: string;
	readonly description: string;
	/** A plain JSON Schema object with `type: "object"` (MCP requires one). */
	readonly inputSchema: Record<string, unknown>;
}

/**
 * Why a registered Pi tool is or is not bridged (for `/cursor-tools`). `safety`: a Pi built-in withheld from a run
 * with Cursor's sandbox or auto-review on, since a bridged call runs in Pi, outside Cursor's sandbox and review.
 */
export type ExposureReason = "exposed" | "inactive" | "hidden" | "builtin" | "safety" | "replay";

export interface BridgeSurface {
	/** Exposed tools, in Pi's registration order. */
	readonly tools: readonly BridgeTool[];
	/** Every registered tool with its verdict, in Pi's registration order. */
	readonly decisions: readonly { readonly piName: string; readonly reason: ExposureReason }[];
	/** The server Cursor reaches the tools through: `pi_tools` (loopback MCP) or `custom-user-tools` (in process). */
	readonly serverName: string;
	/** Stable across turns while the exposed surface is unchanged (part of the agent pool key). */
	readonly fingerprint: string;
}

export interface SnapshotOptions {
	/** Names of our own replay tools, never bridged. */
	readonly replayNames?: Iterable<string>;
	/** `PI_CURSOR_EXPOSE_BUILTIN_TOOLS=1`. */
	readonly exposeBuiltins?: boolean;
	/**
	 * A run with Cursor's sandbox or auto-review on: built-ins are bridged only with `exposeBuiltinsUnderSafety`
	 * (`PI_CURSOR_EXPOSE_BUILTIN_TOOLS_UNDER_SAFETY=1`), whatever `exposeBuiltins` says.
	 */
	readonly safety?: boolean;
	readonly exposeBuiltinsUnderSafety?: boolean;
	/** Where Cursor finds the tools (default `pi_tools`); model-facing names are `<server>-<name>`, 64 at most. */
	readonly serverName?: string;
}

/** Pi's built-in tools: Cursor has its own equivalents, so they are hidden unless asked for. */
export const PI_BUILTIN_TOOLS: ReadonlySet<string> = new Set(["read", "bash", "write", "edit", "grep", "find", "ls"]);

export const MCP_NAME_PREFIX = "pi__";
/** The `mcpServers` key of the bridge; Cursor names a tool `<server>-<tool>` towards the model. */
export const BRIDGE_SERVER_NAME = "pi_tools";
/** Model-facing tool names are capped at 64 characters by several providers: leave room for `<server>-`. */
export const maxMcpNameLength = (serverName: string): number => 64 - serverName.length - 1;
export const MAX_MCP_NAME_LENGTH = maxMcpNameLength(BRIDGE_SERVER_NAME);

const PERMISSIVE_OBJECT_SCHEMA = { type: "object", properties: {}, additionalProperties: true };

export function buildBridgeSurface(
	activeNames: readonly string[],
	allTools: readonly PiToolInfo[],
	options: SnapshotOptions = {},
): BridgeSurface {
	const active = new Set(activeNames);
	const replay = new Set(options.replayNames ?? []);
	const serverName = options.serverName ?? BRIDGE_SERVER_NAME;
	// A built-in is bridged (`true`) or gets the verdict that says why not.
	const builtins: true | "builtin" | "safety" =
		options.safety === true
			? options.exposeBuiltinsUnderSafety === true || "safety"
			: options.exposeBuiltins === true || "builtin";
	const decisions: { piName: string; reason: ExposureReason }[] = [];
	const exposed: PiToolInfo[] = [];
	const seen = new Set<string>();
	for (const tool of allTools) {
		if (seen.has(tool.name)) continue;
		seen.add(tool.name);
		const reason = exposureReason(tool, active, replay, builtins);
		decisions.push({ piName: tool.name, reason });
		if (reason === "exposed") exposed.push(tool);
	}
	const names = assignMcpNames(
		exposed.map((tool) => tool.name),
		maxMcpNameLength(serverName),
	);
	const tools = exposed.map((tool) => ({
		piName: tool.name,
		mcpName: names.get(tool.name) ?? "",
		description: mcpDescription(tool),
		inputSchema: jsonSchemaOf(tool.parameters),
	}));
	return { tools, decisions, serverName, fingerprint: surfaceFingerprint(serverName, tools) };
}

function exposureReason(
	tool: PiToolInfo,
	active: ReadonlySet<string>,
	replay: ReadonlySet<string>,
	/** `true`, or the verdict of a built-in that is not bridged. */
	builtins: true | "builtin" | "safety",
): ExposureReason {
	if (replay.has(tool.name)) return "replay";
	if (PI_BUILTIN_TOOLS.has(tool.name) && builtins !== true) return builtins;
	if (tool.exposure === "hidden") return "hidden";
	if (!active.has(tool.name)) return "inactive";
	return "exposed";
}

/**
 * `pi__<name>` with every character outside `[A-Za-z0-9_-]` replaced by `_`, at most `MAX_MCP_NAME_LENGTH` long.
 * Names that would collide (or be cut) get a short hash of the Pi name, so each maps to one Pi tool and the result
 * does not depend on registration order.
 */
export function assignMcpNames(piNames: readonly string[], maxLength = MAX_MCP_NAME_LENGTH): Map<string, string> {
	const base = (piName: string) => `${MCP_NAME_PREFIX}${piName.replace(/[^A-Za-z0-9_-]/g, "_")}`;
	const groups = new Map<string, string[]>();
	for (const piName of new Set(piNames)) groups.set(base(piName), [...(groups.get(base(piName)) ?? []), piName]);
	const result = new Map<string, string>();
	const taken = new Set<string>();
	const claim = (piName: string, name: string) => {
		let unique = name;
		for (let attempt = 1; taken.has(unique); attempt++) unique = suffixed(name, piName, attempt, maxLength);
		taken.add(unique);
		result.set(piName, unique);
	};
	for (const [name, members] of groups) {
		// A contested name goes to the tool spelled exactly that way, else to the first in code-point order.
		const owner = members.find((piName) => `${MCP_NAME_PREFIX}${piName}` === name) ?? [...members].sort()[0];
		for (const piName of members) {
			claim(piName, piName === owner && name.length <= maxLength ? name : suffixed(name, piName, 0, maxLength));
		}
	}
	return result;
}

function suffixed(name: string, piName: string, attempt: number, maxLength: number): string {
	const hash = createHash("sha256").update(`${piName}\u0000${attempt}`).digest("hex").slice(0, 8);
	return `${name.slice(0, maxLength - hash.length - 1)}_${hash}`;
}

/** Pi's description, its prompt guidelines, and a pointer to the contract in the bootstrap prompt. */
export function mcpDescription(tool: PiToolInfo): string {
	const parts = [tool.description?.trim() || `Pi tool ${tool.name}.`];
	const guidelines = (tool.promptGuidelines ?? []).map((line) => line.trim()).filter(Boolean);
	if (guidelines.length > 0) parts.push(`Guidelines:\n${guidelines.map((line) => `- ${line}`).join("\n")}`);
	parts.push(`Runs Pi's "${tool.name}" tool in the user's Pi session (see "Pi tools" in the first message).`);
	return parts.join("\n\n");
}

/**
 * Pi's parameter schema as plain JSON (TypeBox schemas are JSON Schema plus symbol keys, which JSON drops). MCP
 * requires an object schema; anything else becomes a permissive object.
 */
export function jsonSchemaOf(parameters: unknown): Record<string, unknown> {
	if (parameters === null || typeof parameters !== "object") return { ...PERMISSIVE_OBJECT_SCHEMA };
	let plain: unknown;
	try {
		plain = JSON.parse(JSON.stringify(parameters));
	} catch {
		return { ...PERMISSIVE_OBJECT_SCHEMA };
	}
	if (plain === null || typeof plain !== "object" || Array.isArray(plain)) return { ...PERMISSIVE_OBJECT_SCHEMA };
	const schema = plain as Record<string, unknown>;
	return schema.type === "object" ? schema : { ...PERMISSIVE_OBJECT_SCHEMA };
}

function surfaceFingerprint(serverName: string, tools: readonly BridgeTool[]): string {
	const canonical = [...tools]
		.sort((a, b) => (a.mcpName < b.mcpName ? -1 : a.mcpName > b.mcpName ? 1 : 0))
		.map((tool) => [tool.mcpName, tool.piName, tool.description, canonicalJson(tool.inputSchema)]);
	// Another server than the default is part of it: the bootstrap's manifest names the server Cursor calls.
	const keyed = serverName === BRIDGE_SERVER_NAME ? canonical : [serverName, canonical];
	return createHash("sha256").update(JSON.stringify(keyed)).digest("hex").slice(0, 16);
}

/** JSON with object keys sorted, so a schema's key order does not change the fingerprint. */
function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
	if (value !== null && typeof value === "object") {
		const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
	}
	return JSON.stringify(value) ?? "null";
}

const MANIFEST_SUMMARY_LENGTH = 160;

/**
 * The compact callable-surface manifest for bootstrap prompts: which MCP names to call and which Pi tool each runs.
 * Empty when nothing is bridged.
 */
export function buildToolManifestText(surface: BridgeSurface): string {
	if (surface.tools.length === 0) return "";
	const lines = surface.tools.map((tool) => {
		const summary = firstLine(tool.description);
		return `- ${tool.mcpName} → Pi tool "${tool.piName}"${summary ? `: ${summary}` : ""}`;
	});
	return [
		`Pi tools: the user's Pi session exposes these tools to you through the MCP server "${surface.serverName}".`,
		"Call them by their MCP name (never by the Pi name shown in history); Pi runs them and returns the result.",
		...lines,
	].join("\n");
}

function firstLine(text: string): string {
	const line = (text.split("\n").find((candidate) => candidate.trim() !== "") ?? "").trim();
	return line.length > MANIFEST_SUMMARY_LENGTH ? `${line.slice(0, MANIFEST_SUMMARY_LENGTH - 1)}…` : line;
}
