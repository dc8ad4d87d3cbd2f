/**
 * Whether the stages an aggregate leaves after its query read no field of the documents it gets
 * (a $count, a $group by a constant with constant accumulators, a $project that drops _id and
 * keeps only constants): mongod then asks the query for no document at all, and an index whose
 * bounds decide the filter counts its keys (COUNT_SCAN) instead of fetching.
 */
import { isPlainObject, type Document } from '../values/types';

/** A value that names no field: a literal, or an expression of literals. */
function isConstant(v: unknown): boolean {
  if (typeof v === 'string') return !v.startsWith('$');
  if (Array.isArray(v)) return v.every(isConstant);
  if (!isPlainObject(v)) return true;
  if ('$literal' in v && Object.keys(v).length === 1) return true;
  return Object.values(v).every(isConstant);
}

function groupNeedsNoFields(spec: Document): boolean {
  for (const [field, value] of Object.entries(spec)) {
    if (field === '_id') {
      if (!isConstant(value)) return false;
    } else if (!isPlainObject(value) || !Object.values(value).every(isConstant)) return false;
  }
  return true;
}

function projectNeedsNoFields(spec: Document): boolean {
  if (spec._id !== 0 && spec._id !== false) return false;
  // A 1 or true keeps a field of the input: only computed constants qualify.
  return Object.entries(spec).every(([field, value]) => field === '_id' || (isPlainObject(value) && isConstant(value)));
}

export function needsNoFields(rest: readonly unknown[]): boolean {
  const first = rest[0];
  if (!isPlainObject(first) || Object.keys(first).length !== 1) return false;
  if (typeof first.$count === 'string') return true;
  if (isPlainObject(first.$group)) return groupNeedsNoFields(first.$group);
  if (isPlainObject(first.$project)) return projectNeedsNoFields(first.$project);
  return false;
}
