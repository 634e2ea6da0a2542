// `npm run bench` (after the bundle is built): startup (bench/list-models.ts) and turns (bench/stream.ts) in one
// run, each printed in full, then the figures issue 18 sets targets for, side by side. The soak, replay and bridge
// benchmarks follow as separate scripts. Printed, never asserted.
import { printStartup, runStartupBench, STARTUP, startupRatios } from "./list-models.ts";
import { followUpGap, printTurns, runTurnBench, TURNS, turnRatios } from "./stream.ts";

const startup = await runStartupBench();
printStartup(startup);
console.log();
const turns = await runTurnBench();
printTurns(turns);

const s = startupRatios(startup);
const t = turnRatios(turns);
const gap = followUpGap(turns);
const ms = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? `${x.toFixed(0)} ms` : "—");
const followUp = (figure: Record<string, number>) =>
	`${(figure[TURNS.prewarmed] ?? Number.NaN).toFixed(1)} vs ${(figure[TURNS.bare] ?? Number.NaN).toFixed(1)} ms`;
const rows: [string, string, string, string][] = [
	[
		"startup, installed ÷ SDK-only floor",
		`${s.installed.toFixed(2)}×`,
		"≤ 1.10×",
		`${ms(startup.warm[STARTUP.installed])} vs ${ms(startup.warm[STARTUP.floor])}`,
	],
	[
		"startup, checkout ÷ SDK-only floor",
		`${s.checkout.toFixed(2)}×`,
		"≤ 1.10×",
		`${ms(startup.warm[STARTUP.checkout])} vs ${ms(startup.warm[STARTUP.floor])}`,
	],
	[
		"  installed, model cache = bundled catalog",
		`${s.cachedSame.toFixed(2)}×`,
		"≤ 1.10×",
		`${ms(startup.warm[STARTUP.cachedSame])}; a changed catalog: ${s.cachedChanged.toFixed(2)}×`,
	],
	[
		"  the same in CPU time (user + system)",
		`${s.cpuInstalled.toFixed(2)}× ${s.cpuCheckout.toFixed(2)}×`,
		"—",
		"installed, checkout (a steadier cross-check)",
	],
	[
		"first start after install (installed)",
		ms(startup.first[STARTUP.installed]),
		"—",
		`floor ${ms(startup.first[STARTUP.floor])}, Pi alone ${ms(startup.warm[STARTUP.alone])} (warm)`,
	],
	[
		"first turn, prewarmed ÷ bare SDK cold",
		`${t.prewarmed.toFixed(2)}×`,
		"≤ 0.60×",
		`${ms(turns.first[TURNS.prewarmed])} vs ${ms(turns.first[TURNS.bare])}`,
	],
	["first turn, cold ÷ bare SDK cold", `${t.cold.toFixed(2)}×`, "—", `${ms(turns.first[TURNS.cold])}`],
	["follow-up ÷ bare SDK, deltas at once", `${t.followUp.toFixed(2)}×`, "≤ 1.50×", followUp(turns.followUp)],
	[`  paced (a delta every ${turns.paceMs} ms)`, `${t.paced.toFixed(2)}×`, "≤ 1.50×", followUp(turns.paced)],
	[
		"  where the follow-up's extra time goes",
		`${gap.total.toFixed(1)} ms`,
		"—",
		`Pi's own turn ${gap.pi.toFixed(1)} ms, the SDK's git spawn ${gap.spawn.toFixed(1)} ms, the rest ` +
			`${gap.rest.toFixed(1)} ms (paced: ${gap.pacedTotal.toFixed(1)} ms in all)`,
	],
];
console.log();
console.log("Summary (medians; see above for runs and ranges):");
for (const [label, value, target, detail] of rows) {
	console.log(`  ${label.padEnd(40)}${value.padStart(9)}  target ${target.padEnd(8)}${detail}`);
}
