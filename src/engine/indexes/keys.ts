/**
 * Index key generation: which keys a document contributes to an index. A field that is missing
 * indexes as null; an array contributes one key per element (multikey), an empty array the value
 * `undefined`; at most one array per document may hold the fields of a compound key (parallel arrays are
 * refused, as mongod does).
 */
import { fail } from '../errors';
import { compareUnder } from '../values/compare';
import { ownValue } from '../values/fields';
import { isArrayPosition } from './array-position';
import { formatValue } from '../values/format';
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

/**
 * Keys of one field path in a document. `asIndexKeys` off gives the values distinct reads: an array
 * element the rest of the path reaches nothing in then adds no null.
 */
export function fieldKeys(doc: Document, path: string, parts = path.split('.'), asIndexKeys = true): FieldKeys {
  if (parts.length === 1) {
    // Fast path for a top-level scalar, the common case on the insert path.
    const v = ownValue(doc, path);
    if (v === undefined) return { values: NULL_KEYS, multikey: false, missing: true };
    if (!Array.isArray(v)) return { values: [v], multikey: false, missing: false };
  }
  const out: unknown[] = [];
  const state = { multikey: false, found: false, asIndexKeys };
  collect(doc, parts, 0, out, state);
  if (!state.found) return { values: NULL_KEYS, multikey: state.multikey, missing: true };
  return { values: out, multikey: state.multikey, missing: false };
}

function collect(
  value: unknown,
  parts: string[],
  i: number,
  out: unknown[],
  state: { multikey: boolean; found: boolean; asIndexKeys: boolean },
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
    // "a.0" on an array means the element at position 0; past the array's end mongod's key
    // generator finds no such element and reads the part as a field of each element instead.
    if (isArrayPosition(part) && Number(part) < value.length) {
      if (state.asIndexKeys) refuseAmbiguousArrayField(value, part);
      collect(value[Number(part)], parts, i + 1, out, state);
      return;
    }
    state.multikey = true;
    for (const element of value) {
      if (!isPlainObject(element)) continue;
      // An element the rest of the path reaches nothing in keys as null: {a: [{}, {b: 5}]} must be
      // found by an index scan for {'a.b': null}, which that first element matches.
      const before = out.length;
      collect(element, parts, i, out, state);
      if (out.length === before && state.asIndexKeys) out.push(null);
    }
    return;
  }
  if (!isPlainObject(value)) return;
  const next = ownValue(value, parts[i]);
  if (next === undefined) return;
  collect(next, parts, i + 1, out, state);
}

/**
 * A numeric path part on an array that is both a position in it and a field of one of its
 * elements ({a: [{0: 1}]} under "a.0.c") could mean either: mongod refuses to index it (16746).
 */
function refuseAmbiguousArrayField(array: unknown[], part: string): void {
  if (Number(part) >= array.length) return;
  for (const element of array) {
    if (isPlainObject(element) && ownValue(element, part) !== undefined)
      fail(
        16746,
        `Ambiguous field name found in array (do not use numeric field names in embedded elements in an array), field: '${part}' for array: ${formatValue(array)}. Rename the numeric field or index another path.`,
      );
  }
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
  const walk: CompoundWalk = { fields, fieldParts, keys: [], multikey: false, found: fields.map(() => false) };
  expandCompound(
    walk,
    fields.map(() => doc),
    fields.map(() => 0),
    fields.map(() => OPEN),
  );
  const keys = walk.keys.length > 1 ? dedupeKeys(walk.keys) : walk.keys;
  return { keys, multikey: walk.multikey, allMissing: !walk.found.some(Boolean) };
}

/** A field whose key value is not settled yet (its walk goes on inside an array element). */
const OPEN: unique symbol = Symbol('open');

interface CompoundWalk {
  fields: KeyField[];
  fieldParts: string[][];
  keys: unknown[][];
  multikey: boolean;
  /** Per field: some value was reached (sparse indexes skip documents where none was). */
  found: boolean[];
}

/** Where one field's walk stopped: a settled value, or an array it must fan out over. */
type FieldStop = { value: unknown } | { array: unknown[]; part: number; atEnd: boolean };

