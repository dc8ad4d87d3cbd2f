/**
 * A find's plan in explain's shape, with the stages mongod's classic plans show: the scan
 * (COLLSCAN, or IXSCAN under FETCH), an in-memory SORT, the projection (PROJECTION_COVERED when
 * the index alone answers the query, PROJECTION_SIMPLE for plain top-level fields,
 * PROJECTION_DEFAULT otherwise), SKIP and LIMIT; and the same tree with each stage's counts for
 * executionStats.executionStages.
 *
 * Covered means what it means on mongod: the filter is answered exactly by the index bounds, the
 * projection asks only for indexed fields (and leaves `_id` out unless it is indexed), the index
 * is an ordinary ascending/descending one and is not multikey. Then no document is read.
 */
import type { QueryResult, QueryRequest } from '../query/executor';
import { indexBounds, type IndexPlan } from '../query/planner';
import { multiKeyPathsDocument, pathIsScalar } from '../indexes/multikey-paths';
import { multikeyPrefixes } from '../indexes/wildcard-keys';
import { setField } from '../values/fields';
import { bsonClassOf, isPlainObject, type Document } from '../values/types';

const RANGE_OPERATORS = new Set(['$eq', '$gt', '$gte', '$lt', '$lte', '$in']);

/**
 * A value whose index bounds are exact: not null (missing shares its key), an array (it matches
 * by its elements too) or a regex (a pattern). An embedded document is one key, compared whole.
 */
function exactScalar(v: unknown): boolean {
  if (v === null || v === undefined || Array.isArray(v)) return false;
  if (isPlainObject(v)) return Object.values(v).every((x) => x !== undefined);
  const cls = bsonClassOf(v);
  return cls !== 'BSONRegExp' && cls !== 'MinKey' && cls !== 'MaxKey' && !(v instanceof RegExp);
}

function isExtremeKey(v: unknown): boolean {
  const cls = bsonClassOf(v);
  return cls === 'MinKey' || cls === 'MaxKey';
}

/**
 * Predicates an index key answers as the document would, beside the bounds: $ne and $nin of values
 * whose key is theirs alone (mongod filters such keys in the IXSCAN, no FETCH), and $exists: true
 * on a sparse index, which holds exactly the documents that have the field.
 */
function keyPredicate(op: string, operand: unknown, sparse: boolean): boolean {
  if (op === '$ne') return exactScalar(operand);
  if (op === '$nin') return Array.isArray(operand) && operand.every(exactScalar);
  return op === '$exists' && sparse && (operand === true || operand === 1);
}

/** With `keyFilters` (a scan that reads keys, not one that counts them), keyPredicate's predicates pass too. */
function filterIsExact(
  filter: Document,
  keyFields: ReadonlySet<string>,
  keyFilters: false | { sparse: boolean },
): boolean {
  for (const [path, value] of Object.entries(filter)) {
    // A $comment constrains nothing.
    if (path === '$comment') continue;
    if (path === '$and') {
      if (!Array.isArray(value) || !value.every((c) => isPlainObject(c) && filterIsExact(c, keyFields, keyFilters)))
        return false;
      continue;
    }
    if (path.startsWith('$') || !keyFields.has(path)) return false;
    if (isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'))) {
      for (const [op, operand] of Object.entries(value)) {
        if (keyFilters && keyPredicate(op, operand, keyFilters.sparse)) continue;
        if (!RANGE_OPERATORS.has(op)) return false;
        // A range against MinKey or MaxKey is exact: its bounds span every type.
        if (op !== '$in' && op !== '$eq' && isExtremeKey(operand)) continue;
        if (op === '$in' ? !Array.isArray(operand) || !operand.every(exactScalar) : !exactScalar(operand)) return false;
      }
    } else if (!exactScalar(value)) {
      return false;
    }
  }
  return true;
}

