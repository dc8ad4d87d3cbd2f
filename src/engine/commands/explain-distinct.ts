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
import { multiKeyPathsDocument } from '../indexes/multikey-paths';
import type { QueryRequest } from '../query/executor';
import { indexBounds, planQuery, type IndexPlan } from '../query/planner';
import { compareUnder } from '../values/compare';
import { setField } from '../values/fields';
import type { Document } from '../values/types';
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

function distinctPlan(coll: Collection, index: BTreeIndex, field: string, request: QueryRequest) {
  if (!index.queryable || index.wildcard || index.sparse || index.isPartial) return undefined;
  const at = index.pattern.fields.findIndex((f) => f.path === field);
  if (at < 0 || !Object.values(index.spec.key as Document).every((d) => d === 1 || d === -1)) return undefined;
  const filter = request.filter ?? {};
  if (index.multikey && Object.keys(filter).length > 0) return undefined;
  const plan = planQuery(coll, { filter, hint: index.spec.key });
  if (plan.kind !== 'IXSCAN') return undefined;
  for (let i = 0; i < at; i++) if (!isPointList(plan.fieldIntervals[i])) return undefined;
  if (!index.multikey && !filterIsCoveredBy(plan, request)) return undefined;
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
    const projection = { stage: 'PROJECTION_COVERED', transformBy };
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
