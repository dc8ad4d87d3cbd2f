/**
 * Values on their way to and from stored BSON, with their types intact. The bson package writes
 * a JS number that happens to be a whole number in int32 range as an Int32, but in the engine a
 * JS number is a double (`20` and `NumberInt(20)` are different types: `$type`, the shell's
 * rendering and exports tell them apart). So numbers are wrapped as `Double` on the way out, and
 * reading (with promoteValues: false, which keeps Int32 and Long as themselves) unwraps them.
 */
import { Double } from 'bson';
import { cloneDocument } from '../values/clone';
import { setField } from '../values/fields';
import { bsonClassOf, type Document } from '../values/types';

function storable(value: unknown): unknown {
  if (typeof value === 'number') return new Double(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = storable(value[i]);
    return out;
  }
  if (value instanceof Date || value instanceof RegExp || bsonClassOf(value) !== undefined) return value;
  return storableDocument(value as Document);
}

/** A copy of `doc` whose numbers serialize as BSON doubles. */
export function storableDocument(doc: Document): Document {
  const out: Document = {};
  for (const key in doc) if (Object.prototype.hasOwnProperty.call(doc, key)) setField(out, key, storable(doc[key]));
  return out;
}

/** A stored document (deserialized with promoteValues: false) as the engine holds documents. */
export function documentFromStorage(doc: Document): Document {
  return cloneDocument(doc);
}
