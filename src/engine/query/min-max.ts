/**
 * The find command's `min` / `max` options: a scan of one hinted index between two whole index keys,
 * `min` inclusive and `max` exclusive, in the index's own order (a descending field counts down).
 * The bounds are keys, not predicates: they are compared field by field in the index order, whatever
 * the types, so `{a: "x"}` lies above every number as it does in the index.
 */
import type { Collection } from '../catalog/collection';
import { EngineError } from '../errors';
import { encodeEntry, MAX_BOUND, MIN_BOUND, type EntryKey } from '../indexes/key-order';
import { isPlainObject, type Document } from '../values/types';
import { findHinted, sortDirection, type IndexPlan } from './planner';

export interface MinMaxRequest {
  min?: Document;
  max?: Document;
  sort?: Document;
  hint?: unknown;
}

/** Whether the request has a non-empty `min` or `max` (mongod treats `{}` as absent). */
export function hasMinMax(request: { min?: Document; max?: Document }): boolean {
  return nonEmpty(request.min) || nonEmpty(request.max);
}

function nonEmpty(bound: Document | undefined): bound is Document {
  return bound !== undefined && Object.keys(bound).length > 0;
}

/**
 * Checks the find command's own rule, before any plan: `min` and `max`, when both are given, name
 * the same fields in the same order (51176).
 */
export function checkMinMaxShape(min: Document | undefined, max: Document | undefined): void {
  if (!nonEmpty(min) || !nonEmpty(max)) return;
  const a = Object.keys(min);
  const b = Object.keys(max);
  if (a.length !== b.length || a.some((k, i) => b[i] !== k))
    throw new EngineError(
      51176,
      `min and max must have the same field names: min has {${a.join(', ')}}, max has {${b.join(', ')}}.`,
    );
}

/** The plan of a min/max query: the hinted index, scanned from `min` up to (not including) `max`. */
export function planMinMax(coll: Collection, request: MinMaxRequest): IndexPlan {
  checkMinMaxShape(request.min, request.max);
  const hint = request.hint;
  if (hint === undefined)
    throw new EngineError(
      51173,
      'When using min()/max() a hint of which index to use must be provided: add hint with the index whose key pattern the bounds follow.',
    );
  if (isPlainObject(hint) && hint.$natural !== undefined)
    throw new EngineError(
      'BadValue',
      'min()/max() bound an index scan and cannot be combined with a $natural hint: hint the index whose key pattern the bounds follow.',
    );
  const index = findHinted(coll, hint);
  if (index.pattern.plugin === 'wildcard')
    throw new EngineError(
      51174,
      `min()/max() cannot bound a wildcard index ('${index.name}'): its keys hold a path before each value. Hint an ordinary index on the fields of the bounds.`,
    );
  const paths = index.pattern.fields.map((f) => f.path);
  for (const bound of [request.min, request.max]) {
    if (!nonEmpty(bound)) continue;
    const names = Object.keys(bound);
    if (names.length !== paths.length || names.some((n, i) => paths[i] !== n))
      throw new EngineError(
        51174,
        `The index chosen is not compatible with min/max: the bounds name {${names.join(', ')}}, the hinted index ${index.name} has the key fields {${paths.join(', ')}}. Give every key field, in the index's order.`,
      );
  }
  // Entry keys end with a record id: `min` starts below every record at that key, `max` stops below
  // every record at its key, so the end is exclusive although ranges are walked inclusively.
  const start: EntryKey = nonEmpty(request.min)
    ? encodeEntry([...paths.map((p) => request.min![p]), MIN_BOUND])
    : edge(index.directions, 'start');
  const end: EntryKey = nonEmpty(request.max)
    ? encodeEntry([...paths.map((p) => request.max![p]), MIN_BOUND])
    : edge(index.directions, 'end');
  if (index.compare(start, end) >= 0)
    throw new EngineError(
      51175,
      'The value provided for min() does not come before the value provided for max() in the hinted index: min is inclusive and max exclusive, so min must sort below max in the index order.',
    );
  const dir = sortDirection(index, request.sort, 0);
  return {
    kind: 'IXSCAN',
    index,
    ranges: [[start, end]],
    forward: dir !== -1,
    // Bounds are whole keys, not per-field intervals: explain shows each field unconstrained.
    fieldIntervals: [],
    providesSort: dir !== 0,
    needsDedupe: index.multikey,
  };
}

/** The first or last possible entry of an index, in tree order (descending fields count down). */
function edge(directions: ReadonlyArray<1 | -1>, side: 'start' | 'end'): EntryKey {
  const low = side === 'start';
  return encodeEntry([
    ...directions.map((d) => ((d === 1) === low ? MIN_BOUND : MAX_BOUND)),
    low ? MIN_BOUND : MAX_BOUND,
  ]);
}
