// Schema-driven protobuf ⇄ JSON codec. JSON uses the proto field names (snake_case); camelCase is accepted on input.
// Unknown fields are decoded generically under "#<fieldNo>". int64 values become numbers when safe, else strings.
// bytes are base64 strings. google.protobuf.Value / Struct / ListValue are plain JSON values.

import { type FieldInfo, type FieldType, messageInfo, WELL_KNOWN } from "./schema.ts";
import {
	fromBase64,
	int64ToJson,
	ProtoWriter,
	type RawField,
	readFields,
	readPackedVarints,
	toBase64,
	utf8Decode,
	utf8DecodeStrict,
	utf8Encode,
	WIRE_I32,
	WIRE_I64,
	WIRE_LEN,
	WIRE_VARINT,
} from "./wire.ts";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

// ── Encoding ─────────────────────────────────────────────────────────────────────────────────────────────────

function wireTypeOfScalar(scalar: number): number {
	switch (scalar) {
		case 1:
		case 6:
		case 16:
			return WIRE_I64;
		case 2:
		case 7:
		case 15:
			return WIRE_I32;
		case 9:
		case 12:
			return WIRE_LEN;
		default:
			return WIRE_VARINT;
	}
}

function toBigInt(value: unknown): bigint {
	if (typeof value === "bigint") return value;
	if (typeof value === "number") return BigInt(Math.trunc(value));
	if (typeof value === "string") return BigInt(value);
	if (typeof value === "boolean") return value ? 1n : 0n;
	throw new Error(`expected an integer, got ${JSON.stringify(value)}`);
}

function writeScalarPayload(w: ProtoWriter, scalar: number, value: unknown): void {
	switch (scalar) {
		case 1:
			w.double(Number(value));
			return;
		case 2:
			w.float(Number(value));
			return;
		case 6:
			w.fixed64(BigInt.asUintN(64, toBigInt(value)), false);
			return;
		case 16:
			w.fixed64(BigInt.asIntN(64, toBigInt(value)), true);
			return;
		case 7:
			w.fixed32(Number(value), false);
			return;
		case 15:
			w.fixed32(Number(value), true);
			return;
		case 9: {
			const data = utf8Encode(String(value));
			w.varint(data.length).bytes(data);
			return;
		}
		case 12: {
			const data = value instanceof Uint8Array ? value : fromBase64(String(value));
			w.varint(data.length).bytes(data);
			return;
		}
		case 8:
			w.varint(value ? 1 : 0);
			return;
		case 17: {
			const v = BigInt.asIntN(32, toBigInt(value));
			w.varint((v << 1n) ^ (v >> 31n));
			return;
		}
		case 18: {
			const v = BigInt.asIntN(64, toBigInt(value));
			w.varint(BigInt.asUintN(64, (v << 1n) ^ (v >> 63n)));
			return;
		}
		default:
			// int32, int64, uint32, uint64 and enums: negative values take 10 bytes (two's complement).
			w.varint(toBigInt(value));
	}
}

function writeField(w: ProtoWriter, field: FieldInfo, type: FieldType, no: number, value: unknown): void {
	switch (type.kind) {
		case "scalar":
			w.tag(no, wireTypeOfScalar(type.scalar));
			writeScalarPayload(w, type.scalar, value);
			return;
		case "enum":
			w.tag(no, WIRE_VARINT);
			writeScalarPayload(w, 5, value);
			return;
		case "message":
			w.lengthDelimited(no, encodeMessage(type.message, value));
			return;
		case "map": {
			if (typeof value !== "object" || value === null) throw new Error(`map field ${field.name} expects an object`);
			for (const [key, entryValue] of Object.entries(value)) {
				if (entryValue === undefined) continue;
				const entry = new ProtoWriter();
				writeField(entry, field, { kind: "scalar", scalar: type.key }, 1, key);
				writeField(entry, field, type.value, 2, entryValue);
				w.lengthDelimited(no, entry.finish());
			}
			return;
		}
	}
}

function encodeValue(value: unknown): Uint8Array {
	const w = new ProtoWriter();
	if (value === null || value === undefined) w.tag(1, WIRE_VARINT).varint(0);
	else if (typeof value === "number") w.tag(2, WIRE_I64).double(value);
	else if (typeof value === "string") w.lengthDelimited(3, utf8Encode(value));
	else if (typeof value === "boolean") w.tag(4, WIRE_VARINT).varint(value ? 1 : 0);
	else if (Array.isArray(value)) w.lengthDelimited(6, encodeListValue(value));
	else if (typeof value === "object") w.lengthDelimited(5, encodeStruct(value as Record<string, unknown>));
	else throw new Error(`cannot encode ${typeof value} as google.protobuf.Value`);
	return w.finish();
}

