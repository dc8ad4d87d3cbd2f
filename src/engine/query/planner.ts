/**
 * Query planning: pick an index whose leading fields the filter constrains (equality or a range),
 * turn the predicates into entry-key ranges, and say whether the index order already satisfies the
 * sort. The full filter is always re-applied to fetched documents, so ranges only need to be a
 * superset of the matches; they follow mongod's type bracketing ($gt: 5 scans numbers only).
 */
import { naturalHintDirection } from './natural';
import { clauseIntervals, intersect, sortedUnion, type Interval } from './intervals';
import { wildcardCandidate } from './wildcard-plan';
import { EngineError } from '../errors';
import { currentCollator } from '../collation/active';
import type { Collection } from '../catalog/collection';
import type { BTreeIndex } from '../indexes/btree-index';
import { pathIsScalar } from '../indexes/multikey-paths';
import { compareKeyPart, encodeEntry, KeyBound, MAX_BOUND, MIN_BOUND, type EntryKey } from '../indexes/key-order';
import { valuesEqual } from '../values/compare';
import { setField } from '../values/fields';
import { formatValue } from '../values/format';
import { bsonTypeOf, canonicalRank, isPlainObject, type Document } from '../values/types';
import { checkTableScanAllowed } from './table-scan-policy';
import { filterAllows, indexFilterFor } from './index-filters';

export interface IndexPlan {
  kind: 'IXSCAN';
  index: BTreeIndex;
  /** [start, end] entry-key ranges in tree order, each inclusive (bounds encode exclusivity). */
  ranges: Array<[EntryKey, EntryKey]>;
  forward: boolean;
  /** Per key field, the intervals the ranges were built from (explain's bounds: `indexBounds`). */
  fieldIntervals: Interval[][];
  /**
   * When every field of a unique index is pinned to points: the key values of each range, in the
   * ranges' order, so the executor can look each one up instead of scanning.
   */
  points?: unknown[][];
  /** The index delivers documents in the requested sort order. */
  providesSort: boolean;
  /** Several ranges or a multikey index can yield a document twice. */
  needsDedupe: boolean;
  /** On a wildcard index: the field path scanned (key parts `$_path` and this path). */
  wildcardPath?: string;
  /**
   * Every key field's intervals when the bounds are not one key range (several intervals, or bounds
   * after a range): the executor then scans with checkedScan, which tests each key against them.
   */
  checked?: Interval[][];
}

/** A collection scan in natural order; `backward` for a `$natural: -1` hint. */
export type QueryPlan = { kind: 'COLLSCAN'; providesSort: false; backward?: boolean } | IndexPlan;

export interface PlanRequest {
  filter: Document;
  sort?: Document;
  hint?: unknown;
  /** With `collation` (the command's own, normalized by shapeCollation): the shape index filters are keyed by. */
  projection?: Document;
  collation?: Document;
}

/**
 * A predicate on an index path: from the filter itself, or from inside an `$elemMatch` on the path
 * or a prefix of it (`elemPath`), where it is met by one array element.
 */
interface Clause {
  value: unknown;
  elemPath?: string;
}

/** Predicates on one path that an index can use: a list of point values, or one interval. */
function predicatesFor(filter: Document, path: string): Interval[] | undefined {
  const clauses: Clause[] = [];
  collectClauses(filter, path, clauses);
  let result: Interval[] | undefined;
  for (const clause of clauses) {
    const intervals = clauseIntervals(clause.value);
    if (!intervals) continue;
    result = result ? intersect(result, intervals) : intervals;
  }
  return result;
}

/**
 * On a field that held arrays, two predicates may be met by different elements ({a: [4, 6]} meets
 * $gte: 5 and $lte: 5): their intervals must not be intersected. One predicate bounds the scan,
 * equality or $in first (the fewest keys), and the filter decides the rest.
 */
