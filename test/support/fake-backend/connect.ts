// Connect protocol framing (docs/fake-cursor-backend-protocol.md §5).
// Streaming bodies are sequences of envelopes: 1 flag byte, 4-byte big-endian length, payload.

export const FLAG_DATA = 0x00;
export const FLAG_COMPRESSED = 0x01;
export const FLAG_END_STREAM = 0x02;

/** Connect error codes that can be sent in an end-stream envelope. */
export const CONNECT_CODES = [
	"canceled",
	"unknown",
	"invalid_argument",
	"deadline_exceeded",
	"not_found",
	"already_exists",
	"permission_denied",
	"resource_exhausted",
	"failed_precondition",
	"aborted",
	"out_of_range",
	"unimplemented",
	"internal",
	"unavailable",
	"data_loss",
	"unauthenticated",
] as const;

export type ConnectCode = (typeof CONNECT_CODES)[number];

export function envelope(flags: number, payload: Uint8Array): Uint8Array {
	const out = new Uint8Array(5 + payload.length);
	out[0] = flags;
	new DataView(out.buffer).setUint32(1, payload.length, false);
	out.set(payload, 5);
	return out;
}

export function dataEnvelope(message: Uint8Array): Uint8Array {
	return envelope(FLAG_DATA, message);
}

/** End-stream envelope: `{}` on success, `{"error":{code,message}}` on failure. */
export function endStreamEnvelope(error?: { code: string; message: string }): Uint8Array {
	const json = error ? { error: { code: error.code, message: error.message } } : {};
	return envelope(FLAG_END_STREAM, new TextEncoder().encode(JSON.stringify(json)));
}

export interface Envelope {
	flags: number;
	payload: Uint8Array;
}

/** Splits a complete streaming body into envelopes. Trailing partial bytes are an error. */
export function parseEnvelopes(body: Uint8Array): Envelope[] {
	const out: Envelope[] = [];
	let pos = 0;
	while (pos < body.length) {
		if (pos + 5 > body.length) throw new Error("truncated envelope header");
		const flags = body[pos] as number;
		const length = new DataView(body.buffer, body.byteOffset + pos + 1, 4).getUint32(0, false);
		if (pos + 5 + length > body.length) throw new Error("truncated envelope payload");
		out.push({ flags, payload: body.subarray(pos + 5, pos + 5 + length) });
		pos += 5 + length;
	}
	return out;
}
