/**
 * Copies of documents handed across the engine boundary, so a caller mutating its object (or a
 * result) never changes stored data. BSON value classes that are immutable in practice (ObjectId,
 * Int32, Long, Decimal128, Timestamp, MinKey/MaxKey) are shared; Dates, RegExps, Binary, arrays and
 * objects are copied. `Double` wrappers become plain numbers (a JS number is a BSON double), and
 * `undefined` becomes null, as the Node driver serializes it.
 */
import { Binary, type Double } from 'bson';
import { bsonClassOf, type Document } from './types';

export function cloneValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    return value === undefined ? null : value;
  }
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneValue(value[i]);
    return out;
  }
  if (value instanceof Date) return new Date(value.getTime());
  if (value instanceof RegExp) return new RegExp(value.source, value.flags);
  switch (bsonClassOf(value)) {
    case undefined: return cloneDocument(value as Document);
    case 'Double': return (value as Double).value;
    case 'Binary': {
      const b = value as Binary;
      return new Binary(b.buffer.slice(0, b.position), b.sub_type);
    }
    default: return value;
  }
}

export function cloneDocument(doc: Document): Document {
  const out: Document = {};
  for (const key in doc) {
    if (Object.prototype.hasOwnProperty.call(doc, key)) out[key] = cloneValue(doc[key]);
  }
  return out;
}
