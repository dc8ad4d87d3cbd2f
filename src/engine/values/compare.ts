/**
 * MongoDB's BSON comparison (BSONElement::woCompare): values of different types order by canonical
 * rank; within a type by value. Used by indexes, sort, the matcher and $min/$max. Strings (and
 * symbols) compare under the operation's collation when one is in force (collation/active.ts), else
 * as UTF-8 bytes; field names always compare as bytes.
 */
import type { Binary, BSONRegExp, Code, ObjectId, Timestamp } from 'bson';
import { activeCollation, type CollationScope } from '../collation/active';
import { compareNumbers } from './numbers';
import { bsonTypeOf, canonicalRank, isPlainObject, type Document } from './types';

/**
 * Strings compare as UTF-8 bytes in mongod. JS compares UTF-16 code units, which differs only when
 * a surrogate (U+D800..U+DFFF) meets a BMP character at or above U+E000; fix exactly that case.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      }
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function compareObjectIds(a: ObjectId, b: ObjectId): number {
  // bson 7 keeps an ObjectId as four 24-bit integers in byte order; fall back to bytes otherwise.
  const x = a as unknown as { i0?: number; i1: number; i2: number; i3: number };
  const y = b as unknown as { i0?: number; i1: number; i2: number; i3: number };
  if (x.i0 !== undefined && y.i0 !== undefined) {
    if (x.i0 !== y.i0) return x.i0 < y.i0 ? -1 : 1;
    if (x.i1 !== y.i1) return x.i1 < y.i1 ? -1 : 1;
    if (x.i2 !== y.i2) return x.i2 < y.i2 ? -1 : 1;
    if (x.i3 !== y.i3) return x.i3 < y.i3 ? -1 : 1;
    return 0;
  }
  return compareBytes(a.id, b.id);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length < 0 ? -1 : a.length > b.length ? 1 : 0;
}

function compareBinary(a: Binary, b: Binary): number {
  // Length first, then subtype, then bytes (mongod's BinData order).
  if (a.position !== b.position) return a.position < b.position ? -1 : 1;
  if (a.sub_type !== b.sub_type) return a.sub_type < b.sub_type ? -1 : 1;
  return compareBytes(a.buffer.subarray(0, a.position), b.buffer.subarray(0, b.position));
}

function regexParts(r: unknown): [string, string] {
  if (r instanceof RegExp) return [r.source, r.flags];
  const x = r as BSONRegExp;
  return [x.pattern, x.options];
}

function compareTimestamps(a: Timestamp, b: Timestamp): number {
  if (a.t !== b.t) return a.t < b.t ? -1 : 1;
  return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
}

/** Compare two documents element by element: type rank, then field name, then value. */
export function compareDocuments(a: Document, b: Document): number {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const n = Math.min(ka.length, kb.length);
  for (let i = 0; i < n; i++) {
    const va = a[ka[i]];
    const vb = b[kb[i]];
    const ra = canonicalRank(va);
    const rb = canonicalRank(vb);
    if (ra !== rb) return ra < rb ? -1 : 1;
    const c = compareStrings(ka[i], kb[i]);
    if (c !== 0) return c;
    const v = compareValues(va, vb);
    if (v !== 0) return v;
  }
  return ka.length < kb.length ? -1 : ka.length > kb.length ? 1 : 0;
}

function compareArrays(a: unknown[], b: unknown[]): number {
  // An array compares as the document {"0": a[0], "1": a[1], ...}; the names are equal pairwise.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ra = canonicalRank(a[i]);
    const rb = canonicalRank(b[i]);
    if (ra !== rb) return ra < rb ? -1 : 1;
    const v = compareValues(a[i], b[i]);
    if (v !== 0) return v;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Total order over BSON values; returns -1, 0 or 1. */
export function compareValues(a: unknown, b: unknown): number {
  // Fast paths for the values that dominate index keys.
  if (typeof a === 'number' && typeof b === 'number') {
    if (a < b) return -1;
    if (a > b) return 1;
    if (a === b) return 0;
    return compareNumbers(a, b);
  }
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
    if (a instanceof Date && b instanceof Date) {
      const x = a.getTime();
      const y = b.getTime();
      return x < y ? -1 : x > y ? 1 : 0;
    }
    if (
      (a as { _bsontype?: string })._bsontype === 'ObjectId' &&
      (b as { _bsontype?: string })._bsontype === 'ObjectId'
    ) {
      return compareObjectIds(a as ObjectId, b as ObjectId);
    }
  }
  if (typeof a === 'string' && typeof b === 'string') {
    const scope = activeCollation.scope;
    return scope === null ? compareStrings(a, b) : scope.collator.compare(a, b);
  }
  const ra = canonicalRank(a);
  const rb = canonicalRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case -1:
    case 0:
    case 5:
    case 100:
      return 0;
    case 10:
      return compareNumbers(a, b);
    case 15: {
      const x = String(symbolOrString(a));
      const y = String(symbolOrString(b));
      const scope = activeCollation.scope;
      return scope === null ? compareStrings(x, y) : scope.collator.compare(x, y);
    }
    case 20:
      return compareDocuments(a as Document, b as Document);
    case 25:
      return compareArrays(a as unknown[], b as unknown[]);
    case 30:
      return compareBinary(a as Binary, b as Binary);
    case 35:
      return compareObjectIds(a as ObjectId, b as ObjectId);
    case 40:
      return a === b ? 0 : a ? 1 : -1;
    case 45: {
      const x = (a as Date).getTime();
      const y = (b as Date).getTime();
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 47:
      return compareTimestamps(a as Timestamp, b as Timestamp);
    case 50: {
      const [pa, fa] = regexParts(a);
      const [pb, fb] = regexParts(b);
      return compareStrings(pa, pb) || compareStrings(fa, fb);
    }
    case 60:
    case 65:
      return compareStrings((a as Code).code, (b as Code).code);
  }
  return 0;
}

function symbolOrString(v: unknown): string {
  return typeof v === 'string' ? v : (v as { value: string }).value;
}

/**
 * compareValues under a given scope (null: binary) whatever the operation's collation: an index
 * orders its entries by its own collation.
 */
export function compareUnder(scope: CollationScope | null, a: unknown, b: unknown): number {
  const saved = activeCollation.scope;
  if (saved === scope) return compareValues(a, b);
  activeCollation.scope = scope;
  try {
    return compareValues(a, b);
  } finally {
    activeCollation.scope = saved;
  }
}

/** Equality in MongoDB's sense: 1, NumberInt(1), NumberLong(1) and 1.0 are equal. */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return compareValues(a, b) === 0;
}

/** True for a plain object or array: containers whose elements the path code descends into. */
export function isContainer(v: unknown): boolean {
  return Array.isArray(v) || isPlainObject(v);
}

export { bsonTypeOf };