function encodeStruct(value: Record<string, unknown>): Uint8Array {
	const w = new ProtoWriter();
	for (const [key, entryValue] of Object.entries(value)) {
		if (entryValue === undefined) continue;
		const entry = new ProtoWriter().lengthDelimited(1, utf8Encode(key)).lengthDelimited(2, encodeValue(entryValue));
		w.lengthDelimited(1, entry.finish());
	}
	return w.finish();
}

function encodeListValue(values: unknown[]): Uint8Array {
	const w = new ProtoWriter();
	for (const item of values) w.lengthDelimited(1, encodeValue(item));
	return w.finish();
}

/** Encodes a JSON object as the named message. Throws on unknown field names (catches scenario typos). */
export function encodeMessage(type: string, value: unknown): Uint8Array {
	if (type === "Value") return encodeValue(value);
	if (type === "Struct") return encodeStruct((value ?? {}) as Record<string, unknown>);
	if (type === "ListValue") return encodeListValue((value ?? []) as unknown[]);
	const info = messageInfo(type);
	if (!info) throw new Error(`unknown message type ${type}`);
	if (value instanceof Uint8Array) return value;
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		throw new Error(`message ${type} expects an object, got ${JSON.stringify(value)}`);
	}
	const w = new ProtoWriter();
	for (const [key, fieldValue] of Object.entries(value)) {
		if (fieldValue === undefined || fieldValue === null) continue;
		const field = info.byName.get(key);
		if (!field) throw new Error(`unknown field ${type}.${key}`);
		if (field.repeated) {
			if (!Array.isArray(fieldValue)) throw new Error(`repeated field ${type}.${key} expects an array`);
			for (const item of fieldValue) writeField(w, field, field.type, field.no, item);
		} else {
			writeField(w, field, field.type, field.no, fieldValue);
		}
	}
	return w.finish();
}

// ── Decoding ─────────────────────────────────────────────────────────────────────────────────────────────────

function decodeVarintScalar(scalar: number, v: bigint): Json {
	switch (scalar) {
		case 8:
			return v !== 0n;
		case 3:
			return int64ToJson(BigInt.asIntN(64, v));
		case 4:
			return int64ToJson(BigInt.asUintN(64, v));
		case 13:
			return Number(BigInt.asUintN(32, v));
		case 17: {
			const u = BigInt.asUintN(32, v);
			return Number((u >> 1n) ^ -(u & 1n));
		}
		case 18: {
			const u = BigInt.asUintN(64, v);
			return int64ToJson((u >> 1n) ^ -(u & 1n));
		}
		default:
			return Number(BigInt.asIntN(32, v));
	}
}

function decodeFixedScalar(scalar: number, data: Uint8Array): Json {
	const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
	switch (scalar) {
		case 1:
			return view.getFloat64(0, true);
		case 2:
			return view.getFloat32(0, true);
		case 6:
			return int64ToJson(view.getBigUint64(0, true));
		case 16:
			return int64ToJson(view.getBigInt64(0, true));
		case 7:
			return view.getUint32(0, true);
		case 15:
			return view.getInt32(0, true);
		default:
			return toBase64(data);
	}
}

function isPrintable(text: string): boolean {
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
		if (c === 0x7f || c === 0xfffd) return false;
	}
	return true;
}

/** Best-effort decoding of an unknown field. */
function decodeGeneric(raw: RawField, depth: number): Json {
	if (raw.wireType === WIRE_VARINT) {
		const v = raw.varint ?? 0n;
		return int64ToJson(v >= 1n << 63n ? BigInt.asIntN(64, v) : v);
	}
	const data = raw.data ?? new Uint8Array();
	if (raw.wireType === WIRE_I64) return { fixed64: toBase64(data) };
	if (raw.wireType === WIRE_I32) return { fixed32: toBase64(data) };
	if (data.length === 0) return "";
	const text = utf8DecodeStrict(data);
	if (text !== undefined && isPrintable(text)) return text;
	if (depth < 12) {
		try {
			return decodeFields(undefined, readFields(data), depth + 1);
		} catch {
			// not a message
		}
	}
	return { bytes: toBase64(data) };
}

