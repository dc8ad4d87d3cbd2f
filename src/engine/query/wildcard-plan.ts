/**
 * Planning on a wildcard index (`{"$**": 1}`): its entries are `[path, value]`, so a scan pins the
 * path and bounds the value, as mongod shows it in explain (`$_path: ["[\"a\", \"a\"]"]`). Only
 * predicates that a document without the field cannot meet can use it: the index holds no key for a
 * missing field (no null, no `$exists: false`, no `$ne` but `$ne: null`). A predicate a non-empty
 * object could meet (`$exists: true`, `$ne: null`, `[MinKey, MaxKey]`) also scans the paths under
 * the field (`["a.", "a/")`), since an object is keyed by its leaves. The matcher re-checks every
 * fetched document, so bounds need only hold every match.
 */
import { MaxKey, MinKey } from 'bson';
import { currentCollator } from '../collation/active';
import type { BTreeIndex } from '../indexes/btree-index';
import { compareKeyPart, KeyBound, MAX_BOUND, MIN_BOUND } from '../indexes/key-order';
import { multikeyPrefixes, scopeHolds } from '../indexes/wildcard-keys';
import { bsonClassOf, bsonTypeOf, canonicalRank, isPlainObject, type Document } from '../values/types';
import { clauseIntervals, intersect, point, type Interval } from './intervals';

export interface WildcardCandidate {
  /** The one field path the scan reads. */
  path: string;
  /** `[path intervals, value intervals]`: the index's two key parts. */
  fieldIntervals: Interval[][];
  score: number;
  /** Walking the scan forward (1) or backward (-1) yields the requested sort; 0: it does not. */
  sortDirection: 0 | 1 | -1;
}

/** Bounds of a clause on one path, and whether the paths below it must be scanned too. */
interface Use {
  ivs: Interval[];
  subpaths: boolean;
}

const EVERYTHING: Interval = { low: MIN_BOUND, lowInclusive: true, high: MAX_BOUND, highInclusive: true };
const FULL_WITH_SUBPATHS: Use = { ivs: [EVERYTHING], subpaths: true };

function isOperatorObject(v: unknown): v is Document {
  return isPlainObject(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => k.startsWith('$'));
}

function isEmptyObject(v: unknown): boolean {
  return isPlainObject(v) && Object.keys(v).length === 0;
}

/** Equality to `v`: the keys a document equal to it (or holding it in an array) has on the path. */
function equalityUse(v: unknown): Use | undefined {
  if (v === null || v === undefined) return undefined;
  if (Array.isArray(v)) {
    if (v.length === 0) return { ivs: [point(undefined), point([])], subpaths: false };
    const first = v[0];
    // The array's first element is a key of the document, unless it is an object keyed by its leaves.
    if (isPlainObject(first) && !isEmptyObject(first)) return FULL_WITH_SUBPATHS;
    return { ivs: [point(first === undefined ? null : first), point(v)], subpaths: false };
  }
  if (bsonTypeOf(v) === 'regex' || v instanceof RegExp) {
    const ivs = clauseIntervals(v);
    return ivs && { ivs, subpaths: false };
  }
  if (isPlainObject(v)) return isEmptyObject(v) ? { ivs: [point(v)], subpaths: false } : undefined;
  return { ivs: [point(v)], subpaths: false };
}

function rangeUse(op: string, operand: unknown): Use | undefined {
  const cls = bsonClassOf(operand);
  if (operand instanceof MinKey || cls === 'MinKey')
    return op === '$gte' || op === '$gt' ? FULL_WITH_SUBPATHS : undefined;
  if (operand instanceof MaxKey || cls === 'MaxKey')
    return op === '$lte' || op === '$lt' ? FULL_WITH_SUBPATHS : undefined;
  if (operand === null || operand === undefined || Array.isArray(operand)) return undefined;
  if (isPlainObject(operand)) {
    // Only the empty object lies at or below {}; any other object bound reaches objects keyed by their leaves.
    if (!isEmptyObject(operand)) return undefined;
    if (op === '$lte') return { ivs: [point(operand)], subpaths: false };
    return op === '$lt' ? { ivs: [], subpaths: false } : undefined;
  }
  const ivs = clauseIntervals({ [op]: operand });
  return ivs && { ivs, subpaths: false };
}

