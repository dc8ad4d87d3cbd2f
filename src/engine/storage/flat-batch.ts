/**
 * Flat snapshot batches: documents whose top-level values are all scalars of the common kinds
 * (double, string, ObjectId, date, boolean, null) — the small documents a TTL collection is made of —
 * written as rows of tagged values under a shared list of field names, in our own byte layout:
 *
 *   { flat: Binary(rows), k: [[field names of shape 0], [… of shape 1], …], ts?: [stamps] }
 *   row    = varint shape number, then one value per field of the shape, in its order
 *   value  = tag byte, then: double → 8 bytes LE; string → varint byte length + UTF-8;
 *            ObjectId → its 12 bytes; date → its milliseconds as 8 bytes LE; null/true/false → nothing
 *
 * Why not BSON: a BSON document repeats and re-decodes every field name in every document (a string
 * allocated per field, then looked up again to become a property), and its reader builds objects a
 * property at a time. Here names are read once per batch, and each shape gets a builder that makes
 * its documents as one object literal: the documents come out with the same layout as the
 * engine's own, restored about twice as fast, and the batch is half the size. Values are exact:
 * -0, NaN and Invalid Date survive (a double is stored as its 8 bytes); a document with any other
 * value (Int32, Long, nested documents, arrays, a string that is not well-formed UTF-16…) is not
 * flat and goes to the BSON batches.
 */
import { Binary, ObjectId } from 'bson';
import { setField } from '../values/fields';
import { bsonClassOf, type Document } from '../values/types';

const TAG_NULL = 0;
const TAG_DOUBLE = 1;
const TAG_STRING = 2;
const TAG_OBJECT_ID = 3;
const TAG_FALSE = 4;
const TAG_TRUE = 5;
const TAG_DATE = 6;

/** Field names per shape at most: a literal with more is no faster than property stores. */
const MAX_FIELDS = 64;

/** Lone surrogates have no UTF-8 form: such a string is left to the BSON batches. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
function wellFormed(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

/** The fields of `doc` when every value is flat and the names can be a shape, else undefined. */
export function flatFields(doc: Document): string[] | undefined {
  const keys = Object.keys(doc);
  if (keys.length > MAX_FIELDS) return undefined;
  for (const key of keys) {
    // `__proto__` as a literal key would set the prototype; a NUL would break the shape's key.
    if (key === '__proto__' || key.includes('\0') || !flatValue(doc[key])) return undefined;
  }
  return keys;
}

/** A value a flat batch holds exactly. */
function flatValue(v: unknown): boolean {
  switch (typeof v) {
    case 'number':
    case 'boolean':
      return true;
    case 'string':
      return wellFormed(v);
    case 'object':
      return v === null || v instanceof Date || bsonClassOf(v) === 'ObjectId';
    default:
      return false;
  }
}

/** Collects flat documents into one batch record. */
export class FlatBatchWriter {
  private bytes = new Uint8Array(32 * 1024);
  private view = new DataView(this.bytes.buffer);
  private at = 0;
  private shapes: string[][] = [];
  private shapeNumbers = new Map<string, number>();
  private readonly encoder = new TextEncoder();
  /** The fields and shape number of the last document: consecutive documents mostly share them. */
  private lastFields: string[] | undefined;
  private lastShape = -1;
  count = 0;

  /**
   * `flatFields(doc)`, without allocating when `doc` has the previous document's fields (compaction
   * reads a million documents; a key list and a joined string each made ~180 MB of garbage, and
   * the GC's marking steps that garbage forced stalled the event loop).
   */
  fieldsOf(doc: Document): string[] | undefined {
    const last = this.lastFields;
    if (last !== undefined) {
      let i = 0;
      let same = true;
      for (const key in doc) {
        if (
          i >= last.length ||
          key !== last[i] ||
          !Object.prototype.hasOwnProperty.call(doc, key) ||
          !flatValue(doc[key])
        ) {
          same = false;
          break;
        }
        i++;
      }
      if (same && i === last.length) return last;
    }
    return flatFields(doc);
  }

  /** Append `doc`, whose `flatFields` are `fields`. */
  add(doc: Document, fields: string[]): void {
    let shape = fields === this.lastFields ? this.lastShape : -1;
    if (shape < 0) {
      const shapeKey = fields.join('\0');
      shape = this.shapeNumbers.get(shapeKey) ?? -1;
      if (shape < 0) {
        shape = this.shapes.length;
        this.shapes.push(fields);
        this.shapeNumbers.set(shapeKey, shape);
      }
      this.lastFields = fields;
      this.lastShape = shape;
    }
    this.varint(shape);
    for (const key of fields) this.value(doc[key]);
    this.count++;
  }