function multikeyPredicatesFor(
  filter: Document,
  path: string,
  arrayPaths: ReadonlySet<string>,
): Interval[] | undefined {
  const clauses: Clause[] = [];
  collectClauses(filter, path, clauses);
  let range: Interval[] | undefined;
  for (const clause of clauses) {
    for (const single of singlePredicates(clause.value)) {
      if (isNeNull(single) && !elementDecidesNull(clause, path, arrayPaths)) continue;
      const intervals = clauseIntervals(single);
      if (!intervals) continue;
      if (intervals.every(isPoint)) return intervals;
      range ??= intervals;
    }
  }
  return range;
}

function isNeNull(single: unknown): boolean {
  return isPlainObject(single) && Object.keys(single).length === 1 && single.$ne === null;
}

/**
 * `$ne: null` on an array path holds for a document whose array has one null element and one that
 * is not: its keys cannot tell. Inside an `$elemMatch` it is one element's own value, so the keys
 * decide it, unless arrays sit below the `$elemMatch`'s path (they would spread the element over
 * several keys again).
 */
function elementDecidesNull(clause: Clause, path: string, arrayPaths: ReadonlySet<string>): boolean {
  const elemPath = clause.elemPath;
  if (elemPath === undefined) return false;
  for (const arrayPath of arrayPaths)
    if (arrayPath.length > elemPath.length && (path === arrayPath || path.startsWith(`${arrayPath}.`))) return false;
  return true;
}

/** A clause split into its operators, each alone ($options stays with its $regex). */
function singlePredicates(clause: unknown): unknown[] {
  if (!isPlainObject(clause)) return [clause];
  const ops = Object.keys(clause);
  if (ops.length < 2 || !ops.every((k) => k.startsWith('$'))) return [clause];
  return ops
    .filter((op) => op !== '$options')
    .map((op) =>
      op === '$regex' && clause.$options !== undefined
        ? { $regex: clause.$regex, $options: clause.$options }
        : { [op]: clause[op] },
    );
}

function isOperatorObject(v: unknown): v is Document {
  return isPlainObject(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => k.startsWith('$'));
}

/**
 * The clauses on `path`: the filter's own, under `$and`, and inside an `$elemMatch` on the path
 * (its operators: `{a: {$elemMatch: {$gt: 1}}}`) or on a prefix (its sub-filter: `{arr:
 * {$elemMatch: {x: 5}}}` bounds `arr.x`). Every match meets them, so their bounds hold every match.
 */
function collectClauses(filter: Document, path: string, out: Clause[], elemPath?: string, prefix = ''): void {
  for (const [key, value] of Object.entries(filter)) {
    const full = prefix + key;
    if (key === '$and' && Array.isArray(value)) {
      for (const sub of value) if (isPlainObject(sub)) collectClauses(sub, path, out, elemPath, prefix);
      continue;
    }
    if (key.startsWith('$')) continue;
    const elemMatch = isOperatorObject(value) && isPlainObject(value.$elemMatch) ? value.$elemMatch : undefined;
    if (full === path) {
      out.push({ value, ...(elemPath !== undefined ? { elemPath } : {}) });
      if (elemMatch && isOperatorObject(elemMatch)) out.push({ value: elemMatch, elemPath: full });
    } else if (elemMatch && !isOperatorObject(elemMatch) && path.startsWith(`${full}.`)) {
      collectClauses(elemMatch, path, out, full, `${full}.`);
    }
  }
}

function allowsNull(intervals: Interval[]): boolean {
  return intervals.some((iv) => {
    const lo = compareKeyPart(iv.low, null);
    const hi = compareKeyPart(iv.high, null);
    return (lo < 0 || (lo === 0 && iv.lowInclusive)) && (hi > 0 || (hi === 0 && iv.highInclusive));
  });
}

