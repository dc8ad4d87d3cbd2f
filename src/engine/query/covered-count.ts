/**
 * `count` from index entries alone (mongod's COUNT_SCAN): when the filter is one predicate on the
 * field of a single-field index, and the index bounds say exactly what the matcher would, the
 * number of entries in the ranges is the answer and no document is read.
 *
 * Exact means: a scalar equality, `$in` of scalars, or type-bracketed `$gt/$gte/$lt/$lte` on a
 * scalar, over an index that holds one entry per document (not multikey) for every document (not
 * sparse, not partial). Null, arrays, embedded documents, regexes and MinKey/MaxKey operands are
 * left to the ordinary path, whose matcher has extra rules for them.
 */
import type { Collection } from '../catalog/collection';
import { bsonClassOf, isPlainObject, type Document } from '../values/types';
import { recordIndexAccess } from '../indexes/usage';
import { planQuery } from './planner';

const EXACT_OPS = new Set(['$eq', '$gt', '$gte', '$lt', '$lte', '$in']);

/** NaN is left out: it sorts below every number in an index, but no range of the matcher holds it. */
function exactScalar(v: unknown): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return !Number.isNaN(v);
    case 'object':
      if (v instanceof Date) return true;
      switch (bsonClassOf(v)) {
        case 'ObjectId':
        case 'Int32':
        case 'Long':
        case 'Timestamp':
          return true;
        case 'Double':
          return !Number.isNaN((v as { value: number }).value);
        case 'Decimal128':
          return !String(v).includes('NaN');
      }
  }
  return false;
}

function isExtremeKey(v: unknown): boolean {
  const cls = bsonClassOf(v);
  return cls === 'MinKey' || cls === 'MaxKey';
}

function exactCondition(condition: unknown): boolean {
  if (!isPlainObject(condition)) return exactScalar(condition);
  const ops = Object.keys(condition);
  if (ops.length === 0) return false;
  for (const op of ops) {
    if (!EXACT_OPS.has(op)) return false;
    const arg = condition[op];
    // A range against MinKey or MaxKey counts the keys its bounds hold, as mongod's COUNT_SCAN.
    if (op !== '$in' && op !== '$eq' && isExtremeKey(arg)) continue;
    if (op === '$in' ? !(Array.isArray(arg) && arg.length > 0 && arg.every(exactScalar)) : !exactScalar(arg))
      return false;
  }
  return true;
}

/** The count of documents matching `filter`, or undefined when the index cannot answer alone. */
export function coveredCount(coll: Collection, filter: Document, hint: unknown): number | undefined {
  // A $comment constrains nothing.
  const keys = Object.keys(filter).filter((k) => k !== '$comment');
  if (keys.length !== 1 || !exactCondition(filter[keys[0]])) return undefined;
  const plan = planQuery(coll, { filter, hint });
  if (plan.kind !== 'IXSCAN') return undefined;
  const index = plan.index;
  if (
    index.multikey ||
    index.sparse ||
    index.isPartial ||
    index.fieldCount !== 1 ||
    index.pattern.fields[0].path !== keys[0]
  )
    return undefined;
  // Unique point look-ups (the _id hash table) are already cheaper than walking a tree.
  if (plan.fieldIntervals.length !== 1 || plan.points) return undefined;
  let total = 0;
  let previousEnd: unknown[] | undefined;
  for (const [start, end] of plan.ranges) {
    // Overlapping ranges ($in: [1, 1.0]) would count a document twice: leave them to the scan.
    if (previousEnd && index.compare(start, previousEnd) <= 0) return undefined;
    total += index.countRange(start, end);
    previousEnd = end;
  }
  recordIndexAccess(index);
  return total;
}