function walkField(walk: CompoundWalk, f: number, start: unknown, from: number): FieldStop {
  const parts = walk.fieldParts[f];
  let node = start;
  for (let i = from; ; i++) {
    if (Array.isArray(node)) {
      if (i < parts.length && isArrayPosition(parts[i]) && Number(parts[i]) < node.length) {
        // "a.0" on an array means the element at position 0 (past the end: a field of the elements).
        refuseAmbiguousArrayField(node, parts[i]);
        node = node[Number(parts[i])];
        continue;
      }
      return { array: node, part: i, atEnd: i === parts.length };
    }
    if (i === parts.length) {
      if (node === undefined) return { value: null };
      walk.found[f] = true;
      return { value: node };
    }
    if (!isPlainObject(node)) return { value: null };
    node = ownValue(node, parts[i]);
  }
}

/**
 * Compound keys as mongod's key generator makes them: fields whose paths meet the same array take
 * their values from the same element (`{'a.b': 1, 'a.c': 1}` over `a: [{b, c}, …]` gives one key per
 * element), a field outside that array keeps its one value, and two different arrays with more than
 * one element each are parallel arrays (171).
 */
function expandCompound(walk: CompoundWalk, nodes: unknown[], parts: number[], settled: unknown[]): void {
  const n = nodes.length;
  const values = settled.slice();
  const stops: Array<FieldStop | undefined> = new Array(n);
  let expand: unknown[] | undefined;
  let expandField = -1;
  for (let f = 0; f < n; f++) {
    if (values[f] !== OPEN) continue;
    const stop = walkField(walk, f, nodes[f], parts[f]);
    if ('value' in stop) {
      values[f] = stop.value;
      continue;
    }
    stops[f] = stop;
    if (expand === undefined || (expand.length <= 1 && stop.array.length > 1)) {
      expand = stop.array;
      expandField = f;
    }
  }
  if (expand === undefined) {
    walk.keys.push(values);
    return;
  }
  walk.multikey = true;
  for (let f = 0; f < n; f++) {
    const stop = stops[f];
    if (stop && 'array' in stop && stop.array !== expand && stop.array.length > 1) {
      fail(
        'CannotIndexParallelArrays',
        `cannot index parallel arrays [${walk.fields[f].path}] [${walk.fields[expandField].path}]: a compound index can have at most one array field per document.`,
      );
    }
  }
  const nextNodes = nodes.slice();
  const nextParts = parts.slice();
  if (expand.length === 0) {
    for (let f = 0; f < n; f++) {
      const stop = stops[f];
      if (!stop || !('array' in stop) || stop.array !== expand) continue;
      // An empty array at the end of the path indexes as undefined; before the end it reaches nothing.
      values[f] = stop.atEnd ? undefined : null;
      if (stop.atEnd) walk.found[f] = true;
    }
    expandCompound(walk, nextNodes, nextParts, values);
    return;
  }
  for (const element of expand) {
    const next = values.slice();
    for (let f = 0; f < n; f++) {
      const stop = stops[f];
      if (!stop || !('array' in stop) || stop.array !== expand) continue;
      if (stop.atEnd) {
        next[f] = element === undefined ? null : element;
        walk.found[f] = true;
      } else if (isPlainObject(element)) {
        next[f] = OPEN;
        nextNodes[f] = element;
        nextParts[f] = stop.part;
      } else {
        next[f] = null;
      }
    }
    expandCompound(walk, nextNodes, nextParts, next);
  }
}

function dedupeKeys(keys: unknown[][]): unknown[][] {
  const cmp = (a: unknown[], b: unknown[]): number => {
    for (let i = 0; i < a.length; i++) {
      const c = compareUnder(null, a[i], b[i]);
      if (c !== 0) return c;
    }
    return 0;
  };
  const sorted = [...keys].sort(cmp);
  const out: unknown[][] = [sorted[0]];
  for (let i = 1; i < sorted.length; i++) if (cmp(sorted[i], out[out.length - 1]) !== 0) out.push(sorted[i]);
  return out;
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
