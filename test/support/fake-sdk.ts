// An in-process fake of our narrow `CursorSdk` interface (src/sdk/cursor-sdk.ts): records every createAgent /
// resumeAgent / send / close per agent and plays scripted `onDelta` updates. Like the real SDK, an agent refuses a
// second send while a run is active ("already has active run"), so tests can prove that never reaches the user.
import type {
	AgentOptions,
	AgentRunState,
	AgentStore,
	CursorSdk,
	InteractionUpdate,
	Run,
	RunResult,
	SDKAgent,
	SDKModel,
	SendOptions,
} from "../../src/sdk/cursor-sdk.ts";
import { TestMcpClient } from "./mcp-client.ts";

/** One step of a scripted reply. */
export type FakeStep =
	| { text: string }
	| { thinking: string }
	| { delay: number }
	/** Never ends on its own: only `run.cancel()` stops it. */
	| { hang: true }
	| { turnEnded: { inputTokens: number; outputTokens: number } }
	/** Ends the run with `status: "error"`. */
	| { fail: string }
	/** Delivers this value to `onDelta` as the update, as it is (e.g. a malformed update). */
	| { raw: unknown }
	/** Calls a tool of the send's `pi_tools` MCP server (the bridge) like Cursor does, and waits for its result. */
	| { mcpCall: { name: string; args: Record<string, unknown> } }
	/**
	 * Waits for `run.steer(text)` and answers it with this outcome (`complete_delivered` also streams
	 * `steered: <text>`), like Cursor's `context_injection_state`. A steer no step takes, or one made after the run
	 * ended, is answered `revert_to_followup` (as the SDK does between turns and after the run).
	 */
	| { steer: "complete_delivered" | "revert_to_followup" };

export interface FakeSend {
	agentId: string;
	/** 1-based index of this send on its agent. */
	index: number;
	text: string;
	images: number;
	mode: string | undefined;
	modelId: string | undefined;
	status: "running" | "finished" | "cancelled" | "error";
	/** Results of this send's `mcpCall` steps, in order (the bridge's answer as Cursor got it). */
	mcpResults: unknown[];
	/** Texts `run.steer` got during this send, with the outcome it answered. */
	steers?: { text: string; outcome: string }[];
}

export interface FakeAgentRecord {
	agentId: string;
	options: AgentOptions;
	/** "create" or "resume". */
	origin: "create" | "resume";
	/** The directory of the store (`openStore`) the agent was created or resumed in; none for an ephemeral store. */
	storeDir: string | undefined;
	closed: boolean;
	sends: FakeSend[];
}

export type Script = (send: FakeSend) => FakeStep[];

/** SDK calls that can be made to stall, like an SDK talking to a backend that never answers. */
export type StallPoint = "openStore" | "createAgent" | "resumeAgent" | "send";

export interface FakeCursorSdkOptions {
	/** Prefix of generated agent ids (default "fake-agent"). */
	idPrefix?: string;
	/** The reply of a send (default: one text delta "reply <n> from <agentId>", then a turn end). */
	script?: Script;
	models?: SDKModel[];
}

/** The `<latest_user_request>` text of a prompt (the new user input of a bootstrap or incremental send). */
export function latestRequest(text: string): string {
	return /<latest_user_request>\n([\s\S]*?)\n<\/latest_user_request>/.exec(text)?.[1] ?? "";
}

export const defaultScript: Script = (send) => [
	{ text: `reply ${send.index} from ${send.agentId}` },
	{ turnEnded: { inputTokens: 10, outputTokens: 5 } },
];

