/**
 * The document an upsert starts from, built from the equality conditions of the query.
 */
import { EngineError, ErrorCode } from '../../errors';
import { cloneValue } from '../../values/clone';
import { bsonTypeOf, isPlainObject, type Document } from '../../values/types';
import { comparePaths, setOwn } from './document-writer';

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * The document an upsert starts from: the equality conditions of the filter (`a: v`, `a: {$eq: v}`,
 * single-value `$in`, and those inside top-level `$and` or a one-clause `$or`), dotted paths
 * expanded into embedded documents, `_id` first. Two conditions on the same or overlapping paths
 * are refused with NotSingleValueField (54), as mongod does.
 */
export function upsertSeed(filter: Document, opts: { replacement?: boolean } = {}): Document {
  let equalities: { path: string; parts: string[]; value: unknown }[] = [];
  collectEqualities(filter, equalities);
  // A replacement supplies every other field itself: mongod takes only _id from the query, and
  // only as a whole value.
  if (opts.replacement) equalities = idEqualities(equalities);
  checkSeedPaths(equalities);
  // Created in path order, like fields an update creates.
  equalities.sort((a, b) => comparePaths(a.parts, b.parts));
  // _id goes first, as in every stored document: a placeholder the loop fills in place (with the
  // value, or the document `_id.x` builds).
  const seed: Document = equalities.some((e) => e.parts[0] === '_id') ? { _id: null } : {};
  for (const eq of equalities) {
    let cur = seed;
    for (let i = 0; i < eq.parts.length - 1; i++) {
      let next = hasOwn.call(cur, eq.parts[i]) ? cur[eq.parts[i]] : undefined;
      if (!isPlainObject(next)) {
        next = {};
        setOwn(cur, eq.parts[i], next);
      }
      cur = next as Document;
    }
    setOwn(cur, eq.parts[eq.parts.length - 1], cloneValue(eq.value));
  }
  return seed;
}

/** The equalities on _id, which must set it whole (NotExactValueField, 111, for any on `_id.x`). */
function idEqualities<T extends { path: string }>(equalities: T[]): T[] {
  const onId = equalities.filter((e) => e.path === '_id' || e.path.startsWith('_id.'));
  // mongod checks each equality on _id against the whole _id it must set: one on a sub-path is
  // refused even beside an equality on the whole _id (path_support.cpp, checkPathIsPrefixOf).
  const sub = onId.find((e) => e.path !== '_id');
  if (sub)
    throw new EngineError(
      ErrorCode.NotExactValueField,
      `field at '_id' must be exactly specified, field at sub-path '${sub.path}' found: query _id by its whole value for a replacement upsert.`,
    );
  return onId;
}

/** Two equalities on one path, or on a path and its prefix, leave the seed ambiguous (54). */
function checkSeedPaths(equalities: { path: string }[]): void {
  for (let i = 0; i < equalities.length; i++) {
    for (let j = i + 1; j < equalities.length; j++) {
      const a = equalities[i].path;
      const b = equalities[j].path;
      if (a === b) {
        throw new EngineError(
          ErrorCode.NotSingleValueField,
          `cannot infer query fields to set, path '${a}' is matched twice`,
        );
      }
      const [short, long] = a.length < b.length ? [a, b] : [b, a];
      if (long.startsWith(`${short}.`)) {
        throw new EngineError(
          ErrorCode.NotSingleValueField,
          `cannot infer query fields to set, both paths '${short}' and '${long}' are matched`,
        );
      }
    }
  }
}

function collectEqualities(filter: Document, out: { path: string; parts: string[]; value: unknown }[]): void {
  for (const key of Object.keys(filter)) {
    const cond = filter[key];
    if (key === '$and') {
      if (Array.isArray(cond)) for (const clause of cond) if (isPlainObject(clause)) collectEqualities(clause, out);
      continue;
    }
    if (key === '$or') {
      // mongod simplifies a one-clause $or to its clause before extracting equalities.
      if (Array.isArray(cond) && cond.length === 1 && isPlainObject(cond[0])) collectEqualities(cond[0], out);
      continue;
    }
    if (key.startsWith('$')) continue;
    for (const value of equalityValues(cond)) out.push({ path: key, parts: key.split('.'), value });
  }
}

/** The values a field's condition fixes it to: none, one, or (from `$all`) one per element. */
function equalityValues(cond: unknown): unknown[] {
  if (bsonTypeOf(cond) === 'regex') return [];
  if (!isPlainObject(cond)) return [cond];
  const keys = Object.keys(cond);
  // A DBRef ({$ref, $id}) is a value, not a list of operators (the matcher reads it the same way).
  if (keys.length === 0 || !keys[0].startsWith('$') || (hasOwn.call(cond, '$ref') && hasOwn.call(cond, '$id')))
    return [cond];
  const values: unknown[] = [];
  if (hasOwn.call(cond, '$eq')) values.push(cond.$eq);
  const list = cond.$in;
  if (Array.isArray(list) && list.length === 1 && bsonTypeOf(list[0]) !== 'regex') values.push(list[0]);
  // mongod parses {$all: [a, b]} as the equalities a and b (an $elemMatch or regex element is not one).
  const all = cond.$all;
  if (Array.isArray(all))
    for (const v of all)
      if (bsonTypeOf(v) !== 'regex' && !(isPlainObject(v) && hasOwn.call(v, '$elemMatch'))) values.push(v);
  return values;
}
