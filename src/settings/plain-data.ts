// Plain JSON data read from files and session entries: the one object guard, own-property writes that keep keys such
// as `__proto__` as data, and how a value is named in a warning.

import { redactSecrets } from "../sdk/errors.ts";

/** A JSON object (`{…}`): not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Sets `key` as an own, enumerable data property (even `__proto__`). */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
	Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A short description of a value for a warning: `null`, `an array`, `an object`, or its JSON (at most 40 chars). */
export function describeValue(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "an array";
	if (typeof value === "object") return "an object";
	// A key or a URL with userinfo pasted into the wrong field is redacted before the value is shortened.
	const text = redactSecrets(JSON.stringify(value) ?? String(value));
	return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