export class FakeCursorSdk implements CursorSdk {
	readonly agents: FakeAgentRecord[] = [];
	readonly http1Calls: (boolean | null)[] = [];
	/** Agent ids, one per `agent.reload()` call. */
	readonly reloads: string[] = [];
	/** Agent ids that `resumeAgent` accepts (others throw "Agent not found"). */
	readonly resumable = new Set<string>();
	script: Script;
	/** How long `run.cancel()` takes to stop a run (the real SDK needs a round trip). */
	cancelLatencyMs = 0;
	/** Calls that wait until `releaseStalls()`; they then complete normally (a "late" result). */
	readonly stalls = new Set<StallPoint>();
	/** Calls waiting at a stall point right now. */
	stalled = 0;
	private releaseGate: () => void = () => {};
	private gate = this.newGate();
	private nextId = 1;
	private readonly idPrefix: string;
	private readonly models: SDKModel[];

	constructor(options: FakeCursorSdkOptions = {}) {
		this.idPrefix = options.idPrefix ?? "fake-agent";
		this.script = options.script ?? defaultScript;
		this.models = options.models ?? [];
	}

	/** Every send, in order, across agents. */
	readonly sends: FakeSend[] = [];
	/** Runs in progress right now, across agents, and the most there ever were at once. */
	running = 0;
	maxRunning = 0;

	private newGate(): Promise<void> {
		return new Promise((resolve) => {
			this.releaseGate = resolve;
		});
	}

	/** Lets every stalled call go on, and stops stalling. */
	releaseStalls(): void {
		this.stalls.clear();
		this.releaseGate();
		this.gate = this.newGate();
	}

	private async stallAt(point: StallPoint): Promise<void> {
		if (!this.stalls.has(point)) return;
		this.stalled++;
		await this.gate;
		this.stalled--;
	}

	async listModels(_apiKey: string): Promise<SDKModel[]> {
		return this.models;
	}

	async createAgent(store: AgentStore, options: AgentOptions): Promise<SDKAgent> {
		await this.stallAt("createAgent");
		return this.makeAgent(`${this.idPrefix}-${this.nextId++}`, store, options, "create");
	}

	async resumeAgent(store: AgentStore, agentId: string, options: Partial<AgentOptions>): Promise<SDKAgent> {
		await this.stallAt("resumeAgent");
		if (!this.resumable.has(agentId)) throw new Error(`Agent not found: ${agentId}`);
		return this.makeAgent(agentId, store, options as AgentOptions, "resume");
	}

	setHttp1ForAgent(value: boolean | null): void {
		this.http1Calls.push(value);
	}

	/** The directory of every `openStore` call, in order. */
	readonly opened: string[] = [];
	async openStore(dir: string): Promise<AgentStore> {
		this.opened.push(dir);
		await this.stallAt("openStore");
		return { dir };
	}

	/** How many ephemeral stores were opened. */
	ephemeralStores = 0;
	async openEphemeralStore(): Promise<AgentStore> {
		this.ephemeralStores++;
		return {};
	}

	defaultStateRoot(cwd: string): string {
		return `${cwd}/.fake-cursor-state`;
	}

	/** `me` answers for any key unless `meError` is set. */
	meError: Error | undefined;
	async me(_apiKey: string): Promise<{ apiKeyName?: unknown }> {
		if (this.meError) throw this.meError;
		return { apiKeyName: "fake-key" };
	}

	/** `getUsage` answers per agent id; agents without an answer fail. */
	readonly usageAnswers = new Map<string, unknown>();
	async getUsage(agentId: string, _apiKey: string): Promise<unknown> {
		if (!this.usageAnswers.has(agentId)) throw new Error(`no usage for ${agentId}`);
		return this.usageAnswers.get(agentId);
	}

	/** What the store records about an agent's latest run, per agent id (none: the store does not hold the agent). */
	readonly runStates = new Map<string, AgentRunState>();
	/** Agent ids `agentRunState` was asked about, in order. */
	readonly runStateQueries: string[] = [];
	async agentRunState(_store: AgentStore, agentId: string): Promise<AgentRunState | undefined> {
		this.runStateQueries.push(agentId);
		return this.runStates.get(agentId);
	}

