/**
 * A find by `_id` alone skips the query planner on mongod. 8.0 has two such paths: the express
 * path (EXPRESS_IXSCAN, new in 8.0) for a plain lookup, and the older IDHACK stage for a lookup
 * that also needs a projection the express path does not apply, a batch size, or returnKey.
 * Neither takes a hint, skip, min or max, or a filter that is more than one exact `_id` equality
 * (a regex, a range, an array, null); those go through the planner as any other query.
 */
import { bsonClassOf, isPlainObject, type Document } from '../values/types';

export type IdLookupStage = 'EXPRESS_IXSCAN' | 'IDHACK';

/**
 * A value whose _id index bounds are one exact point: not an array (it matches by its elements),
 * not null or undefined (missing shares their key), not a regex, MinKey or MaxKey.
 */
function exactPoint(v: unknown): boolean {
  if (v === null || v === undefined || Array.isArray(v) || v instanceof RegExp) return false;
  const cls = bsonClassOf(v);
  return cls !== 'BSONRegExp' && cls !== 'MinKey' && cls !== 'MaxKey' && cls !== 'Undefined';
}

/**
 * `{_id: v}` or `{_id: {$eq: v}}` with an exact v: an embedded document counts as a literal value
 * unless its first field is an operator.
 */
export function isSimpleIdFilter(filter: unknown): boolean {
  if (!isPlainObject(filter)) return false;
  const keys = Object.keys(filter);
  if (keys.length !== 1 || keys[0] !== '_id') return false;
  const value = filter._id;
  if (isPlainObject(value)) {
    const fields = Object.keys(value);
    if (fields.length === 0 || !fields[0].startsWith('$')) return true;
    return fields.length === 1 && fields[0] === '$eq' && exactPoint(value.$eq);
  }
  return exactPoint(value);
}

function isEmpty(v: unknown): boolean {
  return v === undefined || (isPlainObject(v) && Object.keys(v).length === 0);
}

/** Top-level fields only, each included or excluded with a plain number or boolean. */
function isSimpleProjection(projection: unknown): boolean {
  if (isEmpty(projection)) return true;
  if (!isPlainObject(projection)) return false;
  return Object.entries(projection).every(
    ([path, v]) => !path.includes('.') && !path.startsWith('$') && (typeof v === 'number' || typeof v === 'boolean'),
  );
}

/**
 * The stage a find command's explain shows for its `_id` lookup, or undefined when the planner
 * plans it. `sameCollation`: the query compares strings as the collection's default collation does
 * (the _id index is built under that one).
 */
export function idLookupStage(find: Document, sameCollation: boolean): IdLookupStage | undefined {
  if (!sameCollation || !isSimpleIdFilter(find.filter)) return undefined;
  if (!isEmpty(find.hint) || !isEmpty(find.min) || !isEmpty(find.max)) return undefined;
  if (typeof find.skip === 'number' && find.skip > 0) return undefined;
  if (find.showRecordId === true || find.tailable === true) return undefined;
  const express =
    find.returnKey !== true && find.batchSize === undefined && isSimpleProjection(find.projection ?? find.fields);
  return express ? 'EXPRESS_IXSCAN' : 'IDHACK';
}

export interface ExplainedIdLookup {
  winningPlan: Document;
  executionStages: Document;
  totalDocsExamined: number;
}

/**
 * The plan of an `_id` lookup that found `found` documents (0 or 1): EXPRESS_IXSCAN alone (it
 * applies its simple projection itself), or IDHACK under the projection stage or RETURN_KEY the
 * find needs. mongod 8.0's express stage names its index's key pattern as a string.
 */
export function explainIdLookup(stage: IdLookupStage, found: number, above: Document | undefined): ExplainedIdLookup {
  const counts = { keysExamined: found, docsExamined: found };
  if (stage === 'EXPRESS_IXSCAN') {
    const plan = { stage, keyPattern: '{ _id: 1 }', indexName: '_id_' };
    return {
      winningPlan: plan,
      executionStages: { ...plan, nReturned: found, ...counts },
      totalDocsExamined: found,
    };
  }
  const idhack = { stage };
  const idhackStats = { ...idhack, nReturned: found, ...counts };
  if (!above) return { winningPlan: idhack, executionStages: idhackStats, totalDocsExamined: found };
  return {
    winningPlan: { ...above, inputStage: idhack },
    executionStages: { ...above, nReturned: found, inputStage: idhackStats },
    totalDocsExamined: found,
  };
}
