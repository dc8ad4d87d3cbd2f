/**
 * Tailable cursors: a find on a capped collection that stays open past its last document and, on
 * each getMore, returns the matching documents written since, as mongod's tailable collection scan
 * does. awaitData changes nothing here: the engine never blocks, so a getMore with nothing new
 * answers an empty batch at once (what mongod answers when its wait runs out).
 */
import type { Collection } from '../catalog/collection';
import type { CursorTail } from '../catalog/cursors';
import { fail } from '../errors';
import { compileFilter } from '../query/matcher';
import { compareValues } from '../values/compare';
import type { Document } from '../values/types';

export interface TailableRequest {
  tailable: boolean;
  awaitData: boolean;
  singleBatch: boolean;
  sort: Document | undefined;
}

/** mongod's checks of a find's tailable options, made before the collection is looked at. */
export function checkTailableOptions(req: TailableRequest): void {
  if (req.awaitData && !req.tailable) fail('FailedToParse', "Cannot set 'awaitData' without also setting 'tailable'");
  if (!req.tailable) return;
  if (req.sort !== undefined && Object.keys(req.sort).length > 0 && compareValues(req.sort, { $natural: 1 }) !== 0)
    fail(
      'BadValue',
      'cannot use tailable option with a sort other than {$natural: 1}: a tailable cursor reads in insertion order.',
    );
  if (req.singleBatch)
    fail(
      'BadValue',
      "cannot use tailable option with the 'singleBatch' option (or a negative limit): a tailable cursor stays open.",
    );
}

/** A tailable find reads a capped collection only. */
export function checkTailableTarget(coll: Collection): void {
  if (!coll.isCapped)
    fail(
      'BadValue',
      `error processing query: ns=${coll.ns}: tailable cursor requested on non capped collection. Create the collection with {capped: true, size: <bytes>} to tail it.`,
    );
}

/**
 * The tail of a find that returned `returned` documents: it starts after the collection's newest
 * record at the time of the find (the scan's position, whatever the filter kept), and ends when the
 * limit is reached. Undefined when the collection is empty: mongod's scan has no position to keep,
 * so the cursor is dead from the start.
 */
export function tailOf(
  coll: Collection,
  filter: Document,
  limit: number,
  returned: number,
  awaitData = false,
): CursorTail | undefined {
  const newest = coll.records.valuesReversed().next();
  if (newest.done) return undefined;
  let lastRid = newest.value.rid;
  const matches = compileFilter(filter);
  let left = limit > 0 ? limit - returned : Infinity;
  return {
    awaitData,
    finished: () => left <= 0,
    more(): Document[] {
      if (left <= 0) return [];
      // The record the scan stands on was deleted (a capped collection's oldest go first): the
      // scan cannot know where to go on, as in mongod.
      if (!coll.records.has(lastRid))
        fail(
          'CappedPositionLost',
          `CollectionScan died due to position in capped collection ${coll.ns} being deleted. Run the query again; a larger capped size keeps documents longer.`,
        );
      const out: Document[] = [];
      for (const record of coll.scanRecords()) {
        if (record.rid <= lastRid) continue;
        lastRid = record.rid;
        if (!matches(record.doc)) continue;
        out.push(record.doc);
        if (--left <= 0) break;
      }
      return out;
    },
  };
}