  /** The batch as a record (with `extra` fields such as Cosmos stamps), and the writer emptied. */
  take(extra?: Document): Document {
    const record: Document = { flat: new Binary(this.bytes.slice(0, this.at)), k: this.shapes, ...extra };
    this.at = 0;
    this.count = 0;
    this.shapes = [];
    this.shapeNumbers = new Map();
    // Shape numbers are per batch; the field list may be reused.
    this.lastShape = -1;
    return record;
  }

  private value(v: unknown): void {
    if (typeof v === 'number') {
      this.room(9);
      this.bytes[this.at++] = TAG_DOUBLE;
      this.view.setFloat64(this.at, v, true);
      this.at += 8;
    } else if (typeof v === 'string') {
      this.string(v);
    } else if (typeof v === 'boolean') {
      this.room(1);
      this.bytes[this.at++] = v ? TAG_TRUE : TAG_FALSE;
    } else if (v === null) {
      this.room(1);
      this.bytes[this.at++] = TAG_NULL;
    } else if (v instanceof Date) {
      this.room(9);
      this.bytes[this.at++] = TAG_DATE;
      this.view.setFloat64(this.at, v.getTime(), true);
      this.at += 8;
    } else {
      this.room(13);
      this.bytes[this.at++] = TAG_OBJECT_ID;
      this.objectId(v as ObjectId);
    }
  }

  private objectId(id: ObjectId): void {
    const w = id as unknown as { i0?: number; i1: number; i2: number; i3: number };
    if (typeof w.i0 !== 'number') {
      this.bytes.set(id.id, this.at);
      this.at += 12;
      return;
    }
    this.word(w.i0);
    this.word(w.i1);
    this.word(w.i2);
    this.word(w.i3);
  }

  private word(w: number): void {
    this.bytes[this.at++] = w >>> 16;
    this.bytes[this.at++] = (w >>> 8) & 0xff;
    this.bytes[this.at++] = w & 0xff;
  }

  private string(s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; 5 for the length varint.
    this.room(1 + 5 + s.length * 3);
    this.bytes[this.at++] = TAG_STRING;
    const lengthAt = this.at;
    let ascii = s.length <= 32;
    for (let i = 0; ascii && i < s.length; i++) ascii = s.charCodeAt(i) < 0x80;
    if (ascii) {
      this.bytes[this.at++] = s.length;
      for (let i = 0; i < s.length; i++) this.bytes[this.at++] = s.charCodeAt(i);
      return;
    }
    // The length's varint size is not known before encoding: encode after a 5-byte gap, then close it.
    const { written } = this.encoder.encodeInto(s, this.bytes.subarray(lengthAt + 5));
    this.at = lengthAt;
    this.varint(written);
    this.bytes.copyWithin(this.at, lengthAt + 5, lengthAt + 5 + written);
    this.at += written;
  }

