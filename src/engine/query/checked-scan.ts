/**
 * An index scan over bounds that are not one key range: several intervals on a field, or a range on
 * one field followed by bounds on the next (`{age: [25, 30], rating: [0, 0] ∪ [9, 9]}`). Like
 * mongod's index bounds checker it reads keys in index order and tests each against every field's
 * intervals: a key inside them all is a match, a key in a gap makes the cursor seek to the next
 * interval's start, a key past a field's last interval seeks past its prefix, and a key past the
 * first field's last interval (or with every earlier field at its last value) ends the scan. Every
 * key read is counted as examined, as mongod's `keysExamined` counts them.
 */
import type { StoredRecord } from '../catalog/record';
import type { BTreeIndex } from '../indexes/btree-index';
import { checkForInterrupt } from '../interrupt';
import { compareKeyPart, encodeEntry, entryValue, MAX_BOUND, MIN_BOUND, type EntryKey } from '../indexes/key-order';
import { BSON_UNDEFINED } from '../values/bson-undefined';
import { sortedUnion, type Interval } from './intervals';

/** One field's intervals in the order the scan meets its values. */
interface FieldBounds {
  /** The scan meets this field's values in ascending order. */
  ascending: boolean;
  intervals: Interval[];
}

type Place = 'before' | 'inside' | 'after';

function placeAscending(v: unknown, iv: Interval): Place {
  const lo = compareKeyPart(v, iv.low);
  if (lo < 0 || (lo === 0 && !iv.lowInclusive)) return 'before';
  const hi = compareKeyPart(v, iv.high);
  if (hi > 0 || (hi === 0 && !iv.highInclusive)) return 'after';
  return 'inside';
}

function place(v: unknown, iv: Interval, ascending: boolean): Place {
  const p = placeAscending(v, iv);
  if (ascending || p === 'inside') return p;
  return p === 'before' ? 'after' : 'before';
}

/** The first interval (in scan order) the value is not past, by binary search; length when none. */
function firstNotPast(v: unknown, field: FieldBounds): number {
  let lo = 0;
  let hi = field.intervals.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (place(v, field.intervals[mid], field.ascending) === 'after') lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function keyValue(entry: EntryKey, i: number): unknown {
  const v = entryValue(entry, i);
  return v === undefined ? BSON_UNDEFINED : v;
}

/**
 * Scans `index` over `bounds` (one interval list per key field, in value order), calling `visit`
 * with each record whose key lies inside them until it returns true. Returns the keys examined.
 */
export function checkedScan(
  index: BTreeIndex,
  bounds: Interval[][],
  forward: boolean,
  visit: (record: StoredRecord) => boolean,
): number {
  const n = index.fieldCount;
  const fields: FieldBounds[] = bounds.map((ivs, i) => {
    const ascending = (index.directions[i] === 1) === forward;
    const sorted = sortedUnion(ivs);
    return { ascending, intervals: ascending ? sorted : sorted.reverse() };
  });
  if (fields.some((f) => f.intervals.length === 0)) return 0;
  const tree = index.tree;
  // The sentinel that sorts last in the scan's order for field i (the tree orders a descending
  // field's values in reverse).
  const scanLast = (i: number) => ((index.directions[i] === 1) === forward ? MAX_BOUND : MIN_BOUND);
  const ridFirst = forward ? MIN_BOUND : MAX_BOUND;
  const ridLast = forward ? MAX_BOUND : MIN_BOUND;

  /** The key at the start of interval `j` of field `i` after `prefix`, later fields at their first intervals' starts. */
  const startKey = (prefix: unknown[], i: number, j: number): EntryKey => {
    const parts = [...prefix];
    for (let k = i; k < n; k++) {
      const iv = fields[k].intervals[k === i ? j : 0];
      const asc = fields[k].ascending;
      parts.push(asc ? iv.low : iv.high);
      const inclusive = asc ? iv.lowInclusive : iv.highInclusive;
      if (!inclusive) {
        for (let m = k + 1; m < n; m++) parts.push(scanLast(m));
        parts.push(ridLast);
        return encodeEntry(parts);
      }
    }
    parts.push(ridFirst);
    return encodeEntry(parts);
  };
  /** The key just past every key that begins with `prefix`. */
  const pastPrefix = (prefix: unknown[]): EntryKey => {
    const parts = [...prefix];
    for (let m = prefix.length; m < n; m++) parts.push(scanLast(m));
    parts.push(ridLast);
    return encodeEntry(parts);
  };
  const seek = (key: EntryKey) => (forward ? tree.getPairOrNextHigher(key) : tree.getPairOrNextLower(key));
  const next = (key: EntryKey) => (forward ? tree.nextHigherPair(key) : tree.nextLowerPair(key));
  /** Whether field i's value is the last its intervals allow (their final end, inclusive). */
  const atFinalEnd = (v: unknown, i: number): boolean => {
    const last = fields[i].intervals[fields[i].intervals.length - 1];
    const end = fields[i].ascending ? last.high : last.low;
    const inclusive = fields[i].ascending ? last.highInclusive : last.lowInclusive;
    return inclusive && compareKeyPart(v, end) === 0;
  };

  let examined = 0;
  let pair = seek(startKey([], 0, 0));
  while (pair) {
    checkForInterrupt();
    examined++;
    const [entry, record] = pair;
    const values: unknown[] = [];
    let target: EntryKey | undefined;
    let done = false;
    for (let i = 0; i < n; i++) {
      const v = keyValue(entry, i);
      const j = firstNotPast(v, fields[i]);
      if (j === fields[i].intervals.length) {
        // Past this field's last interval: the prefix before it must move on, unless it cannot.
        if (i === 0 || values.every((pv, k) => atFinalEnd(pv, k))) done = true;
        else target = pastPrefix(values);
        break;
      }
      if (place(v, fields[i].intervals[j], fields[i].ascending) === 'before') {
        target = startKey(values, i, j);
        break;
      }
      values.push(v);
    }
    if (done) break;
    if (target) {
      // A seek never goes back: were the target at or behind this key, the next key is read instead.
      // A seek that finds no key at all ends the scan (no key is left at or past the target).
      const sought = seek(target);
      if (!sought) break;
      pair = (forward ? 1 : -1) * index.compare(sought[0], entry) > 0 ? sought : next(entry);
      continue;
    }
    if (visit(record)) break;
    pair = next(entry);
  }
  return examined;
}