/** Whether every clause of a partial filter appears verbatim in the query (so it implies it). */
function impliesPartialFilter(filter: Document, partial: Document): boolean {
  const clauses: Array<[string, unknown]> = [];
  const gather = (f: Document) => {
    for (const [k, v] of Object.entries(f)) {
      if (k === '$and' && Array.isArray(v)) v.forEach((s) => isPlainObject(s) && gather(s));
      else clauses.push([k, v]);
    }
  };
  gather(filter);
  const required: Array<[string, unknown]> = [];
  const gatherRequired = (f: Document) => {
    for (const [k, v] of Object.entries(f)) {
      if (k === '$and' && Array.isArray(v)) v.forEach((s) => isPlainObject(s) && gatherRequired(s));
      else required.push([k, v]);
    }
  };
  gatherRequired(partial);
  return required.every(
    ([k, v]) => clauses.some(([ck, cv]) => ck === k && valuesEqual(cv, v)) || rangeImplies(filter, k, v),
  );
}

const ONE_SIDED = new Set(['$gt', '$gte', '$lt', '$lte']);

/**
 * A partial filter's range clause (`{a: {$lte: 1.5}}`) holds for every match of the query when the
 * query's bounds on that path lie inside the clause's range: `{a: 1}` and `{a: {$lte: 1}}` imply
 * it, `{a: {$lt: 1.6}}` does not (mongod's bounds-based implication). Each side of the query's
 * bounds comes from a predicate some value (an element, for arrays) must meet, so a one-sided
 * range is implied whatever arrays hold; an equality needs the same clause verbatim.
 */
function rangeImplies(filter: Document, path: string, clause: unknown): boolean {
  if (!isPlainObject(clause) || Object.keys(clause).length === 0) return false;
  const queried = predicatesFor(filter, path);
  if (!queried || queried.length === 0) return false;
  return Object.entries(clause).every(([op, operand]) => {
    if (!ONE_SIDED.has(op)) return false;
    const allowed = clauseIntervals({ [op]: operand });
    if (!allowed || allowed.length !== 1) return false;
    const [range] = allowed;
    return queried.every((iv) => {
      const lo = compareKeyPart(iv.low, range.low);
      const hi = compareKeyPart(iv.high, range.high);
      const lowInside = lo > 0 || (lo === 0 && (range.lowInclusive || !iv.lowInclusive));
      const highInside = hi < 0 || (hi === 0 && (range.highInclusive || !iv.highInclusive));
      return lowInside && highInside;
    });
  });
}

interface Candidate {
  index: BTreeIndex;
  fieldIntervals: Interval[][];
  /** Bounds on the fields after `fieldIntervals`, for a checked scan (see trailingBounds). */
  trailing?: Interval[][];
  score: number;
  wildcardPath?: string;
  wildcardSort?: 0 | 1 | -1;
}

/**
 * An index orders strings by its own collation: it can bound a query that compares strings only
 * when the query's collation is the same (mongod's rule). Numbers, dates and the like order alike
 * under every collation.
 */
function collationFits(index: BTreeIndex): boolean {
  return index.collator === currentCollator();
}

function comparesStrings(iv: Interval): boolean {
  return collatable(iv.low) || collatable(iv.high);
}

function collatable(v: unknown): boolean {
  if (v instanceof KeyBound) return v.rank === 15 || v.rank === 20 || v.rank === 25;
  const t = bsonTypeOf(v);
  return t === 'string' || t === 'symbol' || t === 'object' || t === 'array';
}