  private varint(n: number): void {
    this.room(5);
    while (n >= 0x80) {
      this.bytes[this.at++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    this.bytes[this.at++] = n;
  }

  private room(n: number): void {
    if (this.at + n <= this.bytes.length) return;
    const bigger = new Uint8Array(Math.max(this.bytes.length * 2, this.at + n));
    bigger.set(this.bytes.subarray(0, this.at));
    this.bytes = bigger;
    this.view = new DataView(bigger.buffer);
  }
}

/** Makes a document of one shape from its values, in the shape's field order. */
type Builder = (values: unknown[]) => Document;

/** Builders by shape key; bounded, since shapes are user data. */
const builders = new Map<string, Builder>();
const MAX_BUILDERS = 1000;

/**
 * A builder whose documents come from one object literal (fixed layout, properties inside the
 * object). The field names enter the code only as JSON string literals. Where code cannot be
 * made (a host that forbids it) or too many shapes were seen, properties are stored one by one.
 */
function builderFor(fields: string[]): Builder {
  const key = fields.join('\0');
  let build = builders.get(key);
  if (build) return build;
  try {
    if (builders.size >= MAX_BUILDERS) throw new Error('too many shapes');
    // A literal `"__proto__": v` sets the prototype (the writer never makes such a shape; a file may).
    if (fields.includes('__proto__')) throw new Error('not a literal key');
    const body = `return {${fields.map((f, i) => `${JSON.stringify(f)}: v[${i}]`).join(', ')}};`;
    // One generated object literal per shape (the fields' names are JSON-quoted): see the module comment.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    build = new Function('v', body) as Builder;
    builders.set(key, build);
  } catch {
    build = (values) => {
      const doc: Document = {};
      for (let i = 0; i < fields.length; i++) setField(doc, fields[i], values[i]);
      return doc;
    };
  }
  return build;
}

const decoder = new TextDecoder('utf-8');
/** Character-code arrays by length, reused for short ASCII strings (cheaper than a decoder call). */
const charCodes: number[][] = Array.from({ length: 33 }, (_, n) => new Array<number>(n).fill(0));

/** The documents of a `{flat, k}` record, in order. Throws on bytes that do not parse. */
export function decodeFlatBatch(record: Document): Document[] {
  const payload = record.flat as Binary | Uint8Array;
  const bytes = payload instanceof Uint8Array ? payload : payload.buffer.subarray(0, payload.position);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const shapes = (record.k as unknown[]).map((s) => (s as unknown[]).map(String));
  const makers = shapes.map(builderFor);
  const values: unknown[] = [];
  const docs: Document[] = [];
  let at = 0;
  const varint = (): number => {
    let n = 0;
    let shift = 0;
    for (;;) {
      if (at >= bytes.length) throw new Error('flat batch: truncated');
      const b = bytes[at++];
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return n;
      shift += 7;
    }
  };
  while (at < bytes.length) {
    const shape = varint();
    const fields = shapes[shape];
    if (fields === undefined) throw new Error(`flat batch: unknown shape ${shape} at byte ${at}`);
    for (let f = 0; f < fields.length; f++) {
      // 13 bytes cover any fixed-size value; a string checks its own length.
      if (at + 13 > bytes.length) checkRoom(bytes, at, bytes[at]);
      const tag = bytes[at++];
      switch (tag) {
        case TAG_DOUBLE:
          values[f] = view.getFloat64(at, true);
          at += 8;
          break;
        case TAG_STRING: {
          const n = varint();
          if (at + n > bytes.length) throw new Error('flat batch: truncated string');
          values[f] = n <= 32 ? shortString(bytes, at, n) : decoder.decode(bytes.subarray(at, at + n));
          at += n;
          break;
        }
        case TAG_OBJECT_ID:
          values[f] = objectIdAt(bytes, at);
          at += 12;
          break;
        case TAG_DATE:
          values[f] = new Date(view.getFloat64(at, true));
          at += 8;
          break;
        case TAG_NULL:
          values[f] = null;
          break;
        case TAG_TRUE:
          values[f] = true;
          break;
        case TAG_FALSE:
          values[f] = false;
          break;
        default:
          throw new Error(`flat batch: unknown value tag ${tag} at byte ${at - 1}`);
      }
    }
    values.length = fields.length;
    docs.push(makers[shape](values));
  }
  return docs;
}

/** Near the end of the bytes: throw unless the value tagged `tag` at `at` fits. */
function checkRoom(bytes: Uint8Array, at: number, tag: number): void {
  const size = tag === TAG_DOUBLE || tag === TAG_DATE ? 8 : tag === TAG_OBJECT_ID ? 12 : 0;
  if (at >= bytes.length || at + 1 + size > bytes.length) throw new Error(`flat batch: truncated at byte ${at}`);
}

/**
 * bson 7 builds an ObjectId from 12 bytes at an offset of a larger buffer (its own reader does so)
 * without a view per id; that form is not in its typings, so it is used only once checked to work.
 */
const ObjectIdAt = ObjectId as unknown as new (bytes: Uint8Array, offset: number) => ObjectId;
const offsetFormWorks = (() => {
  try {
    const probe = new Uint8Array(14);
    probe[2] = 0xab;
    probe[13] = 0xcd;
    return new ObjectIdAt(probe, 2).toHexString() === 'ab00000000000000000000cd';
  } catch {
    return false;
  }
})();

function objectIdAt(bytes: Uint8Array, at: number): ObjectId {
  return offsetFormWorks ? new ObjectIdAt(bytes, at) : new ObjectId(bytes.subarray(at, at + 12));
}

function shortString(bytes: Uint8Array, at: number, n: number): string {
  const codes = charCodes[n];
  for (let i = 0; i < n; i++) {
    const b = bytes[at + i];
    if (b >= 0x80) return decoder.decode(bytes.subarray(at, at + n));
    codes[i] = b;
  }
  return String.fromCharCode.apply(null, codes);
}
