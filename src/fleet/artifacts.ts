// Where `/cursor-cloud artifacts <bc-id> download <path> --to <dir>` writes a file: inside the folder the user named,
// never outside it (an artifact path is Cursor's data). Pure.
import { isAbsolute, relative, resolve } from "node:path";

export type ArtifactTarget = { ok: true; path: string } | { ok: false; message: string };

export function artifactTarget(folder: string, artifactPath: string, cwd: string): ArtifactTarget {
	const refuse = (why: string): ArtifactTarget => ({
		ok: false,
		message: `Not downloaded: the artifact path ${JSON.stringify(artifactPath.slice(0, 200))} ${why}.`,
	});
	if (!artifactPath || artifactPath.includes("\0")) return refuse("is empty or holds a NUL character");
	const root = resolve(cwd, folder);
	const target = resolve(root, artifactPath.replace(/^\/+/, ""));
	const inside = relative(root, target);
	if (!inside || inside.startsWith("..") || isAbsolute(inside)) return refuse(`would leave the folder ${root}`);
	return { ok: true, path: target };
}

/** Sizes as people read them. */
export function sizeText(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
	return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
