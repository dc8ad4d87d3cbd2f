/**
 * How often each index served a query, and each collection was scanned whole, since the index was
 * built or the engine opened ($indexStats' `accesses`, $collStats' `queryExecStats`). Like mongod,
 * the counts live in memory only: a reopened engine starts from zero, `since` its opening.
 */
import type { Collection } from '../catalog/collection';
import type { BTreeIndex } from './btree-index';

interface IndexAccesses {
  ops: number;
  since?: Date;
}

const indexAccesses = new WeakMap<BTreeIndex, IndexAccesses>();
const collectionScans = new WeakMap<Collection, number>();

/** A query (find, update, delete, count, an aggregation's $match) read through `index`. */
export function recordIndexAccess(index: BTreeIndex): void {
  const entry = indexAccesses.get(index);
  if (entry) entry.ops++;
  else indexAccesses.set(index, { ops: 1 });
}

/** `index` was built at `at` (createIndexes): its accesses count from then. */
export function recordIndexBuilt(index: BTreeIndex, at: Date): void {
  indexAccesses.set(index, { ops: 0, since: at });
}

/** The accesses of `index`; `opened` is when the engine opened (for indexes it did not build). */
export function accessesOf(index: BTreeIndex, opened: Date): { ops: number; since: Date } {
  const entry = indexAccesses.get(index);
  return { ops: entry?.ops ?? 0, since: entry?.since ?? opened };
}

/** A query read the whole collection (no index fitted). */
export function recordCollectionScan(coll: Collection): void {
  collectionScans.set(coll, (collectionScans.get(coll) ?? 0) + 1);
}

export function collectionScansOf(coll: Collection): number {
  return collectionScans.get(coll) ?? 0;
}
