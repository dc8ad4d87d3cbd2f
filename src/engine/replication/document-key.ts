/**
 * A string for an `_id` under which equal BSON values meet (1, NumberInt(1), NumberLong(1) and
 * 1.0 are one document), for the maps of a transaction's write set and its snapshot.
 */
import { EJSON } from 'bson';
import { exactDouble, numericKind } from '../values/numbers';

export function documentKey(id: unknown): string {
  if (typeof id === 'string') return `s:${id}`;
  if (numericKind(id) !== undefined) {
    const n = exactDouble(id);
    if (n !== undefined) return `n:${Object.is(n, -0) ? 0 : n}`;
  }
  const t = (id as { _bsontype?: string } | null)?._bsontype;
  if (t === 'ObjectId') return `o:${(id as { toHexString(): string }).toHexString()}`;
  return `j:${EJSON.stringify(id as Parameters<typeof EJSON.stringify>[0], { relaxed: false })}`;
}

/** The namespace and `_id` of one document, as one key. */
export function namespacedKey(ns: string, id: unknown): string {
  return `${ns}\u0000${documentKey(id)}`;
}