	/** Checkpoint windows per agent id (none: no checkpoint). */
	readonly checkpointWindows = new Map<string, number>();
	async checkpointMaxTokens(_store: AgentStore, agentId: string): Promise<number | undefined> {
		return this.checkpointWindows.get(agentId);
	}

	/** Every `prewarm` call's store and options, and how many prewarmed executors are held (not yet released). */
	readonly prewarms: { store: AgentStore; options: AgentOptions }[] = [];
	prewarmsHeld = 0;
	/** `prewarm` fails with this (a rejected key, no network) when set. */
	prewarmError: Error | undefined;
	async prewarm(store: AgentStore, options: AgentOptions): Promise<() => Promise<void>> {
		this.prewarms.push({ store, options });
		if (this.prewarmError) throw this.prewarmError;
		this.prewarmsHeld++;
		let released = false;
		return async () => {
			if (released) return;
			released = true;
			this.prewarmsHeld--;
		};
	}

	private makeAgent(agentId: string, store: AgentStore, options: AgentOptions, origin: "create" | "resume"): SDKAgent {
		const record: FakeAgentRecord = {
			agentId,
			options,
			origin,
			storeDir: store.dir,
			closed: false,
			sends: [],
		};
		this.agents.push(record);
		this.resumable.add(agentId);
		let active: FakeRun | undefined;
		const sdk = this;
		const agent = {
			agentId,
			model: options.model,
			async send(message: Parameters<SDKAgent["send"]>[0], sendOptions?: SendOptions): Promise<Run> {
				await sdk.stallAt("send");
				if (record.closed) throw new Error(`Agent ${agentId} is closed`);
				if (active && active.status === "running") {
					throw new Error(`Agent ${agentId} already has active run ${active.id}`);
				}
				const send: FakeSend = {
					agentId,
					index: record.sends.length + 1,
					text: typeof message === "string" ? message : message.text,
					images: typeof message === "string" ? 0 : (message.images?.length ?? 0),
					mode: sendOptions?.mode,
					modelId: sendOptions?.model?.id,
					status: "running",
					mcpResults: [],
				};
				record.sends.push(send);
				sdk.sends.push(send);
				sdk.running++;
				sdk.maxRunning = Math.max(sdk.maxRunning, sdk.running);
				const bridge = sendOptions?.mcpServers?.pi_tools;
				const bridgeUrl = bridge && "url" in bridge ? bridge.url : undefined;
				const run = new FakeRun(agentId, send, sdk.script(send), sendOptions?.onDelta, sdk.cancelLatencyMs, bridgeUrl);
				void run.wait().then(() => {
					sdk.running--;
				});
				active = run;
				return run;
			},
			close() {
				record.closed = true;
				void active?.cancel();
			},
			async reload() {
				sdk.reloads.push(agentId);
			},
			async [Symbol.asyncDispose]() {
				agent.close();
			},
			async listArtifacts() {
				return [];
			},
			async downloadArtifact(): Promise<Buffer> {
				throw new Error("no artifacts in the fake");
			},
			async getUsage() {
				throw new Error("no usage in the fake");
			},
		};
		return agent as unknown as SDKAgent;
	}
}

let runCounter = 0;

class FakeRun {
	readonly id = `fake-run-${++runCounter}`;
	status: "running" | "finished" | "cancelled" | "error" = "running";
	private cancelled = false;
	private wake: (() => void) | undefined;
	private readonly done: Promise<RunResult>;
	/** Steers waiting for a `steer` step. */
	private readonly steerQueue: {
		text: string;
		answer: (outcome: "complete_delivered" | "revert_to_followup") => void;
	}[] = [];
	private steerArrived: (() => void) | undefined;

	constructor(
		readonly agentId: string,
		private readonly send: FakeSend,
		steps: FakeStep[],
		private readonly onDelta: SendOptions["onDelta"],
		private readonly cancelLatencyMs = 0,
		private readonly bridgeUrl: string | undefined = undefined,
	) {
		this.done = this.play(steps);
	}

