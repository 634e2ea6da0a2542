// Protobuf wire-format primitives (varints, tags, length-delimited fields), hand-rolled.
// See docs/fake-cursor-backend-protocol.md §8.

export const WIRE_VARINT = 0;
export const WIRE_I64 = 1;
export const WIRE_LEN = 2;
export const WIRE_I32 = 5;

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder("utf-8", { fatal: true });

/** Growable byte buffer for writing protobuf fields. */
export class ProtoWriter {
	private chunks: Uint8Array[] = [];
	private length = 0;

	bytes(data: Uint8Array): this {
		this.chunks.push(data);
		this.length += data.length;
		return this;
	}

	varint(value: number | bigint): this {
		let v = typeof value === "bigint" ? BigInt.asUintN(64, value) : BigInt.asUintN(64, BigInt(Math.trunc(value)));
		const out: number[] = [];
		do {
			let byte = Number(v & 0x7fn);
			v >>= 7n;
			if (v > 0n) byte |= 0x80;
			out.push(byte);
		} while (v > 0n);
		return this.bytes(Uint8Array.from(out));
	}

	tag(fieldNo: number, wireType: number): this {
		return this.varint(fieldNo * 8 + wireType);
	}

	lengthDelimited(fieldNo: number, data: Uint8Array): this {
		return this.tag(fieldNo, WIRE_LEN).varint(data.length).bytes(data);
	}

	double(value: number): this {
		const buf = new Uint8Array(8);
		new DataView(buf.buffer).setFloat64(0, value, true);
		return this.bytes(buf);
	}

	float(value: number): this {
		const buf = new Uint8Array(4);
		new DataView(buf.buffer).setFloat32(0, value, true);
		return this.bytes(buf);
	}

	fixed32(value: number, signed: boolean): this {
		const buf = new Uint8Array(4);
		const view = new DataView(buf.buffer);
		if (signed) view.setInt32(0, value, true);
		else view.setUint32(0, value, true);
		return this.bytes(buf);
	}

	fixed64(value: bigint, signed: boolean): this {
		const buf = new Uint8Array(8);
		const view = new DataView(buf.buffer);
		if (signed) view.setBigInt64(0, value, true);
		else view.setBigUint64(0, value, true);
		return this.bytes(buf);
	}

	finish(): Uint8Array {
		const out = new Uint8Array(this.length);
		let offset = 0;
		for (const chunk of this.chunks) {
			out.set(chunk, offset);
			offset += chunk.length;
		}
		return out;
	}
}

export interface RawField {
	fieldNo: number;
	wireType: number;
	/** varint value (wire type 0) */
	varint?: bigint;
	/** raw bytes for wire types 1, 2 and 5 */
	data?: Uint8Array;
}

/** Reads every top-level field of a protobuf message. Throws on malformed input. */
export function readFields(bytes: Uint8Array): RawField[] {
	const fields: RawField[] = [];
	let pos = 0;
	const readVarint = (): bigint => {
		let result = 0n;
		let shift = 0n;
		for (let i = 0; i < 10; i++) {
			if (pos >= bytes.length) throw new Error("truncated varint");
			const byte = bytes[pos++] as number;
			result |= BigInt(byte & 0x7f) << shift;
			if ((byte & 0x80) === 0) return result;
			shift += 7n;
		}
		throw new Error("varint too long");
	};
	const take = (n: number): Uint8Array => {
		if (n < 0 || pos + n > bytes.length) throw new Error("truncated field");
		const out = bytes.subarray(pos, pos + n);
		pos += n;
		return out;
	};
	while (pos < bytes.length) {
		const key = readVarint();
		const fieldNo = Number(key >> 3n);
		const wireType = Number(key & 7n);
		if (fieldNo === 0) throw new Error("illegal field number 0");
		switch (wireType) {
			case WIRE_VARINT:
				fields.push({ fieldNo, wireType, varint: readVarint() });
				break;
			case WIRE_I64:
				fields.push({ fieldNo, wireType, data: take(8) });
				break;
			case WIRE_LEN:
				fields.push({ fieldNo, wireType, data: take(Number(readVarint())) });
				break;
			case WIRE_I32:
				fields.push({ fieldNo, wireType, data: take(4) });
				break;
			default:
				throw new Error(`unsupported wire type ${wireType}`);
		}
	}
	return fields;
}

/** Reads a packed run of varints. */
export function readPackedVarints(bytes: Uint8Array): bigint[] {
	const out: bigint[] = [];
	let pos = 0;
	while (pos < bytes.length) {
		let result = 0n;
		let shift = 0n;
		for (;;) {
			if (pos >= bytes.length) throw new Error("truncated packed varint");
			const byte = bytes[pos++] as number;
			result |= BigInt(byte & 0x7f) << shift;
			if ((byte & 0x80) === 0) break;
			shift += 7n;
		}
		out.push(result);
	}
	return out;
}

export function utf8Encode(text: string): Uint8Array {
	return textEncoder.encode(text);
}

/** Strict UTF-8 decode; returns undefined when the bytes are not valid UTF-8. */
export function utf8DecodeStrict(bytes: Uint8Array): string | undefined {
	try {
		return textDecoder.decode(bytes);
	} catch {
		return undefined;
	}
}

export function utf8Decode(bytes: Uint8Array): string {
	return new TextDecoder().decode(bytes);
}

export function toHex(bytes: Uint8Array): string {
	return Buffer.from(bytes).toString("hex");
}

export function fromHex(hex: string): Uint8Array {
	return new Uint8Array(Buffer.from(hex, "hex"));
}

export function toBase64(bytes: Uint8Array): string {
	return Buffer.from(bytes).toString("base64");
}

export function fromBase64(text: string): Uint8Array {
	return new Uint8Array(Buffer.from(text, "base64"));
}

/** int64 → number when it fits exactly, else a decimal string (like protobuf JSON). */
export function int64ToJson(value: bigint): number | string {
	return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
		? Number(value)
		: value.toString();
}
