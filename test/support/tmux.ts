// A real terminal for TUI tests: one tmux session on a private server (its socket in a folder the test owns, no
// user config), driven with send-keys and read with capture-pane.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import type { TempHome } from "./pi.ts";
import { BUNDLE, ensureTool } from "./toolchain.ts";

export class TmuxSession {
	private readonly socket: string;
	private readonly name = "pi";

	/**
	 * Starts `command` (a shell command line; prefix it with `exec` so the pane's process is the program itself)
	 * in a `width`×`height` terminal, with exactly the environment `env`, in `cwd`.
	 */
	constructor(
		dir: string,
		command: string,
		options: { env: Record<string, string>; cwd: string; width?: number; height?: number },
	) {
		this.socket = join(dir, "tmux.sock");
		const size = ["-x", String(options.width ?? 160), "-y", String(options.height ?? 50)];
		this.tmux(["-f", "/dev/null", "new-session", "-d", "-s", this.name, ...size, command], options);
	}

	private tmux(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}) {
		const result = spawnSync("tmux", ["-S", this.socket, ...args], {
			encoding: "utf8",
			env: options.env ?? { PATH: process.env.PATH ?? "/usr/bin:/bin" },
			cwd: options.cwd,
		});
		if (result.error) throw new Error(`tmux is required for this test: ${result.error.message}`);
		return result;
	}

	/** Whether the session still runs (it ends when its command exits). */
	get open(): boolean {
		return this.tmux(["has-session", "-t", this.name]).status === 0;
	}

	/** The visible screen, as plain text. */
	screen(): string {
		return this.tmux(["capture-pane", "-p", "-t", this.name]).stdout ?? "";
	}

	/** The process id of the pane's program. */
	panePid(): number {
		return Number(this.tmux(["display-message", "-p", "-t", this.name, "#{pane_pid}"]).stdout.trim());
	}

	/** Types literal text (no key names). */
	type(text: string): void {
		this.tmux(["send-keys", "-t", this.name, "-l", text]);
	}

	/** Presses keys by tmux name (`Enter`, `C-d`, …). */
	press(...keys: string[]): void {
		this.tmux(["send-keys", "-t", this.name, ...keys]);
	}

	/** Polls the screen until `predicate` holds; the error shows the last screen. */
	async waitForScreen(predicate: (screen: string) => boolean, what: string, timeoutMs = 60_000): Promise<string> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const screen = this.screen();
			if (predicate(screen)) return screen;
			if (!this.open) throw new Error(`the terminal closed while waiting for ${what}; last screen:\n${screen}`);
			if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; screen:\n${screen}`);
			await new Promise((resolve) => setTimeout(resolve, 200));
		}
	}

	/** Resolves true once the session has ended, false after `timeoutMs`. */
	async waitClosed(timeoutMs: number): Promise<boolean> {
		const deadline = Date.now() + timeoutMs;
		while (this.open) {
			if (Date.now() > deadline) return false;
			await new Promise((resolve) => setTimeout(resolve, 200));
		}
		return true;
	}

	/** Ends the private tmux server and everything still running in it. */
	kill(): void {
		this.tmux(["kill-server"]);
	}
}

/**
 * `pi -ne -e <built bundle> <args>` (npm Pi 1.6.0 on Node 24, or the `pi` version named) in a terminal of its own, in
 * `home` with `env`.
 */
export function piTerminal(
	home: TempHome,
	args: string[],
	options: { env: Record<string, string | undefined>; height: number; width?: number; pi?: "pi@1.6.0" | "pi@0.87.1" },
): TmuxSession {
	const pi = [ensureTool("node24"), ensureTool(options.pi ?? "pi@1.6.0"), "-ne", "-e", BUNDLE, ...args].join(" ");
	return new TmuxSession(home.dir, `exec ${pi}`, {
		env: home.env({ TERM: "xterm-256color", ...options.env }),
		cwd: home.dir,
		height: options.height,
		...(options.width ? { width: options.width } : {}),
	});
}
