/**
 * How mongod's distinct reads an index: DISTINCT_SCAN, one seek per distinct value, under a
 * PROJECTION_COVERED that keeps only the key. It applies when an index holds the distinct field
 * after fields the query pins to one value, and the index bounds alone decide the query (on a
 * multikey index: only with no query at all). Otherwise distinct runs as a find; its projection of
 * the one field makes an index that answers the filter cover it.
 */
import type { Collection } from '../catalog/collection';
import type { BTreeIndex } from '../indexes/btree-index';
import { compareKeyPart } from '../indexes/key-order';
import { multiKeyPathsDocument, pathIsScalar } from '../indexes/multikey-paths';
import type { QueryRequest } from '../query/executor';
import { indexBounds, planQuery, type IndexPlan } from '../query/planner';
import { compareUnder } from '../values/compare';
import { setField } from '../values/fields';
import { bsonClassOf, isPlainObject, type Document } from '../values/types';
import { filterIsCoveredBy } from './explain-plan';

export interface DistinctScan {
  winningPlan: Document;
  executionStages: Document;
  /** Distinct values found: explain's nReturned and keysExamined (one seek each). */
  values: number;
}

function isPointList(ivs: IndexPlan['fieldIntervals'][number] | undefined): boolean {
  return (
    ivs !== undefined &&
    ivs.length === 1 &&
    ivs[0].lowInclusive &&
    ivs[0].highInclusive &&
    compareKeyPart(ivs[0].low, ivs[0].high) === 0
  );
}

function exactPoint(v: unknown): boolean {
  if (v === null || v === undefined || Array.isArray(v) || v instanceof RegExp) return false;
  if (isPlainObject(v)) return !Object.keys(v).some((k) => k.startsWith('$'));
  const cls = bsonClassOf(v);
  return cls !== 'BSONRegExp' && cls !== 'MinKey' && cls !== 'MaxKey';
}

function isPointPredicate(v: unknown): boolean {
  if (!isPlainObject(v) || !Object.keys(v).some((k) => k.startsWith('$'))) return exactPoint(v);
  const ops = Object.keys(v);
  if (ops.length !== 1) return false;
  if (ops[0] === '$eq') return exactPoint(v.$eq);
  return ops[0] === '$in' && Array.isArray(v.$in) && v.$in.every(exactPoint);
}

/**
 * The filter without its point predicates on multikey key fields: a point's bounds are exact even
 * on a field that held arrays (some element equals it exactly when a key does), so they need no
 * document; what is left must be decided by the bounds of fields that never held one.
 */
function withoutMultikeyPoints(filter: Document, index: BTreeIndex): Document {
  if (!index.multikey) return filter;
  const keyFields = new Set(index.pattern.fields.map((f) => f.path));
  const out: Document = {};
  for (const [path, value] of Object.entries(filter)) {
    const multikeyField = keyFields.has(path) && !pathIsScalar(path, index.multikeyPaths);
    if (!(multikeyField && isPointPredicate(value))) out[path] = value;
  }
  return out;
}

function distinctPlan(coll: Collection, index: BTreeIndex, field: string, request: QueryRequest) {
  if (!index.queryable || index.wildcard || index.sparse || index.isPartial) return undefined;
  const at = index.pattern.fields.findIndex((f) => f.path === field);
  if (at < 0 || !Object.values(index.spec.key as Document).every((d) => d === 1 || d === -1)) return undefined;
  const filter = request.filter ?? {};
  const filtered = Object.keys(filter).length > 0;
  // A key of a field that held an array is one element: with a filter, the documents decide.
  if (filtered && index.multikey && !pathIsScalar(field, index.multikeyPaths)) return undefined;
  const plan = planQuery(coll, { filter, hint: index.spec.key });
  if (plan.kind !== 'IXSCAN') return undefined;
  for (let i = 0; i < at; i++) if (!isPointList(plan.fieldIntervals[i])) return undefined;
  if (filtered && !filterIsCoveredBy(plan, { filter: withoutMultikeyPoints(filter, index) })) return undefined;
  return { plan, at };
}

/** The DISTINCT_SCAN plan of `distinct(field, filter)`, or undefined when distinct reads otherwise. */
export function explainDistinctScan(coll: Collection, field: string, request: QueryRequest): DistinctScan | undefined {
  for (const index of coll.indexes.values()) {
    const found = distinctPlan(coll, index, field, request);
    if (!found) continue;
    const { plan, at } = found;
    const seen: unknown[] = [];
    for (const [start, end] of plan.ranges)
      for (const [entry] of index.scan(start, end, true)) seen.push(index.valuesOf(entry)[at]);
    seen.sort((a, b) => compareUnder(null, a, b));
    const values = seen.filter((v, i) => i === 0 || compareUnder(null, v, seen[i - 1]) !== 0).length;
    const scan: Document = {
      stage: 'DISTINCT_SCAN',
      keyPattern: index.spec.key,
      indexName: index.name,
      isMultiKey: index.multikey,
      multiKeyPaths: multiKeyPathsDocument(index.pattern.fields, index.multikeyPaths),
      isUnique: index.unique,
      isSparse: index.sparse,
      isPartial: index.isPartial,
      indexVersion: 2,
      direction: 'forward',
      indexBounds: indexBounds(plan),
    };
    const transformBy: Document = { _id: 0 };
    setField(transformBy, field, 1);
    // A dotted field read from a multikey index is rebuilt by the general projection.
    const covered = !(field.includes('.') && index.multikey);
    const projection = { stage: covered ? 'PROJECTION_COVERED' : 'PROJECTION_DEFAULT', transformBy };
    return {
      winningPlan: { ...projection, inputStage: scan },
      executionStages: {
        ...projection,
        nReturned: values,
        inputStage: { ...scan, nReturned: values, keysExamined: values },
      },
      values,
    };
  }
  return undefined;
}