function candidateFor(index: BTreeIndex, filter: Document, sort?: Document): Candidate | undefined {
  if (!index.queryable) return undefined;
  const fits = collationFits(index);
  if (index.isPartial && !impliesPartialFilter(filter, index.spec.partialFilterExpression as Document))
    return undefined;
  if (index.wildcard) {
    const w = wildcardCandidate(index, filter, sort);
    return (
      w && {
        index,
        fieldIntervals: w.fieldIntervals,
        score: w.score,
        wildcardPath: w.path,
        wildcardSort: w.sortDirection,
      }
    );
  }
  const fieldIntervals: Interval[][] = [];
  let score = 0;
  const earlier: string[] = [];
  for (const field of index.pattern.fields) {
    // A multikey index keys fields that meet the same array from one element at a time: bounds on
    // 'a.b' and 'a.c' together would miss a document matching them through different elements.
    if (index.multikey && earlier.some((p) => sharesArrayPrefix(p, field.path, index.multikeyPaths))) break;
    earlier.push(field.path);
    const fieldIsMultikey = index.multikey && !pathIsScalar(field.path, index.multikeyPaths);
    let ivs = fieldIsMultikey
      ? multikeyPredicatesFor(filter, field.path, index.multikeyPaths)
      : predicatesFor(filter, field.path);
    if (!ivs) break;
    if (!fits && ivs.some(comparesStrings)) break;
    // A regex matches bytes, not collation keys: under an index's collation its prefix range
    // means nothing, so it scans every string there (as mongod does).
    if (index.collator) ivs = ivs.map((iv) => (iv.oneElement ? allStrings() : iv));
    if (index.sparse && allowsNull(ivs)) break;
    const isPoints = ivs.every((iv) => iv.lowInclusive && iv.highInclusive && compareKeyPart(iv.low, iv.high) === 0);
    if (fieldIsMultikey && !isPoints) {
      // On a multikey index two bounds may be met by different elements: keep one side only.
      fieldIntervals.push(ivs.map(loosenForMultikey));
      score += 1;
      break;
    }
    fieldIntervals.push(ivs);
    score += isPoints ? 3 : 1;
    if (!isPoints) break;
  }
  if (fieldIntervals.length === 0) return undefined;
  if (index.unique && fieldIntervals.length === index.fieldCount) score += 2;
  score -= index.fieldCount * 0.01;
  const trailing = fits && !index.multikey && !index.collator ? trailingBounds(index, filter, fieldIntervals) : [];
  return { index, fieldIntervals, score, ...(trailing.length > 0 ? { trailing } : {}) };
}

const EVERY_KEY: Interval = { low: MIN_BOUND, lowInclusive: true, high: MAX_BOUND, highInclusive: true };

/**
 * Bounds on the key fields after the first that is not pinned to points (or not bounded at all):
 * they make no key range, but a scan that checks each key against them skips what they exclude
 * (mongod bounds every field it can). Unbounded fields between take every key; none past the last
 * bounded one are kept.
 */
function trailingBounds(index: BTreeIndex, filter: Document, leading: Interval[][]): Interval[][] {
  const out: Interval[][] = [];
  let lastBounded = -1;
  for (let i = leading.length; i < index.fieldCount; i++) {
    const ivs = predicatesFor(filter, index.pattern.fields[i].path);
    if (ivs && !(index.sparse && allowsNull(ivs))) {
      out.push(sortedUnion(ivs));
      lastBounded = out.length - 1;
    } else out.push([EVERY_KEY]);
  }
  return out.slice(0, lastBounded + 1);
}

/** Whether the two paths have a common prefix that holds arrays (their keys pair up per element). */
function sharesArrayPrefix(a: string, b: string, arrayPaths: ReadonlySet<string>): boolean {
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.min(pa.length, pb.length) && pa[i] === pb[i]; i++)
    if (arrayPaths.has(pa.slice(0, i + 1).join('.'))) return true;
  return false;
}

function allStrings(): Interval {
  return { low: '', lowInclusive: true, high: new KeyBound(1, canonicalRank('')), highInclusive: true };
}

function loosenForMultikey(iv: Interval): Interval {
  // A high end that is already a type's or the index's end keeps its reach (`(null, MaxKey]`).
  if (iv.low instanceof KeyBound || iv.high instanceof KeyBound || iv.oneElement) return iv;
  const rank = canonicalRank(iv.low);
  return { low: iv.low, lowInclusive: iv.lowInclusive, high: new KeyBound(1, rank), highInclusive: true };
}

export function findHinted(coll: Collection, hint: unknown): BTreeIndex {
  for (const index of coll.indexes.values()) {
    if (typeof hint === 'string' ? index.name === hint : isPlainObject(hint) && valuesEqual(index.spec.key, hint)) {
      if (index.hidden)
        throw new EngineError(
          'BadValue',
          `hint provided does not correspond to an existing index: '${index.name}' is hidden. Unhide it with collMod (index: {name: "${index.name}", hidden: false}) to use it.`,
        );
      if (index.queryable) return index;
    }
  }
  throw new EngineError(
    'BadValue',
    `hint provided does not correspond to an existing index: ${typeof hint === 'string' ? hint : JSON.stringify(hint)}. List the indexes with getIndexes().`,
  );
}