function decodeTyped(type: FieldType, raw: RawField, depth: number): Json[] {
	switch (type.kind) {
		case "scalar": {
			if (raw.wireType === WIRE_VARINT) return [decodeVarintScalar(type.scalar, raw.varint ?? 0n)];
			const data = raw.data ?? new Uint8Array();
			if (raw.wireType === WIRE_LEN) {
				if (type.scalar === 9) return [utf8Decode(data)];
				if (type.scalar === 12) return [toBase64(data)];
				if (wireTypeOfScalar(type.scalar) === WIRE_VARINT) {
					return readPackedVarints(data).map((v) => decodeVarintScalar(type.scalar, v));
				}
				const size = wireTypeOfScalar(type.scalar) === WIRE_I64 ? 8 : 4;
				const out: Json[] = [];
				for (let i = 0; i + size <= data.length; i += size) {
					out.push(decodeFixedScalar(type.scalar, data.subarray(i, i + size)));
				}
				return out;
			}
			return [decodeFixedScalar(type.scalar, data)];
		}
		case "enum":
			if (raw.wireType === WIRE_LEN) {
				return readPackedVarints(raw.data ?? new Uint8Array()).map((v) => decodeVarintScalar(5, v));
			}
			return [decodeVarintScalar(5, raw.varint ?? 0n)];
		case "message":
			if (raw.wireType !== WIRE_LEN) return [decodeGeneric(raw, depth)];
			return [decodeMessageAt(type.message, raw.data ?? new Uint8Array(), depth + 1)];
		case "map":
			return [decodeGeneric(raw, depth)];
	}
}

function decodeFields(type: string | undefined, fields: RawField[], depth: number): JsonObject {
	const info = type ? messageInfo(type) : undefined;
	const out: JsonObject = {};
	const unknown = new Map<string, Json[]>();
	const push = (key: string, values: Json[], repeated: boolean): void => {
		if (repeated) {
			const existing = out[key];
			out[key] = Array.isArray(existing) ? [...existing, ...values] : values;
			return;
		}
		const last = values[values.length - 1];
		if (last !== undefined) out[key] = last;
	};
	for (const raw of fields) {
		const field = info?.byNo.get(raw.fieldNo);
		if (!field) {
			const key = `#${raw.fieldNo}`;
			const values = unknown.get(key) ?? [];
			values.push(decodeGeneric(raw, depth));
			unknown.set(key, values);
			continue;
		}
		if (field.type.kind === "map") {
			if (raw.wireType !== WIRE_LEN) continue;
			const entry = readFields(raw.data ?? new Uint8Array());
			let key: Json = "";
			let value: Json = null;
			for (const part of entry) {
				if (part.fieldNo === 1) key = decodeTyped({ kind: "scalar", scalar: field.type.key }, part, depth)[0] ?? "";
				if (part.fieldNo === 2) value = decodeTyped(field.type.value, part, depth)[0] ?? null;
			}
			const map = (out[field.name] ?? {}) as JsonObject;
			map[String(key)] = value;
			out[field.name] = map;
			continue;
		}
		push(field.name, decodeTyped(field.type, raw, depth), field.repeated);
	}
	for (const [key, values] of unknown) out[key] = values.length === 1 ? (values[0] ?? null) : values;
	return out;
}

function decodeValueFields(fields: RawField[], depth: number): Json {
	let result: Json = null;
	for (const raw of fields) {
		switch (raw.fieldNo) {
			case 1:
				result = null;
				break;
			case 2:
				result = decodeFixedScalar(1, raw.data ?? new Uint8Array(8));
				break;
			case 3:
				result = utf8Decode(raw.data ?? new Uint8Array());
				break;
			case 4:
				result = (raw.varint ?? 0n) !== 0n;
				break;
			case 5:
				result = decodeMessageAt("Struct", raw.data ?? new Uint8Array(), depth + 1);
				break;
			case 6:
				result = decodeMessageAt("ListValue", raw.data ?? new Uint8Array(), depth + 1);
				break;
		}
	}
	return result;
}

function decodeMessageAt(type: string, bytes: Uint8Array, depth: number): Json {
	const fields = readFields(bytes);
	if (type === "Value") return decodeValueFields(fields, depth);
	if (type === "Struct") {
		const out: JsonObject = {};
		for (const raw of fields) {
			if (raw.fieldNo !== 1 || !raw.data) continue;
			let key = "";
			let value: Json = null;
			for (const part of readFields(raw.data)) {
				if (part.fieldNo === 1) key = utf8Decode(part.data ?? new Uint8Array());
				if (part.fieldNo === 2) value = decodeMessageAt("Value", part.data ?? new Uint8Array(), depth + 1);
			}
			out[key] = value;
		}
		return out;
	}
	if (type === "ListValue") {
		return fields
			.filter((f) => f.fieldNo === 1)
			.map((f) => decodeMessageAt("Value", f.data ?? new Uint8Array(), depth + 1));
	}
	return decodeFields(WELL_KNOWN.has(type) ? undefined : type, fields, depth);
}

/** Decodes bytes as the named message into JSON. Throws on malformed protobuf. */
export function decodeMessage(type: string, bytes: Uint8Array): JsonObject {
	const value = decodeMessageAt(type, bytes, 0);
	if (typeof value !== "object" || value === null || Array.isArray(value)) return { value };
	return value;
}
