/**
 * Ordering of index entries. An entry key is `[v1, ..., vn, rid]`: the field values in BSON order
 * (reversed for descending fields), then the record id so equal values stay distinct entries.
 * Scans bound their ranges with `KeyBound` sentinels, which sort below or above every value
 * (optionally only within one canonical type bracket, as mongod's type-bracketed bounds do).
 */
import { compareValues } from '../values/compare';
import { canonicalRank } from '../values/types';

export class KeyBound {
  /** side -1 sorts before, +1 after: every value, or every value of canonical `rank`. */
  constructor(readonly side: -1 | 1, readonly rank?: number) {}
}

export const MIN_BOUND = new KeyBound(-1);
export const MAX_BOUND = new KeyBound(1);

export type EntryKey = unknown[];

export function compareKeyPart(a: unknown, b: unknown): number {
  if (a instanceof KeyBound) {
    if (b instanceof KeyBound) return boundVsBound(a, b);
    return boundVsValue(a, b);
  }
  if (b instanceof KeyBound) return -boundVsValue(b, a);
  return compareValues(a, b);
}

function boundVsValue(bound: KeyBound, value: unknown): number {
  if (bound.rank === undefined) return bound.side;
  const r = canonicalRank(value);
  if (r !== bound.rank) return bound.rank < r ? -1 : 1;
  return bound.side;
}

function boundVsBound(a: KeyBound, b: KeyBound): number {
  const ra = a.rank ?? (a.side < 0 ? -Infinity : Infinity);
  const rb = b.rank ?? (b.side < 0 ? -Infinity : Infinity);
  if (ra !== rb) return ra < rb ? -1 : 1;
  return a.side === b.side ? 0 : a.side < b.side ? -1 : 1;
}

/** Comparator for entry keys of an index whose fields have the given directions. */
export function entryComparator(directions: ReadonlyArray<1 | -1>): (a: EntryKey, b: EntryKey) => number {
  const n = directions.length;
  if (n === 1 && directions[0] === 1) {
    return (a, b) => compareKeyPart(a[0], b[0]) || compareRid(a[1], b[1]);
  }
  return (a, b) => {
    for (let i = 0; i < n; i++) {
      const c = compareKeyPart(a[i], b[i]);
      if (c !== 0) return directions[i] < 0 ? -c : c;
    }
    return compareRid(a[n], b[n]);
  };
}

function compareRid(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  return compareKeyPart(a, b);
}
