/**
 * The keys a document holds in a collection's unique secondary indexes, as strings under which
 * equal BSON values meet. Two transactions that write the same unique key conflict as two that
 * write the same document do: mongod's storage engine sees both as writes to one index entry.
 */
import type { Collection } from '../catalog/collection';
import type { Document } from '../values/types';
import { documentKey } from './document-key';

export function uniqueKeysOf(coll: Collection, doc: Document): string[] {
  const out: string[] = [];
  for (const index of coll.indexes.values()) {
    // The _id index is the document itself: the write set already covers it.
    if (!index.unique || index.name === '_id_') continue;
    const keys = index.keysOf(doc);
    if (!keys) continue;
    for (const key of keys) out.push(`${coll.ns}\u0000${index.name}\u0000${key.map(documentKey).join('\u0001')}`);
  }
  return out;
}
