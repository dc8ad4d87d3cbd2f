/**
 * Runs a query against a collection: plan, scan (index ranges or natural order), filter, sort,
 * skip and limit. Returns the matching records themselves so writes (update, delete) and reads
 * (find, count) share one path; projection is the caller's business.
 */
import { activeCollation } from '../collation/active';
import type { Collection } from '../catalog/collection';
import type { StoredRecord } from '../catalog/record';
import { checkForInterrupt, interruptsInstalled } from '../interrupt';
import { bsonClassOf, type Document } from '../values/types';
import { compileFilter } from './matcher';
import { recordCollectionScan, recordIndexAccess } from '../indexes/usage';
import { planQuery, type QueryPlan } from './planner';
import { hasMinMax, planMinMax } from './min-max';
import { compileSort } from './sort';
import { resolveNaturalOrder } from './natural';
import { checkedScan } from './checked-scan';

export interface QueryRequest {
  filter?: Document;
  sort?: Document;
  skip?: number;
  /** 0 or absent: no limit. */
  limit?: number;
  hint?: unknown;
  /** find's `min` / `max`: whole index keys bounding a scan of the hinted index. */
  min?: Document;
  max?: Document;
  /** The find's projection and its own collation (shapeCollation's form): part of the query's shape. */
  projection?: Document;
  collation?: Document;
}

export interface QueryResult {
  records: StoredRecord[];
  plan: QueryPlan;
  keysExamined: number;
  docsExamined: number;
  /** An in-memory SORT stage ran. */
  sorted: boolean;
}

/**
 * The matching records, for reads and writes that need no plan description. A filter that is only
 * `{_id: <ObjectId | string | number | date>}` (mongod's IDHACK) goes straight to the `_id` index's
 * hash table: no filter compilation, no planning, no re-check (the table's key equality is the
 * matcher's equality for these types).
 */
export function queryRecords(
  coll: Collection,
  request: QueryRequest,
  onPlan?: (plan: QueryPlan) => void,
): StoredRecord[] {
  const id =
    request.sort === undefined && request.hint === undefined && request.filter && !hasMinMax(request)
      ? idPointOf(request.filter)
      : undefined;
  const index = coll.idIndex;
  if (id === undefined || !index) {
    const result = executeQuery(coll, request);
    onPlan?.(result.plan);
    // Counted here, not in executeQuery: explain plans without counting, as on mongod.
    if (result.plan.kind === 'COLLSCAN') recordCollectionScan(coll);
    else recordIndexAccess(result.plan.index);
    return result.records;
  }
  recordIndexAccess(index);
  const record = index.findEqual([id]);
  return record && !(request.skip && request.skip > 0) ? [record] : [];
}

function idPointOf(filter: Document): unknown {
  let id: unknown;
  for (const key in filter) {
    if (key !== '_id' || id !== undefined) return undefined;
    id = filter[key];
  }
  switch (typeof id) {
    case 'string':
      // Under a collation "a" may match "A": the hash table knows only binary equality.
      return activeCollation.scope === null ? id : undefined;
    case 'number':
      return id;
    case 'object':
      if (id instanceof Date || bsonClassOf(id) === 'ObjectId') return id;
  }
  return undefined;
}

export function executeQuery(coll: Collection, asked: QueryRequest): QueryResult {
  const request = resolveNaturalOrder(asked);
  const filter = request.filter ?? {};
  const matches = compileFilter(filter);
  const plan = hasMinMax(request)
    ? planMinMax(coll, request)
    : planQuery(coll, {
        filter,
        sort: request.sort,
        hint: request.hint,
        projection: request.projection,
        collation: request.collation,
      });
  const sortCmp = compileSort(request.sort);
  const needSort = sortCmp !== undefined && !plan.providesSort;
  const skip = request.skip ?? 0;
  const limit = request.limit && request.limit > 0 ? request.limit : Infinity;
  // Without a separate sort, the scan can stop as soon as skip + limit documents matched.
  const stopAfter = needSort ? Infinity : skip + limit;
  const out: StoredRecord[] = [];
  let keysExamined = 0;
  let docsExamined = 0;

  if (plan.kind === 'COLLSCAN') {
    for (const record of coll.scanRecords(plan.backward === true)) {
      checkForInterrupt();
      docsExamined++;
      if (matches(record.doc)) {
        out.push(record);
        if (out.length >= stopAfter) break;
      }
    }
  } else if (plan.points) {
    // Unique index, every field pinned: one lookup per point instead of a range scan.
    const seen = plan.needsDedupe ? new Set<number>() : undefined;
    const points = plan.forward ? plan.points : [...plan.points].reverse();
    for (const values of points) {
      checkForInterrupt();
      const record = plan.index.findEqual(values);
      if (!record) continue;
      keysExamined++;
      if (seen) {
        if (seen.has(record.rid)) continue;
        seen.add(record.rid);
      }
      docsExamined++;
      if (matches(record.doc)) {
        out.push(record);
        if (out.length >= stopAfter) break;
      }
    }
  } else {
    // One record an index scan reached: skipped when already seen (a multikey index), else fetched
    // and matched. True once enough have matched.
    const seen = plan.needsDedupe ? new Set<number>() : undefined;
    const take = (record: StoredRecord): boolean => {
      if (seen) {
        if (seen.has(record.rid)) return false;
        seen.add(record.rid);
      }
      docsExamined++;
      if (!matches(record.doc)) return false;
      out.push(record);
      return out.length >= stopAfter;
    };
    if (plan.checked) keysExamined = checkedScan(plan.index, plan.checked, plan.forward, take);
    else {
      const ordered = plan.forward ? plan.ranges : [...plan.ranges].reverse();
      const visit = (record: StoredRecord): boolean => {
        checkForInterrupt();
        keysExamined++;
        return take(record);
      };
      const cmp = plan.index.compare;
      for (let r = 0; r < ordered.length; r++) {
        const [start, end] = ordered[r];
        if (plan.index.visitRange(start, end, plan.forward, visit)) break;
        // One range is scanned up to its end key and stops there (mongod sets the cursor's end). With
        // several, mongod checks each key against the bounds, so it reads the first key past an
        // interval (counted as examined) unless that key opens the next interval, counted anyway.
        if (ordered.length === 1) continue;
        const beyond = plan.index.keyBeyond(start, end, plan.forward);
        const next = ordered[r + 1];
        if (beyond !== undefined && !(next && cmp(beyond, next[0]) >= 0 && cmp(beyond, next[1]) <= 0)) keysExamined++;
      }
    }
  }

  let result = out;
  if (needSort) {
    const cmp = sortCmp;
    // Under a time limit or an interrupt flag the sort is a safe point too (it sorts a copy of
    // nothing stored: `out` is this query's own array).
    result = interruptsInstalled()
      ? out.sort((a, b) => {
          checkForInterrupt();
          return cmp(a.doc, b.doc);
        })
      : out.sort((a, b) => cmp(a.doc, b.doc));
  }
  if (skip > 0 || limit !== Infinity) result = result.slice(skip, skip + limit);
  return { records: result, plan, keysExamined, docsExamined, sorted: needSort };
}
