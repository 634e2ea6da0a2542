/** Runs async tasks with at most `size` in flight: every Pi or SDK process costs ~2 s of CPU and CI has 2 cores. */
export function pool(size: number) {
	let active = 0;
	const waiting: (() => void)[] = [];
	return async <T>(task: () => Promise<T>): Promise<T> => {
		while (active >= size) await new Promise<void>((resolve) => waiting.push(resolve));
		active++;
		try {
			return await task();
		} finally {
			active--;
			waiting.shift()?.();
		}
	};
}
