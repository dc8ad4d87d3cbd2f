/**
 * Values between the extension host and the engine host's worker, with their BSON types intact.
 * Structured cloning would turn an ObjectId, Int32 or Decimal128 into a plain object, so every
 * argument and answer that can hold documents travels as BSON: numbers as doubles (a JS number is
 * a BSON double in the engine), read back without promotion so Int32 and Long stay themselves,
 * then copied into engine values (Double wrappers become numbers). Fields holding `undefined` are
 * left out, as optional fields are. No size limit applies: the buffer is sized for the value.
 */
import { BSON } from 'bson';
import { storableDocument } from '../../engine/storage/values';
import { cloneValue } from '../../engine/values/clone';

const ENCODE = { ignoreUndefined: true } as const;
const DECODE = { promoteValues: false } as const;

export function encodeValue(value: unknown): Uint8Array {
  const doc = storableDocument({ v: value });
  const bytes = new Uint8Array(BSON.calculateObjectSize(doc, ENCODE));
  BSON.serializeWithBufferAndIndex(doc, bytes, ENCODE);
  return bytes;
}

export function decodeValue(bytes: Uint8Array): unknown {
  const doc = BSON.deserialize(bytes, DECODE);
  return 'v' in doc ? cloneValue(doc.v) : undefined;
}

/** An error as it crosses: the fields a caller reads (message, code, codeName) and the rest as BSON. */
export interface WireError {
  name: string;
  message: string;
  stack?: string;
  /** Own enumerable fields (code, codeName, errorLabels, writeErrors, ...). */
  fields: Uint8Array;
}

export function encodeError(err: unknown): WireError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), fields: encodeValue({}) };
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(err)) {
    const value = (err as unknown as Record<string, unknown>)[key];
    if (typeof value !== 'function' && !(value instanceof Error)) fields[key] = value;
  }
  let encoded: Uint8Array;
  try {
    encoded = encodeValue(fields);
  } catch {
    encoded = encodeValue({});
  }
  return { name: err.name, message: err.message, ...(err.stack ? { stack: err.stack } : {}), fields: encoded };
}

export function decodeError(wire: WireError): Error {
  const err = new Error(wire.message);
  err.name = wire.name;
  if (wire.stack) err.stack = wire.stack;
  const fields = decodeValue(wire.fields) as Record<string, unknown> | undefined;
  if (fields) for (const [k, v] of Object.entries(fields)) if (k !== 'message' && k !== 'name' && k !== 'stack') (err as unknown as Record<string, unknown>)[k] = v;
  return err;
}
