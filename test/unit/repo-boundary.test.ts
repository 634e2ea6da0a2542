import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { boundaryViolations } from "../support/repo-boundary.ts";
import { REPO_ROOT } from "../support/toolchain.ts";

const SOURCE = /\.(ts|mts|js|mjs|cjs|sh)$/;
const SELF = relative(REPO_ROOT, import.meta.path);

function projectFiles(): string[] {
	const files = ["package.json", ".ci/run"];
	for (const dir of ["src", "build", "test", "bench", ".ci"]) {
		for (const entry of readdirSync(join(REPO_ROOT, dir), { recursive: true, withFileTypes: true })) {
			const file = relative(REPO_ROOT, join(entry.parentPath, entry.name));
			// This file plants violations to prove the check catches them.
			if (entry.isFile() && SOURCE.test(entry.name) && file !== SELF) files.push(file);
		}
	}
	return files;
}

test("no source file under src build test bench .ci names a path outside the checkout", () => {
	const files = projectFiles();
	expect(files.length).toBeGreaterThan(50);
	const violations = files.flatMap((file) =>
		boundaryViolations(REPO_ROOT, file, readFileSync(join(REPO_ROOT, file), "utf8")),
	);
	expect(violations).toEqual([]);
});

test.each([
	["a relative literal climbing out", "test/unit/x.test.ts", `const p = "../../../shared/data/a.json";`],
	["a join from the repository root upwards", "build/x.ts", `const d = resolve(REPO_ROOT, "..", "shared", "data");`],
	["a join from the file's folder upwards", "test/x.ts", `const d = join(import.meta.dir, "..", "..", "sibling");`],
	["an absolute path into the work tree", "bench/x.ts", `const d = "/work/shared/data";`],
	["a shell path beside the checkout", ".ci/run", `cp ../shared/data/x.json data/`],
])("catches %s", (_name, file, source) => {
	expect(boundaryViolations(REPO_ROOT, file, source)).toHaveLength(1);
});

test.each([
	["an import within the repository", "test/unit/x.test.ts", `import { a } from "../../src/a.ts";`],
	["the repository root itself", "build/x.ts", `const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");`],
	["a data file of the repository", "test/support/x.ts", `const p = join(REPO_ROOT, "data", "catalog.json");`],
])("allows %s", (_name, file, source) => {
	expect(boundaryViolations(REPO_ROOT, file, source)).toEqual([]);
});
