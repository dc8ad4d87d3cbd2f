/**
 * Ordering of index entries. An entry is a flat array `[rank0, v0, rank1, v1, ..., rid]`: for each
 * key field its canonical BSON type rank and a comparable form of the value, then the record id so
 * equal values stay distinct entries. Dates, numbers and booleans are stored as plain numbers, so a
 * date index entry is an unboxed double array and comparing two entries touches no other object
 * (this is what makes random-date inserts fast). Other types keep their value and compare with
 * `compareValues`.
 *
 * Scans bound their ranges with `KeyBound` sentinels (value space), encoded here as a rank of
 * ±Infinity (below/above everything) or a LOW/HIGH marker within one rank (mongod's type-bracketed
 * bounds), and a rid of ±Infinity.
 */
import { type Int32, type Long, MaxKey, MinKey } from 'bson';
import type { CollationScope } from '../collation/active';
import { compareUnder, compareValues } from '../values/compare';
import { bsonClassOf, canonicalRank } from '../values/types';

export class KeyBound {
  /** side -1 sorts before, +1 after: every value, or every value of canonical `rank`. */
  constructor(
    readonly side: -1 | 1,
    readonly rank?: number,
  ) {}
}

export const MIN_BOUND = new KeyBound(-1);
export const MAX_BOUND = new KeyBound(1);

/** Markers in the value slot: below / above every value of the entry's rank. */
const LOW = { marker: 'low' };
const HIGH = { marker: 'high' };

export type EntryKey = unknown[];

const RANK_NUMBER = 10;
const RANK_DATE = 45;
const RANK_BOOL = 40;
const RANK_NULL = 5;
const RANK_UNDEFINED = 0;
const RANK_MINKEY = -1;
const RANK_MAXKEY = 100;
const TWO_53 = 2 ** 53;

/**
 * Write the (rank, comparable value) pair of one key value or bound at `out[at]`, `out[at + 1]`.
 * Entries are allocated at their exact length: growing them with push left 17-slot backing stores
 * behind, about 250 bytes per index entry.
 */
function setPart(out: unknown[], at: number, value: unknown): void {
  switch (typeof value) {
    case 'number':
      out[at] = RANK_NUMBER;
      out[at + 1] = value;
      return;
    case 'string':
      out[at] = 15;
      out[at + 1] = value;
      return;
    case 'boolean':
      out[at] = RANK_BOOL;
      out[at + 1] = value ? 1 : 0;
      return;
    case 'undefined':
      out[at] = RANK_UNDEFINED;
      out[at + 1] = 0;
      return;
  }
  if (value === null) {
    out[at] = RANK_NULL;
    out[at + 1] = 0;
    return;
  }
  if (value instanceof Date) {
    out[at] = RANK_DATE;
    out[at + 1] = value.getTime();
    return;
  }
  if (value instanceof KeyBound) {
    if (value.rank === undefined) {
      out[at] = value.side < 0 ? -Infinity : Infinity;
      out[at + 1] = 0;
    } else {
      out[at] = value.rank;
      out[at + 1] = value.side < 0 ? LOW : HIGH;
    }
    return;
  }
  let rank: number;
  let comparable: unknown;
  switch (bsonClassOf(value)) {
    case 'Int32':
      rank = RANK_NUMBER;
      comparable = (value as Int32).value;
      break;
    case 'Double':
      rank = RANK_NUMBER;
      comparable = (value as { value: number }).value;
      break;
    case 'Long': {
      const n = (value as Long).toNumber();
      rank = RANK_NUMBER;
      comparable = Math.abs(n) < TWO_53 ? n : value;
      break;
    }
    case 'MinKey':
      rank = RANK_MINKEY;
      comparable = 0;
      break;
    case 'MaxKey':
      rank = RANK_MAXKEY;
      comparable = 0;
      break;
    default:
      rank = canonicalRank(value);
      comparable = value;
  }
  out[at] = rank;
  out[at + 1] = comparable;
}

function ridSlot(rid: unknown): unknown {
  return rid instanceof KeyBound ? (rid.side < 0 ? -Infinity : Infinity) : rid;
}

/**
 * Entry key from key values (or KeyBounds) followed by the rid (a number, or a KeyBound for range
 * ends: MIN_BOUND before every rid, MAX_BOUND after).
 */
