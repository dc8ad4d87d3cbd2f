/**
 * Sort specifications ({a: 1, "b.c": -1}) compiled into comparators with mongod's semantics.
 *
 * A document's sort key for a path is derived the way mongod's sort key generator does it, from the
 * index keys the path would produce: a missing field is null, an array contributes each of its
 * elements (ascending sorts use the smallest, descending the largest), an empty array is
 * `undefined` (which orders below null), and an array met in the middle of a path contributes the
 * field of each element (null for elements without it). Values then order by compareValues, the
 * BSON total order. Two sort fields that reach different arrays in one document are "parallel
 * arrays", which mongod refuses (BadValue).
 */
import { EngineError, ErrorCode } from '../errors';
import { compareValues } from '../values/compare';
import { formatValue } from '../values/format';
import { toDouble } from '../values/numbers';
import { isNumeric, isPlainObject, type Document } from '../values/types';

export interface SortField {
  path: string;
  parts: string[];
  /** parts[i] as a canonical array index, else -1. */
  indexes: number[];
  direction: 1 | -1;
}

export type SortComparator = (a: Document, b: Document) => number;

const hasOwn = Object.prototype.hasOwnProperty;
const CANONICAL_INDEX = /^(?:0|[1-9][0-9]*)$/;
const META_NAMES = new Set([
  'textScore',
  'randVal',
  'searchScore',
  'searchHighlights',
  'vectorSearchScore',
  'score',
  'searchScoreDetails',
  'scoreDetails',
  'indexKey',
  'recordId',
  'sortKey',
  'geoNearDistance',
  'geoNearPoint',
]);

/** Compile a sort specification; undefined (or {}) means "no sort". */
export function compileSort(sort: Document | undefined): SortComparator | undefined {
  if (sort === undefined || sort === null) return undefined;
  const fields = parseSort(sort);
  if (fields.length === 0) return undefined;
  if (fields.length === 1 && fields[0].parts.length === 1) return singleFieldComparator(fields[0]);
  // Keys of dotted or compound sorts cost more to extract than a lookup, so each document's key is
  // computed once per comparator (documents are not modified while a query sorts them).
  const cache = new WeakMap<Document, unknown[]>();
  const keyOf = (doc: Document): unknown[] => {
    let key = cache.get(doc);
    if (!key) {
      key = sortKeyOf(doc, fields);
      cache.set(doc, key);
    }
    return key;
  };
  return (a, b) => compareSortKeys(keyOf(a), keyOf(b), fields);
}

/** Validate a sort specification the way mongod's SortPattern does and list its fields. */
export function parseSort(sort: Document): SortField[] {
  if (!isPlainObject(sort))
    throw new EngineError(ErrorCode.BadValue, `sort must be an object, not ${formatValue(sort)}`);
  const fields: SortField[] = [];
  for (const path of Object.keys(sort)) {
    const spec = sort[path];
    if (isPlainObject(spec)) throw metaSortError(path, spec);
    if (path === '$natural') {
      throw new EngineError(
        ErrorCode.BadValue,
        'sort by $natural is not supported here: natural order is the scan order, request it as a hint instead',
      );
    }
    if (!isNumeric(spec)) {
      throw new EngineError(
        ErrorCode.Location15974,
        `Illegal key in $sort specification: ${path}: ${formatValue(spec)}`,
      );
    }
    const n = toDouble(spec);
    if (n !== 1 && n !== -1) {
      throw new EngineError(15975, '$sort key ordering must be 1 (for ascending) or -1 (for descending)');
    }
    const parts = validateFieldPath(path);
    fields.push({ path, parts, indexes: parts.map(indexOf), direction: n });
  }
  return fields;
}

/** The sort key of a document: one value per sort field (throws on parallel arrays). */
export function sortKeyOf(doc: Document, fields: SortField[]): unknown[] {
  const key = new Array<unknown>(fields.length);
  let arrayPath: string | undefined;
  let arrayField: string | undefined;
  for (let f = 0; f < fields.length; f++) {
    const field = fields[f];
    const state: ExtractState = { values: [], arrayAt: -1 };
    collect(doc, field, 0, state);
    if (state.arrayAt >= 0) {
      const at = field.parts.slice(0, state.arrayAt + 1).join('.');
      if (arrayPath !== undefined && arrayPath !== at) {
        throw new EngineError(
          ErrorCode.BadValue,
          `cannot sort with keys that are parallel arrays: '${arrayField}' and '${field.path}' both reach an array ('${arrayPath}' and '${at}') in document ${docIdText(doc)}`,
        );
      }
      arrayPath = at;
      arrayField = field.path;
    }
    key[f] = pick(state.values, field.direction);
  }
  return key;
}

