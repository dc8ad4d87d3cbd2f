/**
 * Index filters (planCacheSetFilter): per collection, a query shape mapped to the indexes the
 * planner may consider for it. As on mongod they live in memory only, belong to the collection
 * object (dropping the collection drops them; dropping or creating an index does not), and name
 * indexes by key pattern or name, so a filter naming a dropped index leaves only a collection scan
 * until an index of that key pattern exists again.
 */
import type { Collection } from '../catalog/collection';
import type { BTreeIndex } from '../indexes/btree-index';
import { valuesEqual } from '../values/compare';
import { isPlainObject, type Document } from '../values/types';
import { queryShapeKey, type ShapeInput } from './query-shape';

export interface IndexFilterEntry {
  query: Document;
  sort: Document;
  projection: Document;
  collation?: Document;
  /** Key patterns (documents) or index names (strings). */
  indexes: Array<Document | string>;
}

const filtersByCollection = new WeakMap<Collection, Map<string, IndexFilterEntry>>();

function shapeOf(entry: ShapeInput): string {
  return queryShapeKey(entry);
}

/** Sets (or replaces) the filter of the entry's shape. */
export function setIndexFilter(coll: Collection, entry: IndexFilterEntry): void {
  let filters = filtersByCollection.get(coll);
  if (!filters) filtersByCollection.set(coll, (filters = new Map()));
  filters.set(
    shapeOf({ filter: entry.query, sort: entry.sort, projection: entry.projection, collation: entry.collation }),
    entry,
  );
}

/** Removes the filter of one shape, or every filter of the collection when no shape is given. */
export function clearIndexFilters(coll: Collection, shape?: ShapeInput): void {
  const filters = filtersByCollection.get(coll);
  if (!filters) return;
  if (shape === undefined) filters.clear();
  else filters.delete(shapeOf(shape));
}

export function listIndexFilters(coll: Collection): IndexFilterEntry[] {
  return [...(filtersByCollection.get(coll)?.values() ?? [])];
}

/** The filter that applies to a query of this shape, if any. */
export function indexFilterFor(coll: Collection, shape: ShapeInput): IndexFilterEntry | undefined {
  const filters = filtersByCollection.get(coll);
  if (!filters || filters.size === 0) return undefined;
  return filters.get(shapeOf(shape));
}

/** Whether the filter lets the planner consider `index`. */
export function filterAllows(entry: IndexFilterEntry, index: BTreeIndex): boolean {
  return entry.indexes.some((allowed) =>
    typeof allowed === 'string'
      ? allowed === index.name
      : isPlainObject(allowed) && valuesEqual(allowed, index.spec.key),
  );
}
