// Static import rules of the extension source, checked by test/unit/import-graph.test.ts.
export interface ImportViolation {
	file: string;
	rule: string;
	detail: string;
}

const SDK = "@cursor/sdk";
/** The SDK's public entries: the API, and the SQLite store kept apart so importing the API stays cheap. */
const SDK_ENTRIES = [SDK, `${SDK}/sqlite`];
const PI_SCOPES = ["@earendil-works/", "@mariozechner/"];

interface ImportSite {
	specifier: string;
	typeOnly: boolean;
	dynamic: boolean;
}

function importSites(source: string): ImportSite[] {
	const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
	const sites: ImportSite[] = [];
	const staticImport = /^\s*(import|export)\s+(type\s+)?([^'"]*?)\s*(?:from\s+)?["']([^"']+)["']/gm;
	for (const match of code.matchAll(staticImport)) {
		const [, keyword, typeKeyword, clause = "", specifier = ""] = match;
		if (keyword === "export" && !/\bfrom\b/.test(match[0])) continue;
		const typeOnly = Boolean(typeKeyword) || (/^\{[^}]*\}$/.test(clause.trim()) && allTypeNames(clause));
		sites.push({ specifier, typeOnly, dynamic: false });
	}
	for (const match of code.matchAll(/\bimport\s*\(\s*([^)]*)\)/g)) {
		const argument = (match[1] ?? "").trim();
		const literal = /^["'`]([^"'`$]+)["'`]$/.exec(argument);
		sites.push({ specifier: literal?.[1] ?? `<computed: ${argument}>`, typeOnly: false, dynamic: true });
	}
	for (const match of code.matchAll(/\brequire\s*\(\s*["']([^"']+)["']\s*\)/g)) {
		sites.push({ specifier: match[1] ?? "", typeOnly: false, dynamic: true });
	}
	return sites;
}

function allTypeNames(clause: string): boolean {
	const names = clause
		.replace(/[{}]/g, "")
		.split(",")
		.map((n) => n.trim())
		.filter(Boolean);
	return names.length > 0 && names.every((n) => n.startsWith("type "));
}

const isBare = (specifier: string) => !specifier.startsWith(".") && !specifier.startsWith("/");

/** `from` imports `specifier`: the imported file's key, as the files map names it (paths with `/`). */
function resolveRelative(from: string, specifier: string): string {
	const parts = from.split("/").slice(0, -1);
	for (const part of specifier.split("/")) {
		if (part === "..") parts.pop();
		else if (part !== ".") parts.push(part);
	}
	return parts.join("/");
}

/** Import cycles among the files (type-only imports included: they tie the modules' contracts together). */
export function importCycles(files: ReadonlyMap<string, string>): string[][] {
	const edges = new Map<string, string[]>();
	for (const [file, source] of files) {
		const targets = importSites(source)
			.filter((site) => !isBare(site.specifier))
			.map((site) => resolveRelative(file, site.specifier))
			.filter((target) => files.has(target));
		edges.set(file, [...new Set(targets)]);
	}
	const cycles: string[][] = [];
	const state = new Map<string, "open" | "done">();
	const stack: string[] = [];
	const visit = (file: string): void => {
		state.set(file, "open");
		stack.push(file);
		for (const target of edges.get(file) ?? []) {
			if (state.get(target) === "open") cycles.push([...stack.slice(stack.indexOf(target)), target]);
			else if (!state.has(target)) visit(target);
		}
		stack.pop();
		state.set(file, "done");
	};
	for (const file of [...files.keys()].sort()) if (!state.has(file)) visit(file);
	return cycles;
}

/** Checks every source file (path → text) against the project's import rules. */
export function checkImportGraph(files: ReadonlyMap<string, string>): ImportViolation[] {
	const violations: ImportViolation[] = [];
	const sdkImporters: string[] = [];
	for (const [file, source] of files) {
		for (const site of importSites(source)) {
			if (site.dynamic && (isBare(site.specifier) || site.specifier.startsWith("<computed"))) {
				violations.push({
					file,
					rule: "no-runtime-import-of-packages",
					detail: `runtime import of ${site.specifier}: compiled Pi cannot resolve it; use a static import`,
				});
			}
			const scope = PI_SCOPES.find((s) => site.specifier.startsWith(s));
			if (scope && site.specifier.slice(scope.length).includes("/")) {
				violations.push({
					file,
					rule: "pi-root-specifiers-only",
					detail: `${site.specifier}: import Pi packages by their root specifier only`,
				});
			}
			if (site.specifier === SDK || site.specifier.startsWith(`${SDK}/`)) {
				if (!SDK_ENTRIES.includes(site.specifier)) {
					violations.push({
						file,
						rule: "sdk-public-entries-only",
						detail: `${site.specifier}: import only ${SDK_ENTRIES.join(" or ")}`,
					});
				}
				if (!site.typeOnly && !sdkImporters.includes(file)) sdkImporters.push(file);
			}
		}
	}
	for (const cycle of importCycles(files)) {
		violations.push({ file: cycle[0] ?? "", rule: "no-import-cycles", detail: cycle.join(" -> ") });
	}
	if (sdkImporters.length !== 1) {
		violations.push({
			file: sdkImporters.join(", ") || "(none)",
			rule: "one-sdk-importer",
			detail: `${SDK} must be value-imported by exactly one module, found ${sdkImporters.length}`,
		});
	}
	return violations;
}