/** Compare two sort keys under the fields' directions. */
export function compareSortKeys(a: unknown[], b: unknown[], fields: SortField[]): number {
  for (let i = 0; i < fields.length; i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return fields[i].direction * c;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Internals
// ---------------------------------------------------------------------------------------------

function metaSortError(path: string, spec: Document): EngineError {
  const keys = Object.keys(spec);
  if (keys[0] !== '$meta') {
    return new EngineError(
      17312,
      `$meta is the only expression supported by $sort right now (got ${path}: ${formatValue(spec)})`,
    );
  }
  const meta = spec.$meta;
  if (typeof meta !== 'string' || !META_NAMES.has(meta)) {
    return new EngineError(31138, `Illegal $meta sort: $meta: ${formatValue(meta)}`);
  }
  return new EngineError(
    ErrorCode.BadValue,
    `$sort by {$meta: ${formatValue(meta)}} is not supported: this engine computes no text or search scores`,
  );
}

/** The `$`-prefixed names a FieldPath may hold: a DBRef's fields, as mongod allows them. */
const DBREF_FIELDS = new Set(['$id', '$ref', '$db']);

/** The components of a field path, with mongod's FieldPath checks. */
export function validateFieldPath(path: string): string[] {
  if (path === '') throw new EngineError(40352, 'FieldPath cannot be constructed with empty string');
  const parts = path.split('.');
  for (const part of parts) {
    if (part === '') throw new EngineError(15998, `FieldPath field names may not be empty strings (in '${path}').`);
    if (part.startsWith('$') && !DBREF_FIELDS.has(part)) {
      throw new EngineError(
        ErrorCode.Location16410,
        `FieldPath field names may not start with '$'. Consider using $getField or $setField. (in '${path}')`,
      );
    }
  }
  return parts;
}

function indexOf(part: string): number {
  return CANONICAL_INDEX.test(part) && part.length < 16 ? Number(part) : -1;
}

function docIdText(doc: Document): string {
  return hasOwn.call(doc, '_id') ? `{_id: ${formatValue(doc._id)}}` : '{no id}';
}

interface ExtractState {
  values: unknown[];
  /** Component index of the first array expanded (fanned out), -1 if none. */
  arrayAt: number;
}

/**
 * Collect the key values `field` yields, where `cur` is the value reached after `i` components.
 * A positional component ("a.0") selects one element without expanding the array.
 */
function collect(cur: unknown, field: SortField, i: number, state: ExtractState): void {
  const { parts, indexes } = field;
  for (; ; i++) {
    if (i === parts.length) {
      if (!Array.isArray(cur)) {
        state.values.push(cur === undefined ? null : cur);
        return;
      }
      if (state.arrayAt < 0) state.arrayAt = i - 1;
      if (cur.length === 0) state.values.push(undefined);
      else for (const el of cur) state.values.push(el === undefined ? null : el);
      return;
    }
    if (isPlainObject(cur)) {
      const next = hasOwn.call(cur, parts[i]) ? cur[parts[i]] : undefined;
      if (next === undefined) {
        state.values.push(null);
        return;
      }
      cur = next;
      continue;
    }
    if (!Array.isArray(cur)) {
      // A scalar with path left: the field is missing.
      state.values.push(null);
      return;
    }
    const idx = indexes[i];
    if (idx >= 0) {
      if (idx >= cur.length) {
        state.values.push(null);
        return;
      }
      cur = cur[idx];
      continue;
    }
    // An array in the middle of the path: each element contributes its field (null if it has none).
    if (state.arrayAt < 0) state.arrayAt = i - 1;
    const before = state.values.length;
    for (const el of cur) {
      if (isPlainObject(el)) collect(el, field, i, state);
      else state.values.push(null);
    }
    if (state.values.length === before) state.values.push(null);
    return;
  }
}

/** Ascending sorts use the smallest key value, descending the largest. */
function pick(values: unknown[], direction: 1 | -1): unknown {
  let best = values[0];
  for (let k = 1; k < values.length; k++) {
    const c = compareValues(values[k], best);
    if (direction === 1 ? c < 0 : c > 0) best = values[k];
  }
  return best;
}

/** The common case, {field: ±1} on a top-level field: no cache, no allocation. */
function singleFieldComparator(field: SortField): SortComparator {
  const name = field.parts[0];
  const dir = field.direction;
  const keyOf = (doc: Document): unknown => {
    const v = hasOwn.call(doc, name) ? doc[name] : undefined;
    if (v === undefined) return null;
    if (!Array.isArray(v)) return v;
    if (v.length === 0) return undefined;
    return pick(v, dir);
  };
  return (a, b) => dir * compareValues(keyOf(a), keyOf(b));
}
