/**
 * A BSON document from the wire as the engine holds values: a double is a JS number, Int32 and
 * Long stay themselves, BSON undefined is null, a Binary owns its bytes, a regex keeps its PCRE
 * pattern and options. These are the values `cloneValue(BSON.deserialize(bytes))` gives, made
 * in place: what bson just built belongs to nobody else, so only the Double wrappers, the
 * undefineds and the Binaries (whose bytes are a view into the frame) are replaced, instead of
 * copying every document a second time.
 */
import { Binary, BSON, type Double } from 'bson';
import { setField } from '../engine/values/fields';
import { bsonClassOf, type Document } from '../engine/values/types';

/**
 * promoteValues: false keeps Int32 and Long as themselves; bsonRegExp: true keeps a BSON regex's
 * PCRE pattern and options (x, and patterns a JS RegExp cannot compile) for the engine's regex
 * compiler, rather than failing the whole frame or dropping an option.
 */
const DECODE = { promoteValues: false, bsonRegExp: true } as const;

const hasOwn = Object.prototype.hasOwnProperty;

/** Throws bson's error for bytes that are not a BSON document. */
export function decodeDocument(bytes: Buffer): Document {
  const doc = BSON.deserialize(bytes, DECODE);
  ownDocument(doc);
  return doc;
}

function ownDocument(doc: Document): void {
  for (const key in doc) {
    if (!hasOwn.call(doc, key)) continue;
    const v = doc[key];
    const owned = own(v);
    if (owned !== v) setField(doc, key, owned);
  }
}

function own(v: unknown): unknown {
  if (v === undefined) return null;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const owned = own(v[i]);
      if (owned !== v[i]) v[i] = owned;
    }
    return v;
  }
  if (v instanceof Date) return v;
  switch (bsonClassOf(v)) {
    case undefined:
      ownDocument(v as Document);
      return v;
    case 'Double':
      return (v as Double).value;
    case 'Binary': {
      const b = v as Binary;
      return new Binary(Uint8Array.prototype.slice.call(b.buffer, 0, b.position), b.sub_type);
    }
    default:
      return v;
  }
}