/** An inclusion projection of indexed fields only, `_id` excluded unless indexed. */
function projectionIsCovered(projection: Document | undefined, keyFields: ReadonlySet<string>): boolean {
  if (!projection || Object.keys(projection).length === 0) return false;
  let includesSomething = false;
  for (const [path, value] of Object.entries(projection)) {
    const on = value === true || value === 1 || (typeof value === 'number' && value !== 0);
    const off = value === false || value === 0;
    if (path === '_id') {
      if (on && !keyFields.has('_id')) return false;
      if (!on && !off) return false;
      continue;
    }
    if (!on || path.includes('$') || !keyFields.has(path)) return false;
    includesSomething = true;
  }
  if (!Object.hasOwn(projection, '_id') && !keyFields.has('_id')) return false;
  return includesSomething || keyFields.has('_id');
}

/**
 * The index bounds alone decide the filter: no document needs reading to test it. With
 * `keyFilters`, the index keys decide it (bounds, then predicates tested on each key).
 */
export function filterIsCoveredBy(plan: IndexPlan, request: QueryRequest, keyFilters = false): boolean {
  const key = plan.index.spec.key as Document;
  if (!Object.values(key).every((d) => d === 1 || d === -1)) return false;
  // A sparse index holds every document an exact filter can match: such a filter never matches null.
  if (plan.index.isPartial) return false;
  if (plan.index.spec.collation !== undefined) return false;
  return filterIsExact(request.filter ?? {}, scalarKeyFields(plan), keyFilters && { sparse: plan.index.sparse });
}

/**
 * The key fields whose index keys are their whole values: on a multikey index, those none of whose
 * prefixes held an array (a key of an array field is one element, never the field).
 */
function scalarKeyFields(plan: IndexPlan): Set<string> {
  const fields = Object.keys(plan.index.spec.key as Document);
  if (!plan.index.multikey) return new Set(fields);
  return new Set(fields.filter((f) => pathIsScalar(f, plan.index.multikeyPaths)));
}

export function isCoveredPlan(plan: IndexPlan, request: QueryRequest, projection: Document | undefined): boolean {
  if (!filterIsCoveredBy(plan, request, true)) return false;
  const keyFields = scalarKeyFields(plan);
  if (request.sort && !Object.keys(request.sort).every((f) => keyFields.has(f))) return false;
  return projectionIsCovered(projection, keyFields);
}

function keyAnswers(plan: IndexPlan, request: QueryRequest): boolean {
  if (!filterIsCoveredBy(plan, request, true)) return false;
  const keyFields = scalarKeyFields(plan);
  return !request.sort || Object.keys(request.sort).every((f) => keyFields.has(f));
}

export function projectionStage(projection: Document | undefined, covered: boolean): string | undefined {
  if (!projection || Object.keys(projection).length === 0) return undefined;
  if (covered) return 'PROJECTION_COVERED';
  const simple = Object.entries(projection).every(
    ([path, v]) => !path.includes('.') && !path.includes('$') && (typeof v === 'boolean' || typeof v === 'number'),
  );
  return simple ? 'PROJECTION_SIMPLE' : 'PROJECTION_DEFAULT';
}

export interface ExplainedFind {
  winningPlan: Document;
  executionStages: Document;
  totalDocsExamined: number;
}