/** Whether walking `index` forward (1) or backward (-1) yields the sort order, else 0. */
export function sortDirection(index: BTreeIndex, sort: Document | undefined, equalityPrefix: number): 0 | 1 | -1 {
  if (!sort || index.sparse || index.isPartial || !collationFits(index)) return 0;
  const sortFields = Object.entries(sort);
  if (sortFields.length === 0) return 0;
  // An array field has no one place in index order; a field beside it, never an array, still has.
  if (index.multikey && sortFields.some(([path]) => !pathIsScalar(path, index.multikeyPaths))) return 0;
  const fields = index.pattern.fields;
  let dir: 0 | 1 | -1 = 0;
  let j = 0;
  for (let i = 0; i < fields.length && j < sortFields.length; i++) {
    const [path, d] = sortFields[j];
    if (fields[i].path !== path) {
      if (i < equalityPrefix) continue;
      return 0;
    }
    const want = Number(d) < 0 ? -1 : 1;
    const f = fields[i].direction === -1 ? -1 : 1;
    const thisDir = want === f ? 1 : -1;
    if (dir !== 0 && dir !== thisDir) return 0;
    dir = thisDir;
    j++;
  }
  return j === sortFields.length ? dir : 0;
}

export function planQuery(coll: Collection, request: PlanRequest): QueryPlan {
  const plan = choosePlan(coll, request);
  if (plan.kind === 'COLLSCAN') checkTableScanAllowed(coll.dbName, coll.name, request.filter);
  return plan;
}

/**
 * The indexes of mongod's OR plan for a filter that is one `$or` (its subplanner plans each branch
 * on its own and unions index scans), or undefined when some branch has no index and the whole
 * query is a collection scan.
 */
export function orBranchIndexes(coll: Collection, filter: Document | undefined): BTreeIndex[] | undefined {
  const keys = filter ? Object.keys(filter) : [];
  if (keys.length !== 1 || keys[0] !== '$or' || !Array.isArray(filter!.$or)) return undefined;
  const indexes: BTreeIndex[] = [];
  for (const branch of filter!.$or as unknown[]) {
    if (!isPlainObject(branch)) return undefined;
    const plan = choosePlan(coll, { filter: branch });
    if (plan.kind !== 'IXSCAN') return undefined;
    indexes.push(plan.index);
  }
  return indexes;
}

function choosePlan(coll: Collection, request: PlanRequest): QueryPlan {
  const filter = request.filter;
  const indexFilter = indexFilterOf(coll, request);
  // An index filter overrides the hint (mongod ignores a hint when a filter exists for the shape),
  // and an empty hint document is no hint, as mongod parses it.
  const hint =
    indexFilter || (isPlainObject(request.hint) && Object.keys(request.hint).length === 0) ? undefined : request.hint;
  const usable = (index: BTreeIndex) => !indexFilter || filterAllows(indexFilter, index);
  if (hint !== undefined && !(isPlainObject(hint) && hint.$natural !== undefined)) {
    const index = findHinted(coll, hint);
    const cand = candidateFor(index, filter, request.sort) ?? { index, fieldIntervals: [], score: 0 };
    if (index.wildcard && cand.wildcardPath === undefined)
      throw new EngineError(
        'BadValue',
        `hint provided does not correspond to an existing index: the wildcard index '${index.name}' holds no key for this query (it keys only fields that exist: use equality, a range, $in or $exists: true on one field it indexes), so hint another index or none.`,
      );
    return buildIndexPlan(cand, request.sort);
  }
  if (hint !== undefined)
    return naturalHintDirection(hint) === -1
      ? { kind: 'COLLSCAN', providesSort: false, backward: true }
      : { kind: 'COLLSCAN', providesSort: false };
  let best: Candidate | undefined;
  for (const cand of candidatesOf(coll, request, usable)) if (!best || cand.score > best.score) best = cand;
  if (best) return buildIndexPlan(best, request.sort);
  // No predicate fits, but an index may still deliver the requested order without a sort.
  if (request.sort) {
    for (const index of coll.indexes.values()) {
      if (
        usable(index) &&
        index.queryable &&
        !index.isPartial &&
        !index.sparse &&
        sortDirection(index, request.sort, 0) !== 0
      ) {
        return buildIndexPlan({ index, fieldIntervals: [], score: 0 }, request.sort);
      }
    }
  }
  return { kind: 'COLLSCAN', providesSort: false };
}

