/**
 * Index key generation: which keys a document contributes to an index. A field that is missing
 * indexes as null; an array contributes one key per element (multikey), an empty array the value
 * `undefined`; at most one field of a compound key may be an array (parallel arrays are refused, as
 * mongod does).
 */
import { fail } from '../errors';
import { compareUnder } from '../values/compare';
import { ownValue } from '../values/fields';
import { isPlainObject, type Document } from '../values/types';
import type { KeyField } from './key-pattern';

export interface FieldKeys {
  values: unknown[];
  /** True when an array was expanded on the way (the index becomes multikey). */
  multikey: boolean;
  /** True when the path was absent (no value at all), which sparse indexes skip. */
  missing: boolean;
}

const NULL_KEYS: unknown[] = [null];

function isArrayIndex(part: string): boolean {
  return part.length > 0 && part.length < 10 && /^[0-9]+$/.test(part);
}

/** Keys of one field path in a document. */
export function fieldKeys(doc: Document, path: string, parts = path.split('.')): FieldKeys {
  if (parts.length === 1) {
    // Fast path for a top-level scalar, the common case on the insert path.
    const v = ownValue(doc, path);
    if (v === undefined) return { values: NULL_KEYS, multikey: false, missing: true };
    if (!Array.isArray(v)) return { values: [v], multikey: false, missing: false };
  }
  const out: unknown[] = [];
  const state = { multikey: false, found: false };
  collect(doc, parts, 0, out, state);
  if (!state.found) return { values: NULL_KEYS, multikey: state.multikey, missing: true };
  return { values: out, multikey: state.multikey, missing: false };
}

function collect(
  value: unknown,
  parts: string[],
  i: number,
  out: unknown[],
  state: { multikey: boolean; found: boolean },
): void {
  if (i === parts.length) {
    state.found = true;
    if (Array.isArray(value)) {
      state.multikey = true;
      if (value.length === 0) out.push(undefined);
      else for (const element of value) out.push(element === undefined ? null : element);
    } else {
      out.push(value === undefined ? null : value);
    }
    return;
  }
  if (Array.isArray(value)) {
    const part = parts[i];
    if (isArrayIndex(part)) {
      // "a.0" on an array means the element at position 0.
      const n = Number(part);
      if (n < value.length) collect(value[n], parts, i + 1, out, state);
      return;
    }
    state.multikey = true;
    for (const element of value) {
      if (isPlainObject(element)) collect(element, parts, i, out, state);
    }
    return;
  }
  if (!isPlainObject(value)) return;
  const next = ownValue(value, parts[i]);
  if (next === undefined) return;
  collect(next, parts, i + 1, out, state);
}

export interface DocumentKeys {
  /** Each key is one value per index field. */
  keys: unknown[][];
  multikey: boolean;
  /** Every field of the key is missing (sparse indexes leave such documents out). */
  allMissing: boolean;
}

/** All index keys of a document for a (possibly compound) key pattern, deduplicated. */
export function documentKeys(doc: Document, fields: KeyField[], fieldParts: string[][]): DocumentKeys {
  if (fields.length === 1) {
    const k = fieldKeys(doc, fields[0].path, fieldParts[0]);
    if (k.values.length === 1) return { keys: [k.values], multikey: k.multikey, allMissing: k.missing };
    const values = dedupe(k.values);
    return { keys: values.map((v) => [v]), multikey: k.multikey, allMissing: k.missing };
  }
  let keys: unknown[][] = [[]];
  let arrayField: string | undefined;
  let multikey = false;
  let allMissing = true;
  for (let f = 0; f < fields.length; f++) {
    const k = fieldKeys(doc, fields[f].path, fieldParts[f]);
    if (!k.missing) allMissing = false;
    if (k.multikey) {
      if (arrayField !== undefined && k.values.length > 1) {
        fail(
          'CannotIndexParallelArrays',
          `cannot index parallel arrays [${fields[f].path}] [${arrayField}]: a compound index can have at most one array field per document.`,
        );
      }
      multikey = true;
      if (k.values.length > 1) arrayField = fields[f].path;
    }
    const values = k.values.length > 1 ? dedupe(k.values) : k.values;
    if (values.length === 1) {
      for (const key of keys) key.push(values[0]);
    } else {
      const next: unknown[][] = [];
      for (const key of keys) for (const v of values) next.push([...key, v]);
      keys = next;
    }
  }
  return { keys, multikey, allMissing };
}

/** Binary, whatever the operation's collation: keys are built for every index of the collection alike. */
function dedupe(values: unknown[]): unknown[] {
  const binary = (a: unknown, b: unknown) => compareUnder(null, a, b);
  const sorted = [...values].sort(binary);
  const out: unknown[] = [sorted[0]];
  for (let i = 1; i < sorted.length; i++) {
    if (binary(sorted[i], out[out.length - 1]) !== 0) out.push(sorted[i]);
  }
  return out;
}