/** The plan and its per-stage counts for a find that ran as `result`. */
export function explainFind(
  result: QueryResult,
  request: QueryRequest,
  projection: Document | undefined,
  returnKey = false,
): ExplainedFind {
  const plan = result.plan;
  // returnKey replaces any projection with the index key: the index alone answers when it decides
  // the filter and the sort.
  const covered =
    plan.kind === 'IXSCAN' && (returnKey ? keyAnswers(plan, request) : isCoveredPlan(plan, request, projection));
  // When the index bounds alone decide the filter and give the order, mongod skips index keys
  // before fetching (FETCH over SKIP over IXSCAN): only the documents it returns are read.
  const skipBeforeFetch =
    !covered &&
    plan.kind === 'IXSCAN' &&
    (request.skip ?? 0) > 0 &&
    !result.sorted &&
    !returnKey &&
    filterIsCoveredBy(plan, request);
  const docsExamined = covered ? 0 : skipBeforeFetch ? result.records.length : result.docsExamined;
  const hasFilter = request.filter !== undefined && Object.keys(request.filter).length > 0;
  const returned = result.records.length;

  // Built bottom-up twice over: the plan, and the same stages with their counts.
  let planStage: Document;
  let statsStage: Document;
  if (plan.kind === 'COLLSCAN') {
    planStage = { stage: 'COLLSCAN', filter: request.filter ?? {}, direction: plan.backward ? 'backward' : 'forward' };
    statsStage = { ...planStage, docsExamined };
  } else {
    const wildcard = plan.wildcardPath !== undefined ? wildcardKeyShape(plan, plan.wildcardPath) : undefined;
    const ixscan: Document = {
      stage: 'IXSCAN',
      keyPattern: wildcard ? wildcard.keyPattern : plan.index.spec.key,
      indexName: plan.index.name,
      ...(wildcard
        ? { isMultiKey: wildcard.isMultiKey, multiKeyPaths: wildcard.multiKeyPaths }
        : {
            isMultiKey: plan.index.multikey,
            multiKeyPaths: multiKeyPathsDocument(plan.index.pattern.fields, plan.index.multikeyPaths),
          }),
      isUnique: plan.index.unique,
      isSparse: plan.index.sparse,
      isPartial: plan.index.isPartial,
      indexVersion: 2,
      direction: plan.forward ? 'forward' : 'backward',
      indexBounds: indexBounds(plan),
    };
    const ixStats = { ...ixscan, keysExamined: result.keysExamined };
    if (covered) {
      planStage = ixscan;
      statsStage = ixStats;
    } else {
      const fetch: Document = { stage: 'FETCH', ...(hasFilter ? { filter: request.filter } : {}) };
      const skip = { stage: 'SKIP', skipAmount: request.skip };
      planStage = { ...fetch, inputStage: skipBeforeFetch ? { ...skip, inputStage: ixscan } : ixscan };
      statsStage = {
        ...fetch,
        docsExamined,
        inputStage: skipBeforeFetch ? { ...skip, nReturned: docsExamined, inputStage: ixStats } : ixStats,
      };
    }
  }
  const wrap = (stage: Document) => {
    planStage = { ...stage, inputStage: planStage };
    statsStage = { ...stage, inputStage: statsStage };
  };
  if (result.sorted) wrap({ stage: 'SORT', sortPattern: request.sort, memLimit: 104857600, type: 'simple' });
  const projectionName = returnKey ? 'RETURN_KEY' : projectionStage(projection, covered);
  if (projectionName) wrap(returnKey ? { stage: projectionName } : { stage: projectionName, transformBy: projection });
  if (request.skip && !skipBeforeFetch) wrap({ stage: 'SKIP', skipAmount: request.skip });
  if (request.limit) wrap({ stage: 'LIMIT', limitAmount: request.limit });
  statsStage = { ...statsStage, nReturned: returned };
  return { winningPlan: planStage, executionStages: statsStage, totalDocsExamined: docsExamined };
}

/**
 * A wildcard scan reads one path: mongod shows its key pattern as `{$_path: 1, <path>: 1}`, and
 * whether that path (not the whole index) met an array.
 */
function wildcardKeyShape(plan: IndexPlan, path: string) {
  const keyPattern: Document = { $_path: 1 };
  setField(keyPattern, path, 1);
  const prefixes = multikeyPrefixes(path, plan.index.multikeyPaths);
  const multiKeyPaths: Document = { $_path: [] };
  setField(multiKeyPaths, path, prefixes);
  return { keyPattern, isMultiKey: prefixes.length > 0, multiKeyPaths };
}
