// Property-based tests (fast-check) at the boundaries where outside data enters. One seed per test process:
// - `npm test` and CI: a fixed seed, so every run checks the same generated cases;
// - `PI_CURSOR_PROPERTY_SEED=random` (or a number) and `PI_CURSOR_PROPERTY_RUNS=<cases per property>` explore more,
//   e.g. `PI_CURSOR_PROPERTY_SEED=random PI_CURSOR_PROPERTY_RUNS=20000 npm run test:property`.
// Each target prints one line, `property <target>: <cases> cases, 0 failures`. A failure prints the seed and the
// counterexample's path; `PI_CURSOR_PROPERTY_SEED=<seed> PI_CURSOR_PROPERTY_PATH=<target>:<path>` replays exactly it.
import fc from "fast-check";

export { fc };

const FIXED_SEED = 21_021;

function chooseSeed(): number {
	const raw = process.env.PI_CURSOR_PROPERTY_SEED?.trim();
	if (!raw) return FIXED_SEED;
	if (raw === "random") return (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) | 0;
	const seed = Number(raw);
	if (!Number.isSafeInteger(seed)) throw new Error(`PI_CURSOR_PROPERTY_SEED must be an integer or "random": ${raw}`);
	return seed | 0;
}

/** The seed of this test process (logged once). */
export const PROPERTY_SEED = chooseSeed();
console.log(`property seed: ${PROPERTY_SEED} (replay with PI_CURSOR_PROPERTY_SEED=${PROPERTY_SEED})`);

/** `PI_CURSOR_PROPERTY_RUNS` overrides every property's case count (longer exploratory runs). */
function runsFor(defaultRuns: number): number {
	const raw = process.env.PI_CURSOR_PROPERTY_RUNS?.trim();
	if (!raw) return defaultRuns;
	const runs = Number(raw);
	if (!Number.isSafeInteger(runs) || runs < 1) throw new Error(`PI_CURSOR_PROPERTY_RUNS must be a positive integer`);
	return runs;
}

/** `PI_CURSOR_PROPERTY_PATH=<target>:<path>` replays one counterexample of that target. */
function replayPath(target: string): string | undefined {
	const raw = process.env.PI_CURSOR_PROPERTY_PATH?.trim();
	if (!raw?.startsWith(`${target}:`)) return undefined;
	return raw.slice(target.length + 1);
}

/**
 * One boundary under test. `check` runs a property with this process's seed and counts its cases; `report` prints the
 * target's line (call it once, after its properties ran).
 */
export class PropertyTarget {
	private cases = 0;
	private failures = 0;

	constructor(readonly name: string) {
		if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`property target names are kebab-case: ${name}`);
	}

	async check<Ts>(property: fc.IRawProperty<Ts>, defaultRuns: number): Promise<void> {
		const path = replayPath(this.name);
		const details = await fc.check(property, {
			seed: PROPERTY_SEED,
			numRuns: runsFor(defaultRuns),
			...(path ? { path, endOnFailure: true } : {}),
		});
		this.cases += details.numRuns;
		if (!details.failed) return;
		this.failures++;
		const report = (await fc.asyncDefaultReportMessage(details)) ?? "property failed";
		throw new Error(
			[
				`property ${this.name} failed (seed ${details.seed}, path ${details.counterexamplePath}).`,
				`Replay: PI_CURSOR_PROPERTY_SEED=${details.seed} PI_CURSOR_PROPERTY_PATH='${this.name}:${details.counterexamplePath}' <the same bun test command>`,
				report,
				`Error: ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`,
			].join("\n"),
		);
	}

	report(): void {
		console.log(`property ${this.name}: ${this.cases} cases, ${this.failures} failures`);
	}
}

// ---------------------------------------------------------------------------------------------------------------
// Shared generators: what the outside world sends.
// ---------------------------------------------------------------------------------------------------------------

/** Any JSON value (bounded depth), including the odd keys JSON allows (`__proto__`, `constructor`, empty). */
export const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 4 });

/** Strings that break naive parsers: control characters, quotes, newlines, lone surrogates, very long runs. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
	fc.string({ maxLength: 40 }),
	fc.string({ unit: "binary", maxLength: 40 }),
	fc.constantFrom("", " ", "\n", "\t", "\u0000", '"', "\\", "__proto__", "constructor", "toString", "\u2028", "\ud800"),
	fc.string({ unit: fc.constantFrom("a", " ", "\n", "\r", ":", "@", "/", "\u0000", "é"), maxLength: 80 }),
);

/** A value of any JavaScript type a wrongly typed field may hold. */
export const wrongTyped: fc.Arbitrary<unknown> = fc.oneof(
	anyJson,
	nastyString,
	fc.constantFrom(undefined, null, Number.NaN, Number.POSITIVE_INFINITY, -1, 0, 2 ** 53, true, false),
	fc.array(nastyString, { maxLength: 3 }),
);
