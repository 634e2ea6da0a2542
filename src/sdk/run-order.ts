// The order of a cloud agent's runs: oldest first, whatever order Cursor lists them in. Pure.

/** Sorted by creation time when every run has one; otherwise as listed (a partial order would be a guess). */
export function oldestFirst<T extends { readonly createdAt?: number }>(runs: readonly T[]): T[] {
	const known = runs.every((run) => Number.isFinite(run.createdAt));
	return known ? [...runs].sort((a, b) => (a.createdAt as number) - (b.createdAt as number)) : [...runs];
}