function inUse(operand: unknown): Use | undefined {
  if (!Array.isArray(operand) || operand.length === 0) return undefined;
  const ivs: Interval[] = [];
  let subpaths = false;
  for (const v of operand) {
    const use = equalityUse(v);
    if (!use) return undefined;
    ivs.push(...use.ivs);
    subpaths ||= use.subpaths;
  }
  return { ivs: subpaths ? [EVERYTHING] : ivs, subpaths };
}

const OBJECT_TYPES = new Set(['object', 3, 'array', 4]);

/**
 * `$type` reads any value on the path; an object or an array of objects is keyed by its leaves, so
 * asking for either scans the paths below too.
 */
function typeUse(operand: unknown): Use {
  const types = Array.isArray(operand) ? operand : [operand];
  const containers = types.some((t) => OBJECT_TYPES.has(typeof t === 'number' ? t : String(t)));
  return containers ? FULL_WITH_SUBPATHS : { ivs: [EVERYTHING], subpaths: false };
}

/**
 * `$elemMatch` on values (`{$gte: 10, $lte: 40}`): one element meets every bound, so the bounds stay
 * tight on an array. An `$elemMatch` on the fields of elements reads other paths: not this one.
 */
function elemMatchUse(operand: unknown): Use | undefined {
  if (!isOperatorObject(operand)) return undefined;
  const use = clauseUse(operand);
  return use && { ivs: use.ivs.map((iv) => ({ ...iv, oneElement: true })), subpaths: use.subpaths };
}

function combine(a: Use | undefined, b: Use | undefined): Use | undefined {
  if (!a) return b;
  if (!b) return a;
  return { ivs: intersect(a.ivs, b.ivs), subpaths: a.subpaths && b.subpaths };
}

/** What a clause on the path lets the index bound; undefined: this clause cannot use it. */
function clauseUse(clause: unknown): Use | undefined {
  if (!isOperatorObject(clause)) return equalityUse(clause);
  let result: Use | undefined;
  for (const [op, operand] of Object.entries(clause)) {
    let use: Use | undefined;
    if (op === '$eq') use = equalityUse(operand);
    else if (op === '$in') use = inUse(operand);
    else if (op === '$gt' || op === '$gte' || op === '$lt' || op === '$lte') use = rangeUse(op, operand);
    else if (op === '$exists') use = operand === false || operand === 0 ? undefined : FULL_WITH_SUBPATHS;
    else if (op === '$ne') use = operand === null ? FULL_WITH_SUBPATHS : undefined;
    else if (op === '$type') use = typeUse(operand);
    else if (op === '$elemMatch') use = elemMatchUse(operand);
    else if (op === '$regex') {
      const ivs = clauseIntervals({
        $regex: operand,
        ...(clause.$options !== undefined ? { $options: clause.$options } : {}),
      });
      use = ivs && { ivs, subpaths: false };
    }
    result = combine(result, use);
  }
  return result;
}

function clausesOn(filter: Document, path: string, out: unknown[]): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === path) out.push(value);
    else if (key === '$and' && Array.isArray(value))
      for (const sub of value) if (isPlainObject(sub)) clausesOn(sub, path, out);
  }
}

function pathsOf(filter: Document, out: string[]): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const sub of value) if (isPlainObject(sub)) pathsOf(sub, out);
    } else if (!key.startsWith('$') && !out.includes(key)) out.push(key);
  }
}

/**
 * A numeric component (`a.0.b`) after a path that met an array may name an array position, which
 * keys leave out: the scan reads every reading of the path (`a.0.b` and `a.b`), and any value there
 * (an array inside an array is keyed whole). A component after a path that never met an array is a
 * field name.
 */
function pathReadings(path: string, multikeyPaths: ReadonlySet<string>): string[] {
  const parts = path.split('.');
  let readings: string[][] = [[]];
  parts.forEach((part, i) => {
    const next: string[][] = [];
    const positional = i > 0 && /^[0-9]+$/.test(part);
    for (const r of readings) {
      next.push([...r, part]);
      if (positional && multikeyPaths.has(r.join('.'))) next.push(r);
    }
    readings = next;
  });
  return [...new Set(readings.map((r) => r.join('.')))];
}

