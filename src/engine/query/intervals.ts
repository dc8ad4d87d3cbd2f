/**
 * Index intervals of query predicates: what range of one field's values a clause (`5`, `{$gt: 5}`,
 * `{$in: [...]}`, a regex) can match, in value order, following mongod's type bracketing ($gt: 5
 * scans numbers only). Shared by the planner and the wildcard planner; the matcher re-checks every
 * document, so an interval only needs to hold every match.
 */
import { regexIntervals, regexSource } from './regex-bounds';
import { compareKeyPart, KeyBound, MAX_BOUND, MIN_BOUND } from '../indexes/key-order';
import { bsonTypeOf, canonicalRank, isPlainObject, type Document } from '../values/types';

/** A closed interval of one field's values, in value order (before direction is applied). */
export interface Interval {
  low: unknown;
  lowInclusive: boolean;
  high: unknown;
  highInclusive: boolean;
  /** Both bounds are met by one array element (a regex's prefix range), so a multikey index keeps them tight. */
  oneElement?: boolean;
}

const RANGE_OPS = new Set(['$gt', '$gte', '$lt', '$lte']);

function indexableValue(v: unknown): boolean {
  const t = bsonTypeOf(v);
  return (
    t !== 'array' &&
    t !== 'regex' &&
    t !== 'undefined' &&
    t !== 'minKey' &&
    t !== 'maxKey' &&
    !(t === 'object' && Object.keys(v as Document).some((k) => k.startsWith('$')))
  );
}

export function point(v: unknown): Interval {
  return { low: v, lowInclusive: true, high: v, highInclusive: true };
}

export function clauseIntervals(clause: unknown): Interval[] | undefined {
  const isOperatorObject =
    isPlainObject(clause) && Object.keys(clause).length > 0 && Object.keys(clause).every((k) => k.startsWith('$'));
  if (!isOperatorObject) {
    if (bsonTypeOf(clause) === 'regex') {
      const r = regexSource(clause);
      return r && regexIntervals(r.pattern, r.flags);
    }
    return indexableValue(clause) ? [point(clause)] : undefined;
  }
  const ops = clause;
  let result: Interval[] | undefined;
  const add = (ivs: Interval[]) => {
    result = result ? intersect(result, ivs) : ivs;
  };
  for (const [op, operand] of Object.entries(ops)) {
    if (op === '$regex') {
      const r = regexSource(operand, ops.$options);
      if (r) add(regexIntervals(r.pattern, r.flags));
    } else if (op === '$eq' && indexableValue(operand)) add([point(operand)]);
    // An empty $in matches nothing: no bounds at all, an index scan that reads no key (as mongod plans it).
    else if (op === '$in' && Array.isArray(operand) && operand.every(indexableValue)) {
      add(operand.map(point));
    } else if (op === '$ne' && operand === null) {
      // Every key but null's (a missing field's key too); the planner keeps it off array paths,
      // where one document has keys on both sides.
      add([
        { low: MIN_BOUND, lowInclusive: true, high: null, highInclusive: false },
        { low: null, lowInclusive: false, high: MAX_BOUND, highInclusive: true },
      ]);
    } else if (op === '$all' && Array.isArray(operand) && operand.length > 0 && operand.every(indexableValue)) {
      // Every match holds each element, so any one of them bounds the scan: mongod takes the first.
      add([point(operand[0])]);
    } else if (RANGE_OPS.has(op) && (bsonTypeOf(operand) === 'minKey' || bsonTypeOf(operand) === 'maxKey')) {
      add(extremeRange(op, operand));
    } else if (RANGE_OPS.has(op) && indexableValue(operand) && bsonTypeOf(operand) !== 'null') {
      // An embedded document compares field by field within its own type, like any other value.
      const rank = canonicalRank(operand);
      const low = op === '$gt' || op === '$gte';
      add([
        low
          ? { low: operand, lowInclusive: op === '$gte', high: new KeyBound(1, rank), highInclusive: true }
          : { low: new KeyBound(-1, rank), lowInclusive: true, high: operand, highInclusive: op === '$lte' },
      ]);
    }
  }
  return result;
}

/**
 * A range against MinKey or MaxKey spans every type: `$lt: MaxKey` holds every value (a missing
 * field's null too), `$gt: MaxKey` none, `$gte: MaxKey` only MaxKey itself. Like mongod, the
 * strict forms keep the inclusive bounds [MinKey, MaxKey]: the matcher re-checks fetched documents.
 */
function extremeRange(op: string, operand: unknown): Interval[] {
  const everything = { low: MIN_BOUND, lowInclusive: true, high: MAX_BOUND, highInclusive: true };
  if (bsonTypeOf(operand) === 'maxKey') {
    if (op === '$gt') return [];
    return op === '$gte' ? [point(operand)] : [everything];
  }
  if (op === '$lt') return [];
  return op === '$lte' ? [point(operand)] : [everything];
}

/** Intersection of two interval lists (each sorted or a single interval). */
export function intersect(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const x of a) {
    for (const y of b) {
      const lc = compareKeyPart(x.low, y.low);
      const low = lc > 0 || (lc === 0 && !x.lowInclusive) ? x : y;
      const hc = compareKeyPart(x.high, y.high);
      const high = hc < 0 || (hc === 0 && !x.highInclusive) ? x : y;
      const iv = { low: low.low, lowInclusive: low.lowInclusive, high: high.high, highInclusive: high.highInclusive };
      const c = compareKeyPart(iv.low, iv.high);
      if (c < 0 || (c === 0 && iv.lowInclusive && iv.highInclusive)) out.push(iv);
    }
  }
  return out;
}

/** The intervals sorted by low end, overlapping and repeated ones merged (an $in may repeat or disorder its values). */
export function sortedUnion(ivs: Interval[]): Interval[] {
  const sorted = [...ivs].sort(
    (a, b) => compareKeyPart(a.low, b.low) || (a.lowInclusive === b.lowInclusive ? 0 : a.lowInclusive ? -1 : 1),
  );
  const out: Interval[] = [];
  for (const iv of sorted) {
    const last = out[out.length - 1];
    if (last) {
      const c = compareKeyPart(iv.low, last.high);
      if (c < 0 || (c === 0 && (iv.lowInclusive || last.highInclusive))) {
        const h = compareKeyPart(iv.high, last.high);
        if (h > 0 || (h === 0 && iv.highInclusive))
          out[out.length - 1] = { ...last, high: iv.high, highInclusive: iv.highInclusive };
        continue;
      }
    }
    out.push(iv);
  }
  return out;
}
