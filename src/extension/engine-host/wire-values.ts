/**
 * Values between the extension host and the engine host's worker, with their BSON types intact.
 * Structured cloning would turn an ObjectId, Int32 or Decimal128 into a plain object, so every
 * argument and answer that can hold documents travels as BSON: numbers as doubles (a JS number is
 * a BSON double in the engine), read back without promotion so Int32 and Long stay themselves,
 * then copied into engine values (Double wrappers become numbers). Fields holding `undefined` are
 * left out, as optional fields are.
 *
 * Size: bson serializes through one module-wide 17 MiB buffer, even into a buffer it is given
 * (serializeWithBufferAndIndex copies out of it), and silently cuts a larger value short. Long
 * strings, which have no BSON type to keep, are the large values that cross (an export's text, an
 * import's): they travel beside the BSON as themselves, structured-cloned, which also spares both
 * threads their UTF-8 encoding. What is still over the limit is refused with a clear error.
 */
import { BSON, type Document } from 'bson';
import { storableDocument } from '../../engine/storage/values';
import { cloneValue } from '../../engine/values/clone';
import { setField } from '../../engine/values/fields';

const ENCODE = { ignoreUndefined: true } as const;
const DECODE = { promoteValues: false } as const;

/** bson's serialization buffer (MAXSIZE in its source): no value may encode larger. */
export const BSON_BUFFER_BYTES = 17 * 1024 * 1024;
/** A value this large looks for long strings to carry beside its BSON... */
const LIFT_ABOVE_BYTES = 1024 * 1024;
/** ...and strings this long go (one UTF-16 code unit is 1 to 3 UTF-8 bytes). */
const LIFT_CHARS = 64 * 1024;

/** A value as it crosses: BSON, and the long strings taken out of it, each with its place (field names from the root). */
export interface WireValue {
  bson: Uint8Array;
  texts?: Array<{ path: string[]; text: string }>;
}

export function encodeValue(value: unknown): WireValue {
  const doc = storableDocument({ v: value });
  let size = BSON.calculateObjectSize(doc, ENCODE);
  let texts: WireValue['texts'];
  if (size > LIFT_ABOVE_BYTES) {
    texts = [];
    // storableDocument copied every document and array: replacing strings here leaves the caller's value alone.
    liftTexts(doc, [], texts);
    size = BSON.calculateObjectSize(doc, ENCODE);
  }
  if (size > BSON_BUFFER_BYTES) {
    throw new RangeError(
      `The value is too large to cross to or from the engine host: ${(size / 1048576).toFixed(1)} MiB of BSON, at most ${BSON_BUFFER_BYTES / 1048576} MiB (long strings excepted). Ask for less at a time.`,
    );
  }
  const bytes = new Uint8Array(size);
  BSON.serializeWithBufferAndIndex(doc, bytes, ENCODE);
  return texts?.length ? { bson: bytes, texts } : { bson: bytes };
}

export function decodeValue(wire: WireValue): unknown {
  const doc = BSON.deserialize(wire.bson, DECODE);
  if (!('v' in doc)) return undefined;
  const root: Document = { v: cloneValue(doc.v) };
  for (const { path, text } of wire.texts ?? []) {
    let at = root;
    for (let i = 0; i < path.length - 1; i++) at = at[path[i]] as Document;
    setField(at, path[path.length - 1], text);
  }
  return root.v;
}

/** Replaces long strings of plain documents and arrays (not BSON values) by '' and records where they were. */
function liftTexts(container: Document | unknown[], path: string[], out: NonNullable<WireValue['texts']>): void {
  const fields = container as Record<string, unknown>;
  for (const key of Object.keys(container)) {
    const value = fields[key];
    if (typeof value === 'string') {
      if (value.length >= LIFT_CHARS) {
        out.push({ path: [...path, key], text: value });
        if (Array.isArray(container)) container[Number(key)] = '';
        else setField(container, key, '');
      }
    } else if (Array.isArray(value) || isPlainDocument(value)) {
      liftTexts(value as Document | unknown[], [...path, key], out);
    }
  }
}

function isPlainDocument(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** An error as it crosses: the fields a caller reads (message, code, codeName) and the rest as BSON. */
export interface WireError {
  name: string;
  message: string;
  stack?: string;
  /** Own enumerable fields (code, codeName, errorLabels, writeErrors, ...). */
  fields: WireValue;
}

export function encodeError(err: unknown): WireError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), fields: encodeValue({}) };
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(err)) {
    const value = (err as unknown as Record<string, unknown>)[key];
    if (typeof value !== 'function' && !(value instanceof Error)) fields[key] = value;
  }
  let encoded: WireValue;
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
