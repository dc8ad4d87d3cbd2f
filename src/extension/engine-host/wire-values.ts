/**
 * Values between the extension host and the engine host's worker, with their BSON types intact.
 * Structured cloning would turn an ObjectId, Int32 or Decimal128 into a plain object, so every
 * argument and answer that can hold documents travels as BSON: numbers as doubles (a JS number is
 * a BSON double in the engine), read back without promotion so Int32 and Long stay themselves,
 * then copied into engine values (Double wrappers become numbers). Fields holding `undefined` are
 * left out, as optional fields are. No size limit applies: bson serializes through one internal
 * buffer of 17 MiB, which a larger value grows first (it stays that size afterwards).
 */
import { BSON } from 'bson';
import { storableDocument } from '../../engine/storage/values';
import { cloneValue } from '../../engine/values/clone';

const ENCODE = { ignoreUndefined: true } as const;
const DECODE = { promoteValues: false } as const;
/** bson's own internal buffer size: values above it need the buffer grown first. */
export const BSON_BUFFER_BYTES = 17 * 1024 * 1024;

export function encodeValue(value: unknown): Uint8Array {
  const doc = storableDocument({ v: value });
  const size = BSON.calculateObjectSize(doc, ENCODE);
  if (size > BSON_BUFFER_BYTES) BSON.setInternalBufferSize(size);
  return BSON.serialize(doc, ENCODE);
}

export function decodeValue(bytes: Uint8Array): unknown {
  const doc = BSON.deserialize(bytes, DECODE);
  return 'v' in doc ? cloneValue(doc.v) : undefined;
}

/**
 * An error as it crosses: what callers read (message, code, codeName, errorLabels) as plain fields,
 * and every other own field as BSON, one by one, so a field that cannot be encoded loses only itself.
 */
export interface WireError {
  name: string;
  message: string;
  stack?: string;
  code?: number;
  codeName?: string;
  errorLabels?: string[];
  /** The other own enumerable fields (writeErrors, keyPattern, ...). */
  fields: Record<string, Uint8Array>;
}

export function encodeError(err: unknown): WireError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), fields: {} };
  const e = err as Error & { code?: unknown; codeName?: unknown; errorLabels?: unknown };
  const fields: Record<string, Uint8Array> = {};
  for (const key of Object.keys(err)) {
    if (key === 'code' || key === 'codeName' || key === 'errorLabels') continue;
    const value = (err as unknown as Record<string, unknown>)[key];
    if (typeof value === 'function' || value instanceof Error) continue;
    try {
      fields[key] = encodeValue(value);
    } catch {
      // Left out: a cycle, a key bson refuses.
    }
  }
  return {
    name: err.name,
    message: err.message,
    ...(err.stack ? { stack: err.stack } : {}),
    ...(typeof e.code === 'number' ? { code: e.code } : {}),
    ...(typeof e.codeName === 'string' ? { codeName: e.codeName } : {}),
    ...(Array.isArray(e.errorLabels) ? { errorLabels: e.errorLabels.map(String) } : {}),
    fields,
  };
}

export function decodeError(wire: WireError): Error {
  const err = new Error(wire.message) as Error & Record<string, unknown>;
  err.name = wire.name;
  if (wire.stack) err.stack = wire.stack;
  if (wire.code !== undefined) err.code = wire.code;
  if (wire.codeName !== undefined) err.codeName = wire.codeName;
  if (wire.errorLabels !== undefined) err.errorLabels = wire.errorLabels;
  for (const [k, bytes] of Object.entries(wire.fields))
    if (k !== 'message' && k !== 'name' && k !== 'stack') err[k] = decodeValue(bytes);
  return err;
}
