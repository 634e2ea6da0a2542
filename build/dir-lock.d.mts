/** See dir-lock.mjs. */
export function underDirLock(
	lock: string,
	done: () => boolean,
	work: () => void,
	timing: { pauseMs: number; staleMs: number },
): void;