/** mongod plans a wildcard scan through at most 8 array positions. */
const MAX_POSITIONS = 8;

function collatable(v: unknown): boolean {
  if (v instanceof KeyBound) return v.rank === 15 || v.rank === 20 || v.rank === 25;
  const t = bsonTypeOf(v);
  return t === 'string' || t === 'symbol' || t === 'object' || t === 'array';
}

function isPointInterval(iv: Interval): boolean {
  return iv.lowInclusive && iv.highInclusive && compareKeyPart(iv.low, iv.high) === 0;
}

/** On a path that met an array two bounds may be met by different elements: keep the lower side. */
function loosen(iv: Interval): Interval {
  if (iv.low instanceof KeyBound || iv.oneElement || isPointInterval(iv)) return iv;
  return {
    low: iv.low,
    lowInclusive: iv.lowInclusive,
    high: new KeyBound(1, canonicalRank(iv.low)),
    highInclusive: true,
  };
}

const ALL_STRINGS: Interval = {
  low: '',
  lowInclusive: true,
  high: new KeyBound(1, canonicalRank('')),
  highInclusive: true,
};

function sortedUnique(ivs: Interval[]): Interval[] {
  const sorted = [...ivs].sort((a, b) => compareKeyPart(a.low, b.low) || compareKeyPart(a.high, b.high));
  return sorted.filter(
    (iv, i) =>
      i === 0 || compareKeyPart(iv.low, sorted[i - 1].low) !== 0 || compareKeyPart(iv.high, sorted[i - 1].high) !== 0,
  );
}

/** The best path of `filter` to scan `index` for (a wildcard index), or undefined when none can use it. */
export function wildcardCandidate(index: BTreeIndex, filter: Document, sort?: Document): WildcardCandidate | undefined {
  const scope = index.wildcard;
  if (!scope) return undefined;
  const fits = index.collator === currentCollator();
  const paths: string[] = [];
  pathsOf(filter, paths);
  let best: WildcardCandidate | undefined;
  for (const path of paths) {
    if (!scopeHolds(scope, path)) continue;
    if (path.split('.').filter((p) => /^[0-9]+$/.test(p)).length > MAX_POSITIONS) continue;
    const clauses: unknown[] = [];
    clausesOn(filter, path, clauses);
    let use: Use | undefined;
    for (const clause of clauses) use = combine(use, clauseUse(clause));
    if (!use) continue;
    const readings = pathReadings(path, index.multikeyPaths);
    let ivs = readings.length > 1 ? [EVERYTHING] : use.ivs;
    if (!fits && ivs.some((iv) => collatable(iv.low) || collatable(iv.high))) continue;
    // A regex matches bytes, not collation keys: under the index's collation it scans every string.
    if (index.collator) ivs = ivs.map((iv) => (iv.oneElement ? ALL_STRINGS : iv));
    if (multikeyPrefixes(path, index.multikeyPaths).length > 0) ivs = ivs.map(loosen);
    ivs = sortedUnique(ivs);
    const pathIvs: Interval[] = [];
    for (const reading of readings) {
      pathIvs.push(point(reading));
      if (use.subpaths)
        pathIvs.push({ low: `${reading}.`, lowInclusive: true, high: `${reading}/`, highInclusive: false });
    }
    // One path's keys are in value order: a sort on that field alone needs no SORT stage, unless
    // an array there gives a document several keys or the scan reads several paths.
    const sortFields = sort ? Object.entries(sort) : [];
    const sortable =
      pathIvs.length === 1 &&
      fits &&
      sortFields.length === 1 &&
      sortFields[0][0] === path &&
      multikeyPrefixes(path, index.multikeyPaths).length === 0;
    const sortDirection = sortable ? (Number(sortFields[0][1]) < 0 ? -1 : 1) : 0;
    // mongod's plan ranking prefers the plan that avoids a blocking sort.
    const score = (ivs.length > 0 && ivs.every(isPointInterval) ? 3 : 1) + (sortable ? 2.5 : 0);
    if (!best || score > best.score)
      best = { path, fieldIntervals: [sortedUnique(pathIvs), ivs], score, sortDirection };
  }
  return best;
}
