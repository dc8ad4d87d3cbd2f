/**
 * The checks a find cursor's plan makes between batches. The engine hands out results it read when
 * the cursor opened, but mongod's plan reads as it goes and is killed when what it stands on goes
 * away; a getMore answers that error, so a client sees the same failure here.
 */
import type { Collection } from '../catalog/collection';
import type { CursorGuard } from '../catalog/cursors';
import type { StoredRecord } from '../catalog/record';
import type { BTreeIndex } from '../indexes/btree-index';
import { fail } from '../errors';
import { orBranchIndexes, type QueryPlan } from '../query/planner';
import type { Document } from '../values/types';

/**
 * The guard of a find's plan: an index scan dies with its index (QueryPlanKilled), a forward or
 * backward scan of a capped collection dies when the record it stopped on was deleted
 * (CappedPositionLost). `records` are the results in the order they are handed out; `sorted` says a
 * blocking sort read them all first, so no scan position is left to lose.
 */
export function planGuard(
  coll: Collection,
  plan: QueryPlan | undefined,
  records: readonly StoredRecord[],
  sorted: boolean,
  filter?: Document,
): CursorGuard | undefined {
  if (plan === undefined) return undefined;
  if (plan.kind === 'IXSCAN') return indexesGuard(coll, [plan.index]);
  // A $or whose every branch has an index is mongod's OR of index scans: any of them can die.
  const branches = sorted ? undefined : orBranchIndexes(coll, filter);
  if (branches !== undefined) return indexesGuard(coll, branches);
  if (!coll.isCapped || sorted) return undefined;
  return (handedOut) => {
    const last = records[handedOut - 1];
    if (last !== undefined && !coll.records.has(last.rid))
      fail(
        'CappedPositionLost',
        `CollectionScan died due to position in capped collection ${coll.ns} being deleted. Run the query again; a larger capped size keeps documents longer.`,
      );
  };
}

function indexesGuard(coll: Collection, indexes: readonly BTreeIndex[]): CursorGuard {
  return () => {
    for (const index of indexes) {
      // A dropped index, or another built under its name since, is not the one the plan read.
      if (coll.indexes.get(index.name) !== index)
        fail(
          'QueryPlanKilled',
          `Executor error during getMore :: caused by :: index '${index.name}' dropped. Run the query again.`,
        );
    }
  };
}