function candidatesOf(coll: Collection, request: PlanRequest, usable: (index: BTreeIndex) => boolean): Candidate[] {
  const out: Candidate[] = [];
  for (const index of coll.indexes.values()) {
    const cand = usable(index) ? candidateFor(index, request.filter, request.sort) : undefined;
    if (cand) out.push(cand);
  }
  return out;
}

function indexFilterOf(coll: Collection, request: PlanRequest) {
  return indexFilterFor(coll, {
    filter: request.filter,
    sort: request.sort,
    projection: request.projection,
    collation: request.collation,
  });
}

export interface WeighedPlans {
  /** The names of the indexes that could answer the query (what mongod's plan cache key tells apart). */
  usableIndexNames: string[];
  /** The plans weighed against the winner and not picked; none under a hint. */
  rejected: IndexPlan[];
}

/**
 * What planning weighed for this query besides `winner`: one candidate per index that could answer
 * it, with these values (a sparse index serves `{x: 3}`, not `{x: null}`).
 */
export function weighedPlans(coll: Collection, request: PlanRequest, winner: QueryPlan): WeighedPlans {
  const indexFilter = indexFilterOf(coll, request);
  const candidates = candidatesOf(coll, request, (index) => !indexFilter || filterAllows(indexFilter, index));
  const hinted =
    !indexFilter &&
    request.hint !== undefined &&
    !(isPlainObject(request.hint) && Object.keys(request.hint).length === 0);
  return {
    usableIndexNames: candidates.map((cand) => cand.index.name).sort(),
    rejected: hinted
      ? []
      : candidates
          .filter((cand) => winner.kind === 'COLLSCAN' || cand.index !== winner.index)
          .map((cand) => buildIndexPlan(cand, request.sort)),
  };
}

function buildIndexPlan(cand: Candidate, sort: Document | undefined): IndexPlan {
  const { index, fieldIntervals } = cand;
  const n = index.fieldCount;
  const equalityPrefix = fieldIntervals.filter((ivs) => ivs.length === 1 && isPoint(ivs[0])).length;
  const dir = cand.wildcardPath !== undefined ? (cand.wildcardSort ?? 0) : sortDirection(index, sort, equalityPrefix);
  const multiPoint = fieldIntervals.some((ivs) => ivs.length > 1);
  // Cartesian product of per-field intervals, each turned into an entry-key range in tree order.
  let combos: Interval[][] = [[]];
  for (const ivs of fieldIntervals) {
    const next: Interval[][] = [];
    for (const c of combos) for (const iv of ivs) next.push([...c, iv]);
    combos = next;
  }
  const cmp = index.compare;
  const pointLookup = index.unique && fieldIntervals.length === n && combos.every((c) => c.every(isPoint));
  const planned = combos.map((combo) => ({ range: rangeFor(index, combo, n), combo }));
  planned.sort((a, b) => cmp(a.range[0], b.range[0]));
  const checkable = !pointLookup && cand.wildcardPath === undefined && !index.collator;
  const checked =
    checkable && (cand.trailing !== undefined || planned.length > 1)
      ? [...fieldIntervals, ...(cand.trailing ?? [])]
      : undefined;
  return {
    kind: 'IXSCAN',
    index,
    ranges: planned.map((p) => p.range),
    forward: dir !== -1,
    fieldIntervals,
    ...(pointLookup ? { points: planned.map((p) => p.combo.map((iv) => iv.low)) } : {}),
    providesSort: dir !== 0 && !multiPoint,
    needsDedupe: planned.length > 1 || index.multikey,
    ...(cand.wildcardPath !== undefined ? { wildcardPath: cand.wildcardPath } : {}),
    ...(checked ? { checked: [...checked, ...new Array(n - checked.length).fill([EVERY_KEY])] } : {}),
  };
}

