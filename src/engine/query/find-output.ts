/**
 * The find command's `returnKey` and `showRecordId` options: what a result looks like when the
 * caller asks for the index key that found a document, or for its record id, instead of (or next
 * to) the document itself.
 */
import { Long } from 'bson';
import type { StoredRecord } from '../catalog/record';
import { entryOf } from '../indexes/key-order';
import { wildcardKeyDocument } from '../indexes/wildcard-keys';
import { cloneValue } from '../values/clone';
import { setField } from '../values/fields';
import type { Document } from '../values/types';
import type { QueryPlan } from './planner';

/**
 * The index key a record was found by, as `{field: value, …}` in key-pattern order; `{}` when no
 * index was scanned (a collection scan has no key), as mongod answers.
 */
export function returnedKey(plan: QueryPlan, record: StoredRecord): Document {
  const out: Document = {};
  if (plan.kind !== 'IXSCAN') return out;
  const index = plan.index;
  // A multikey document has several keys: the one reported is the first, in scan order, that lies
  // in the plan's ranges (the entry the scan met first); the engine does not keep which it met.
  const keys = index.keysOf(record.doc) ?? [];
  const entries = keys.map((key) => ({ key, entry: entryOf(key, record.rid) }));
  entries.sort((a, b) => index.compare(a.entry, b.entry));
  if (!plan.forward) entries.reverse();
  const inRange = entries.find(({ entry }) =>
    plan.ranges.some(([lo, hi]) => index.compare(lo, entry) <= 0 && index.compare(entry, hi) <= 0),
  );
  const found = (inRange ?? entries[0])?.key;
  if (index.wildcard) return found ? wildcardKeyDocument(found) : out;
  const values = found ?? index.pattern.fields.map(() => null);
  index.pattern.fields.forEach((f, i) => setField(out, f.path, cloneValue(values[i])));
  return out;
}

/** `doc` with the record id appended as `$recordId` (a NumberLong), as showRecordId asks. */
export function withRecordId(doc: Document, record: StoredRecord): Document {
  setField(doc, '$recordId', Long.fromNumber(record.rid));
  return doc;
}
