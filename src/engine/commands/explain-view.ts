/**
 * explain of a read on a view: mongod resolves the view and explains the aggregate it runs on the
 * collection underneath (the view's pipelines, then the read turned into stages), so the plan names
 * that collection and shows the stages the query layer could not absorb.
 */
import type { EngineContext } from '../engine-context';
import { isPlainObject, type Document } from '../values/types';
import { resolveView } from './views';

/** The aggregate a find, count, distinct or aggregate on a view runs; undefined when `name` is no view. */
export function viewAsAggregate(engine: EngineContext, dbName: string, inner: Document): Document | undefined {
  const op = Object.keys(inner)[0];
  const name = inner[op];
  if (typeof name !== 'string') return undefined;
  const view = engine.getCollection(dbName, name);
  if (!view?.isView) return undefined;
  const stages = readAsStages(op, inner);
  if (stages === undefined) return undefined;
  const resolved = resolveView(engine, dbName, view);
  return { aggregate: resolved.sourceName, pipeline: [...resolved.pipeline, ...stages], cursor: {} };
}

/** The read as pipeline stages, in the order mongod converts it; undefined for another command. */
function readAsStages(op: string, inner: Document): Document[] | undefined {
  const stages: Document[] = [];
  const filter = op === 'find' ? inner.filter : inner.query;
  if (isPlainObject(filter) && Object.keys(filter).length > 0) stages.push({ $match: filter });
  switch (op) {
    case 'aggregate':
      return Array.isArray(inner.pipeline) ? (inner.pipeline as Document[]) : [];
    case 'find':
      if (isPlainObject(inner.sort) && Object.keys(inner.sort).length > 0) stages.push({ $sort: inner.sort });
      if (typeof inner.skip === 'number' && inner.skip > 0) stages.push({ $skip: inner.skip });
      if (typeof inner.limit === 'number' && inner.limit > 0) stages.push({ $limit: inner.limit });
      if (isPlainObject(inner.projection) && Object.keys(inner.projection).length > 0)
        stages.push({ $project: inner.projection });
      return stages;
    case 'count':
      if (typeof inner.skip === 'number' && inner.skip > 0) stages.push({ $skip: inner.skip });
      if (typeof inner.limit === 'number' && inner.limit !== 0) stages.push({ $limit: Math.abs(inner.limit) });
      stages.push({ $count: 'count' });
      return stages;
    case 'distinct': {
      if (typeof inner.key !== 'string') return undefined;
      const path = `$${inner.key}`;
      stages.push(
        { $unwind: { path, preserveNullAndEmptyArrays: true } },
        { $group: { _id: null, distinct: { $addToSet: path } } },
      );
      return stages;
    }
  }
  return undefined;
}
