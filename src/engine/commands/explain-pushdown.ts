/**
 * The part of an aggregate the query layer runs, as mongod 8.0 splits a pipeline before explaining
 * it: the leading $match stages (one filter), a $sort right after them (an index may provide it),
 * a $limit after those, and then a $project that is a plain inclusion or exclusion, which becomes
 * the query's projection (so an index can cover it). What is left is the aggregation framework's;
 * when nothing is left the pipeline was optimized away and explain shows the query alone.
 */
import type { Collection } from '../catalog/collection';
import { planQuery, sortDirection } from '../query/planner';
import { isPlainObject, type Document } from '../values/types';

export interface PushedDown {
  filter: Document;
  sort?: Document;
  limit?: number;
  projection?: Document;
  /** The stages the query layer cannot run, in order. */
  rest: unknown[];
}

/** The one stage of `stage` when it is `{<name>: ...}` alone. */
function single(stage: unknown, name: string): unknown {
  return isPlainObject(stage) && Object.keys(stage).length === 1 && name in stage ? stage[name] : undefined;
}

/** Fields kept or dropped with 0, 1, true or false only, nested or dotted: no computed value. */
function isPlainProjection(spec: unknown): spec is Document {
  if (!isPlainObject(spec) || Object.keys(spec).length === 0) return false;
  const plain = (v: unknown): boolean =>
    typeof v === 'boolean' ||
    v === 0 ||
    v === 1 ||
    (isPlainObject(v) &&
      Object.keys(v).length > 0 &&
      Object.entries(v).every(([k, x]) => !k.startsWith('$') && plain(x)));
  return Object.entries(spec).every(([k, v]) => !k.startsWith('$') && plain(v));
}

export function pushedDown(pipeline: unknown): PushedDown {
  const stages: unknown[] = Array.isArray(pipeline) ? pipeline : [];
  const matches: Document[] = [];
  let i = 0;
  for (; i < stages.length; i++) {
    const match = single(stages[i], '$match');
    if (!isPlainObject(match)) break;
    matches.push(match);
  }
  const filter = matches.length === 0 ? {} : matches.length === 1 ? matches[0] : { $and: matches };
  const out: PushedDown = { filter, rest: [] };
  const sort = single(stages[i], '$sort');
  if (isPlainObject(sort) && Object.values(sort).every((d) => d === 1 || d === -1)) {
    out.sort = sort;
    i++;
  }
  const limit = single(stages[i], '$limit');
  if (typeof limit === 'number' && Number.isInteger(limit) && limit > 0) {
    out.limit = limit;
    i++;
  }
  const project = single(stages[i], '$project');
  if (isPlainProjection(project)) {
    out.projection = project;
    i++;
  }
  out.rest = stages.slice(i);
  return out;
}

/**
 * Without a hint, an aggregate's query prefers an index that returns documents in the $sort's
 * order over one that needs a blocking sort: the hint that makes the planner take it, or undefined
 * when the planner's own choice already provides the order (or no index can).
 */
export function sortProvidingHint(
  coll: Collection,
  filter: Document,
  sort: Document | undefined,
): Document | undefined {
  if (!sort || Object.keys(sort).length === 0) return undefined;
  if (planQuery(coll, { filter, sort }).providesSort) return undefined;
  for (const index of coll.indexes.values()) {
    if (!index.queryable || index.wildcard || index.isPartial || index.sparse) continue;
    if (sortDirection(index, sort, 0) === 0) continue;
    const plan = planQuery(coll, { filter, sort, hint: index.spec.key });
    if (plan.providesSort) return index.spec.key as Document;
  }
  return undefined;
}