function isPoint(iv: Interval): boolean {
  return iv.lowInclusive && iv.highInclusive && compareKeyPart(iv.low, iv.high) === 0;
}

/** Explain's human-readable bounds, e.g. `{expireAt: ["[new Date(0), new Date(1000)]"]}`. */
export function indexBounds(plan: IndexPlan): Document {
  const bounds: Document = {};
  if (plan.wildcardPath !== undefined) {
    bounds.$_path = plan.fieldIntervals[0].map(describeInterval);
    setField(bounds, plan.wildcardPath, plan.fieldIntervals[1].map(describeInterval));
    return bounds;
  }
  plan.index.pattern.fields.forEach((f, i) => {
    const ivs = (plan.checked ?? plan.fieldIntervals)[i];
    bounds[f.path] = ivs ? ivs.map(describeInterval) : ['[MinKey, MaxKey]'];
  });
  return bounds;
}

function rangeFor(index: BTreeIndex, combo: Interval[], n: number): [EntryKey, EntryKey] {
  const start: EntryKey = [];
  const end: EntryKey = [];
  for (let i = 0; i < n; i++) {
    const asc = index.directions[i] === 1;
    const iv = combo[i];
    if (!iv) {
      // Unconstrained trailing field: everything, in tree order.
      start.push(asc ? MIN_BOUND : MAX_BOUND);
      end.push(asc ? MAX_BOUND : MIN_BOUND);
      continue;
    }
    const lo = iv.low;
    const hi = iv.high;
    if (asc) {
      start.push(lo);
      end.push(hi);
    } else {
      start.push(hi);
      end.push(lo);
    }
    // Exclusive ends: pad the remaining fields so the boundary value itself is skipped.
    const startExclusive = asc ? !iv.lowInclusive : !iv.highInclusive;
    const endExclusive = asc ? !iv.highInclusive : !iv.lowInclusive;
    if (startExclusive || endExclusive) {
      for (let j = i + 1; j < n; j++) {
        const a = index.directions[j] === 1;
        start.push(startExclusive ? (a ? MAX_BOUND : MIN_BOUND) : a ? MIN_BOUND : MAX_BOUND);
        end.push(endExclusive ? (a ? MIN_BOUND : MAX_BOUND) : a ? MAX_BOUND : MIN_BOUND);
      }
      start.push(startExclusive ? MAX_BOUND : MIN_BOUND);
      end.push(endExclusive ? MIN_BOUND : MAX_BOUND);
      return [encodeEntry(start), encodeEntry(end)];
    }
  }
  start.push(MIN_BOUND);
  end.push(MAX_BOUND);
  return [encodeEntry(start), encodeEntry(end)];
}

function describeInterval(iv: Interval): string {
  const show = (v: unknown, low: boolean) =>
    v instanceof KeyBound
      ? v.rank === undefined
        ? low
          ? 'MinKey'
          : 'MaxKey'
        : low
          ? `min(${typeNameOfRank(v.rank)})`
          : `max(${typeNameOfRank(v.rank)})`
      : formatValue(v);
  return `${iv.lowInclusive ? '[' : '('}${show(iv.low, true)}, ${show(iv.high, false)}${iv.highInclusive ? ']' : ')'}`;
}

function typeNameOfRank(rank: number): string {
  const names: Record<number, string> = {
    10: 'number',
    15: 'string',
    20: 'object',
    30: 'binData',
    35: 'objectId',
    40: 'bool',
    45: 'date',
    47: 'timestamp',
    50: 'regex',
  };
  return names[rank] ?? `type ${rank}`;
}