export function encodeEntry(parts: readonly unknown[]): EntryKey {
  const n = parts.length - 1;
  if (n === 1) {
    // A literal is packed and exactly sized; the common single-field case.
    const out: unknown[] = [0, 0, ridSlot(parts[1])];
    setPart(out, 0, parts[0]);
    return out;
  }
  const out: unknown[] = new Array(2 * n + 1);
  for (let i = 0; i < n; i++) setPart(out, 2 * i, parts[i]);
  out[2 * n] = ridSlot(parts[n]);
  return out;
}

/** Entry key of a stored key (values only) for record `rid`. */
export function entryOf(values: readonly unknown[], rid: number): EntryKey {
  const n = values.length;
  if (n === 1) {
    const out: unknown[] = [0, 0, rid];
    setPart(out, 0, values[0]);
    return out;
  }
  const out: unknown[] = new Array(2 * n + 1);
  for (let i = 0; i < n; i++) setPart(out, 2 * i, values[i]);
  out[2 * n] = rid;
  return out;
}

/** The BSON value of field `i` of an entry (dates come back as Date objects). */
export function entryValue(entry: EntryKey, i: number): unknown {
  const rank = entry[2 * i] as number;
  const v = entry[2 * i + 1];
  switch (rank) {
    case RANK_DATE:
      return new Date(v as number);
    case RANK_BOOL:
      return v === 1;
    case RANK_NULL:
      return null;
    case RANK_UNDEFINED:
      return undefined;
    case RANK_MINKEY:
      return new MinKey();
    case RANK_MAXKEY:
      return new MaxKey();
  }
  return v;
}

/** The record id of an entry. */
export function entryRid(entry: EntryKey): number {
  return entry[entry.length - 1] as number;
}

function compareSlot(x: unknown, y: unknown, scope: CollationScope | null): number {
  if (x === y) return 0;
  if (x === LOW || y === HIGH) return -1;
  if (x === HIGH || y === LOW) return 1;
  return compareUnder(scope, x, y);
}

/**
 * Comparator for entry keys of an index whose fields have the given directions. Strings compare
 * under the index's collation (`scope`, null: binary), never the operation's.
 */
export function entryComparator(
  directions: ReadonlyArray<1 | -1>,
  scope: CollationScope | null = null,
  /** How many leading fields compare in binary whatever `scope` (a wildcard entry's path). */
  binaryFields = 0,
): (a: EntryKey, b: EntryKey) => number {
  const n = directions.length;
  const last = 2 * n;
  if (n === 1 && directions[0] === 1 && binaryFields === 0) {
    // The common single-field ascending index, without the loop (this runs inside every B+ tree
    // insert and lookup).
    return (a, b) => {
      const ra = a[0] as number;
      const rb = b[0] as number;
      if (ra !== rb) return ra < rb ? -1 : 1;
      const x = a[1];
      const y = b[1];
      if (typeof x === 'number' && typeof y === 'number') {
        if (x < y) return -1;
        if (x > y) return 1;
        if (x !== y) {
          const c = compareValues(x, y);
          if (c !== 0) return c;
        }
      } else {
        const c = compareSlot(x, y, scope);
        if (c !== 0) return c;
      }
      const p = a[2] as number;
      const q = b[2] as number;
      return p < q ? -1 : p > q ? 1 : 0;
    };
  }
  return (a, b) => {
    for (let i = 0, j = 0; i < n; i++, j += 2) {
      const ra = a[j] as number;
      const rb = b[j] as number;
      let c: number;
      if (ra !== rb) {
        c = ra < rb ? -1 : 1;
      } else {
        const x = a[j + 1];
        const y = b[j + 1];
        if (typeof x === 'number' && typeof y === 'number') {
          c = x < y ? -1 : x > y ? 1 : x === y ? 0 : compareValues(x, y);
        } else {
          c = compareSlot(x, y, i < binaryFields ? null : scope);
        }
      }
      if (c !== 0) return directions[i] < 0 ? -c : c;
    }
    const x = a[last] as number;
    const y = b[last] as number;
    return x < y ? -1 : x > y ? 1 : 0;
  };
}

/** Value-space comparison that understands KeyBound (the planner's interval arithmetic). */
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