	private sleep(ms: number): Promise<void> {
		return new Promise((resolve) => {
			const timer = setTimeout(resolve, ms);
			this.wake = () => {
				clearTimeout(timer);
				resolve();
			};
		});
	}

	private async emit(update: InteractionUpdate): Promise<void> {
		try {
			await this.onDelta?.({ update });
		} catch {
			// the real SDK swallows callback errors
		}
	}

	private async play(steps: FakeStep[]): Promise<RunResult> {
		await Promise.resolve(); // like the SDK: updates arrive after send() resolved
		let text = "";
		for (const step of steps) {
			if (this.cancelled) break;
			if ("text" in step) {
				text += step.text;
				await this.emit({ type: "text-delta", text: step.text } as InteractionUpdate);
			} else if ("thinking" in step) {
				await this.emit({ type: "thinking-delta", text: step.thinking } as InteractionUpdate);
			} else if ("delay" in step) {
				await this.sleep(step.delay);
			} else if ("hang" in step) {
				while (!this.cancelled) await this.sleep(60_000);
			} else if ("turnEnded" in step) {
				const usage = { ...step.turnEnded, cacheReadTokens: 0, cacheWriteTokens: 0 };
				await this.emit({ type: "turn-ended", usage } as unknown as InteractionUpdate);
			} else if ("raw" in step) {
				await this.emit(step.raw as InteractionUpdate);
			} else if ("mcpCall" in step) {
				if (!this.bridgeUrl) throw new Error("mcpCall step: the send has no pi_tools MCP server");
				const client = await TestMcpClient.connect(this.bridgeUrl);
				this.send.mcpResults.push(await client.callTool(step.mcpCall.name, step.mcpCall.args).result);
			} else if ("fail" in step) {
				return this.settle({ id: this.id, status: "error", error: { message: step.fail } });
			} else if ("steer" in step) {
				while (this.steerQueue.length === 0 && !this.cancelled) {
					await new Promise<void>((resolve) => {
						this.steerArrived = resolve;
					});
				}
				const steer = this.steerQueue.shift();
				if (steer) {
					this.send.steers ??= [];
					this.send.steers.push({ text: steer.text, outcome: step.steer });
					steer.answer(step.steer);
					if (step.steer === "complete_delivered") {
						text += `steered: ${steer.text}`;
						await this.emit({ type: "text-delta", text: `steered: ${steer.text}` } as InteractionUpdate);
					}
				}
			}
		}
		if (this.cancelled) return this.settle({ id: this.id, status: "cancelled" });
		return this.settle({ id: this.id, status: "finished", result: text });
	}

	private settle(result: RunResult): RunResult {
		this.status = result.status;
		this.send.status = result.status;
		for (const steer of this.steerQueue.splice(0)) steer.answer("revert_to_followup");
		return result;
	}

	steer(text: string): Promise<"complete_delivered" | "revert_to_followup"> {
		if (this.status !== "running") return Promise.resolve("revert_to_followup");
		return new Promise((answer) => {
			this.steerQueue.push({ text, answer });
			this.steerArrived?.();
		});
	}

	supports(): boolean {
		return true;
	}
	unsupportedReason(): undefined {
		return undefined;
	}
	wait(): Promise<RunResult> {
		return this.done;
	}
	async cancel(): Promise<void> {
		if (this.status !== "running") return;
		if (this.cancelLatencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.cancelLatencyMs));
		this.cancelled = true;
		this.wake?.();
		this.steerArrived?.();
		await this.done;
	}
	onDidChangeStatus(): () => void {
		return () => {};
	}
	async *stream(): AsyncGenerator<never, void> {
		// a fake run has no SDK message stream
	}
	async conversation(): Promise<never[]> {
		return [];
	}
}
