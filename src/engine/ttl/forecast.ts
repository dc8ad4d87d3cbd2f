/**
 * The expiry forecast: how many documents a TTL rule makes eligible per time bucket from now to a
 * horizon, by the monitor's own rules (docs/ttl-rules.md §7): a document expires at its indexed
 * date plus expireAfterSeconds (7.7), an array at its earliest date (7.8), non-dates and missing
 * fields never (7.9), a partial index only for the documents it holds. It answers "what will this
 * index delete over the next day, and when?" — also for a value not set yet (a what-if), which is
 * what a Change expireAfterSeconds confirmation is about.
 *
 * A single-key TTL index is counted from the index alone: each bucket is one range count over the
 * B+ tree by its subtree sizes (indexes/btree-rank.ts), so 1M documents in 48 buckets cost 50
 * descents, not a scan. A multikey index walks its date entries once (a document counts once, at its earliest
 * date). A what-if partial filter, or a key with no index yet, builds the index it would be in a
 * scratch tree first. Clustered collections count their `_id` dates from 1970 on (5.4, 7.10); time
 * series count whole buckets (6.1, 6.2); the Cosmos flavor reads each document's `_ts` and `ttl`
 * (10.1–10.4).
 */
import type { Collection } from '../catalog/collection';
import { EngineError } from '../errors';
import { BTreeIndex } from '../indexes/btree-index';
import { countBetween } from '../indexes/btree-rank';
import { encodeEntry, KeyBound, MAX_BOUND, MIN_BOUND, type EntryKey } from '../indexes/key-order';
import { compileFilter } from '../query/matcher';
import { validatePartialFilterExpression } from '../query/partial-filter';
import { isPlainObject, type Document } from '../values/types';
import { cosmosCollectionTTL, cosmosExpiryMs, cosmosTimestampOf, isCosmosTimestampIndexSpec } from './cosmos';
import { timeseriesRuleBuckets } from './timeseries-target';
import {
  checkIndexExpireAfterSeconds,
  checkTimeseriesTTLIndex,
  effectiveExpireAfterSeconds,
  isTTLIndexSpec,
  ttlKeyIsUsable,
} from './validation';

/** Buckets a forecast may have. */
export const MAX_FORECAST_BUCKETS = 10_000;
export const DEFAULT_FORECAST_HORIZON_MS = 24 * 3600 * 1000;
export const DEFAULT_FORECAST_BUCKETS = 24;
/** The latest time a Date holds. */
const MAX_DATE_MS = 8.64e15;
const DATE_RANK = 45;
const OLDEST_DATE = new KeyBound(-1, DATE_RANK);
const NEWEST_DATE = new KeyBound(1, DATE_RANK);

export interface ForecastRequest {
  /** An index name or key pattern; left out, the collection's one TTL rule. */
  index?: string | Document;
  /** What-if: this value instead of the index's own (required for an index that is not TTL yet). */
  expireAfterSeconds?: unknown;
  /** What-if: the documents this filter selects, instead of the index's own partial filter. */
  partialFilterExpression?: Document;
  horizonMs?: number;
  buckets?: number;
}

export interface ForecastBucket {
  from: Date;
  to: Date;
  count: number;
}

export interface Forecast {
  /** The index name, `collection` for a clustered or time-series collection's own TTL, `_ts` for Cosmos. */
  index: string;
  kind: 'index' | 'clustered' | 'timeseries' | 'cosmos';
  /** The seconds the forecast used (the what-if value when one was given). */
  expireAfterSeconds: number | null;
  whatIf: boolean;
  now: Date;
  /** The end of the last bucket. */
  horizon: Date;
  bucketMs: number;
  /** Expiry time at or before now: eligible, not deleted yet (the monitor's next pass takes them). */
  dueNow: number;
  buckets: ForecastBucket[];
  /** Expiry time after the horizon. */
  later: number;
  /** Covered, but never expire (no date, `ttl: -1`, an `_id` before 1970, an index the monitor skips). */
  never: number;
  total: number;
  /** How the figures were reached, where that is not the index's own entries. */
  notes: string[];
}

function badValue(message: string): EngineError {
  return new EngineError('BadValue', message);
}

/** Validated horizon and bucket count (also for a forecast computed on a server: the same refusals). */
export function forecastShape(request: ForecastRequest): { horizonMs: number; buckets: number } {
  const horizonMs = request.horizonMs ?? DEFAULT_FORECAST_HORIZON_MS;
  const buckets = request.buckets ?? DEFAULT_FORECAST_BUCKETS;
  if (typeof horizonMs !== 'number' || !Number.isFinite(horizonMs) || horizonMs <= 0)
    throw badValue(
      `The forecast's horizon must be a positive duration, e.g. "24h" or "7d" (got ${String(horizonMs)} ms).`,
    );
  if (horizonMs > 100 * 365 * 24 * 3600 * 1000)
    throw badValue('The forecast looks at most 100 years ahead: use a shorter horizon.');
  if (!Number.isInteger(buckets) || buckets < 1 || buckets > MAX_FORECAST_BUCKETS)
    throw badValue(
      `The forecast's buckets must be a whole number from 1 to ${MAX_FORECAST_BUCKETS} (got ${String(buckets)}).`,
    );
  return { horizonMs, buckets };
}

/** Counts expiry times into dueNow / buckets / later. */
class Tally {
  dueNow = 0;
  later = 0;
  readonly counts: number[];
  readonly bucketMs: number;
  constructor(
    readonly now: number,
    readonly horizonMs: number,
    buckets: number,
  ) {
    this.counts = new Array<number>(buckets).fill(0);
    this.bucketMs = horizonMs / buckets;
  }
  /** Bucket i holds expiry times in (from_i, to_i]. */
  add(expiresMs: number, n = 1): void {
    if (expiresMs <= this.now) this.dueNow += n;
    else if (expiresMs > this.now + this.horizonMs) this.later += n;
    else {
      const i = Math.min(this.counts.length - 1, Math.ceil((expiresMs - this.now) / this.bucketMs) - 1);
      this.counts[Math.max(0, i)] += n;
    }
  }
  bounds(i: number): { from: number; to: number } {
    const last = i === this.counts.length - 1;
    return {
      from: this.now + i * this.bucketMs,
      to: last ? this.now + this.horizonMs : this.now + (i + 1) * this.bucketMs,
    };
  }
}

function result(
  base: Pick<Forecast, 'index' | 'kind' | 'expireAfterSeconds' | 'whatIf'>,
  tally: Tally,
  never: number,
  notes: string[],
): Forecast {
  const buckets = tally.counts.map((count, i) => {
    const { from, to } = tally.bounds(i);
    return { from: new Date(from), to: new Date(to), count };
  });
  const total = tally.dueNow + tally.later + never + tally.counts.reduce((a, b) => a + b, 0);
  return {
    ...base,
    now: new Date(tally.now),
    horizon: new Date(tally.now + tally.horizonMs),
    bucketMs: tally.bucketMs,
    dueNow: tally.dueNow,
    buckets,
    later: tally.later,
    never,
    total,
    notes,
  };
}

/** `ttl.forecast(...)`: the collection's expiry forecast at `nowMs`. */
export function forecastExpiry(
  collection: Collection,
  request: ForecastRequest,
  nowMs: number,
  flavor: 'mongodb' | 'cosmos' = 'mongodb',
): Forecast {
  const { horizonMs, buckets } = forecastShape(request);
  const whatIf = request.expireAfterSeconds !== undefined;
  // Stryker disable next-line StringLiteral: the version only words a refusal and picks the stored form; `.seconds` is the same for every version
  const whatIfSeconds = whatIf ? checkIndexExpireAfterSeconds(request.expireAfterSeconds, '8.0').seconds : undefined;
  if (request.partialFilterExpression !== undefined) {
    if (!isPlainObject(request.partialFilterExpression))
      throw badValue('partialFilterExpression must be a query document, e.g. { status: "done" }.');
    validatePartialFilterExpression(request.partialFilterExpression);
  }
  const tally = new Tally(nowMs, horizonMs, buckets);

  if (request.index === undefined) {
    if (flavor === 'cosmos' && cosmosCollectionTTL(collection)) return cosmosForecast(collection, tally, whatIfSeconds);
    if (collection.options.timeseries && collection.options.expireAfterSeconds !== undefined)
      return timeseriesForecast(collection, undefined, request, tally, whatIfSeconds);
    if (collection.isClustered && collection.options.expireAfterSeconds !== undefined)
      return clusteredForecast(collection, tally, whatIfSeconds);
    const ttl = [...collection.indexes.values()].filter((i) => isTTLIndexSpec(i.spec));
    if (ttl.length !== 1)
      throw new EngineError(
        ttl.length ? 'BadValue' : 'IndexNotFound',
        ttl.length
          ? `${collection.ns} has ${ttl.length} TTL indexes (${ttl.map((i) => i.name).join(', ')}): name one with { index: "<name>" }.`
          : `${collection.ns} has no TTL index: name an index or a key ({ index: { createdAt: 1 } }) and give expireAfterSeconds to see what it would delete.`,
      );
    // A time series' one TTL index deletes whole buckets (rule 6.4), as when it is named.
    if (collection.options.timeseries)
      return timeseriesForecast(collection, ttl[0].name, request, tally, whatIfSeconds);
    return indexForecast(collection, ttl[0], request, tally, whatIfSeconds, flavor);
  }
  const index = findIndex(collection, request.index);
  // A TTL index of a time series deletes whole buckets whose meta its filter selects (rule 6.4), and
  // so would a plain one made TTL: a what-if counts its buckets too, never single measurements.
  if (index && collection.options.timeseries && (isTTLIndexSpec(index.spec) || whatIfSeconds !== undefined)) {
    if (!isTTLIndexSpec(index.spec)) checkTimeseriesWhatIf(collection, index.name, index.spec);
    return timeseriesForecast(collection, index.name, request, tally, whatIfSeconds);
  }
  if (index) return indexForecast(collection, index, request, tally, whatIfSeconds, flavor);
  if (typeof request.index === 'string')
    throw new EngineError(
      'IndexNotFound',
      `${collection.ns} has no index named "${request.index}" (it has ${[...collection.indexes.keys()].join(', ') || 'none'}). Name one of these, or give a key pattern and expireAfterSeconds for an index not created yet.`,
    );
  // A key with no index: the one createIndex would build, in a scratch tree.
  if (whatIfSeconds === undefined)
    throw badValue(
      `${collection.ns} has no index on ${JSON.stringify(request.index)}: give expireAfterSeconds to forecast the TTL index it would be.`,
    );
  if (collection.options.timeseries) {
    // Its buckets are only known for an index that exists (rule 6.4): refused as createIndex would
    // refuse it, or else asked to exist first.
    const spec = { key: request.index, partialFilterExpression: request.partialFilterExpression };
    checkTimeseriesWhatIf(collection, 'the proposed index', spec);
    throw badValue(
      `${collection.ns} is a time-series collection, whose TTL index deletes whole buckets (rule 6.4): create the index without expireAfterSeconds first, then forecast it by name with expireAfterSeconds.`,
    );
  }
  const proposed = scratchIndex(
    collection,
    { v: 2, key: request.index, name: 'proposed' },
    request.partialFilterExpression,
  );
  return indexForecast(
    collection,
    proposed,
    // Stryker disable next-line ObjectLiteral: indexForecast reads only the request's partialFilterExpression, undefined either way
    { ...request, partialFilterExpression: undefined },
    tally,
    whatIfSeconds,
    flavor,
    ['no index holds this key yet: the documents were read to build the one it would be'],
  );
}

function findIndex(collection: Collection, wanted: string | Document): BTreeIndex | undefined {
  if (typeof wanted === 'string') return collection.indexes.get(wanted);
  if (!isPlainObject(wanted)) throw badValue('index must be an index name or a key pattern, e.g. { createdAt: 1 }.');
  const want = Object.entries(wanted)
    .map(([k, v]) => `${k}:${Number(v)}`)
    .join(',');
  for (const index of collection.indexes.values()) {
    const key = Object.entries(index.spec.key as Document)
      .map(([k, v]) => `${k}:${Number(v)}`)
      .join(',');
    if (key === want) return index;
  }
  return undefined;
}

/** Rule 6.4: refuses, as createIndex would, a time series' index spec that cannot be a TTL index. */
function checkTimeseriesWhatIf(collection: Collection, name: string, spec: Document): void {
  const usable = ttlKeyIsUsable(spec.key as Document);
  if (!usable.usable)
    throw new EngineError(
      'CannotCreateIndex',
      `${name} on ${JSON.stringify(spec.key)} cannot be a TTL index: TTL indexes are single-field indexes on a date field (${usable.reason}).`,
    );
  checkTimeseriesTTLIndex(spec, Object.keys(spec.key as Document), collection.options.timeseries!);
}

function scratchIndex(collection: Collection, spec: Document, partialFilter: Document | undefined): BTreeIndex {
  const usable = ttlKeyIsUsable(spec.key as Document);
  if (!usable.usable)
    throw new EngineError(
      'CannotCreateIndex',
      `A TTL index on ${JSON.stringify(spec.key)} cannot be created: TTL indexes are single-field indexes on a date field (${usable.reason}).`,
    );
  const index = new BTreeIndex(
    partialFilter ? { ...spec, partialFilterExpression: partialFilter } : spec,
    partialFilter ? compileFilter(partialFilter) : undefined,
  );
  index.load(collection.records.values());
  return index;
}

function indexForecast(
  collection: Collection,
  given: BTreeIndex,
  request: ForecastRequest,
  tally: Tally,
  whatIfSeconds: number | undefined,
  flavor: 'mongodb' | 'cosmos',
  notes: string[] = [],
): Forecast {
  if (flavor === 'cosmos' && isCosmosTimestampIndexSpec(given.spec))
    return cosmosForecast(collection, tally, whatIfSeconds);
  const usable = ttlKeyIsUsable(given.spec.key as Document);
  if (!usable.usable)
    throw new EngineError(
      'CannotCreateIndex',
      `${given.name} on ${JSON.stringify(given.spec.key)} cannot be a TTL index: TTL indexes are single-field indexes on a date field (${usable.reason}). Forecast a single-field index instead.`,
    );
  if (whatIfSeconds === undefined && !isTTLIndexSpec(given.spec))
    throw badValue(`${given.name} is not a TTL index: give expireAfterSeconds to see what it would delete as one.`);
  const base = {
    index: given.name,
    kind: 'index' as const,
    whatIf: whatIfSeconds !== undefined || request.partialFilterExpression !== undefined,
  };
  let index = given;
  if (request.partialFilterExpression !== undefined) {
    const { partialFilterExpression: _old, ...spec } = given.spec;
    index = scratchIndex(collection, spec, request.partialFilterExpression);
    notes = [...notes, 'the what-if partial filter was applied by reading the documents'];
  }
  const seconds = whatIfSeconds ?? effectiveExpireAfterSeconds(given.spec.expireAfterSeconds);
  if (seconds === undefined) {
    // Rule 7.6: the monitor skips an index whose stored value is invalid: nothing it holds expires.
    return result({ ...base, expireAfterSeconds: null }, tally, distinctDocuments(collection, index), [
      ...notes,
      `the monitor skips this index (its expireAfterSeconds ${String(given.spec.expireAfterSeconds)} is NaN, negative or beyond int32): nothing expires until it is changed`,
    ]);
  }
  const offsetMs = seconds * 1000;
  const dated = index.multikey
    ? tallyMultikey(collection, index, tally, offsetMs)
    : tallyRanges(index, tally, offsetMs);
  return result({ ...base, expireAfterSeconds: seconds }, tally, distinctDocuments(collection, index) - dated, notes);
}

/** A date bound for range ends, clamped to what a Date holds. */
function dateAt(ms: number): Date {
  return new Date(Math.max(-MAX_DATE_MS, Math.min(MAX_DATE_MS, ms)));
}

/**
 * The tree range of the entries with a date in (lo, hi] and at or after `fromMs` (lo undefined:
 * from the oldest date; hi undefined: to the newest), in either direction of index; undefined when
 * it is empty. The rid slot's MIN/MAX bounds make every end exact.
 */
function dateRange(
  index: BTreeIndex,
  lo: number | undefined,
  hi: number | undefined,
  fromMs: number,
): [EntryKey, EntryKey] | undefined {
  if (hi !== undefined && hi < fromMs) return undefined;
  // The low end: exclusive at lo, or inclusive at fromMs (or the oldest date) when that is later.
  const lowIncluded = lo === undefined || lo < fromMs;
  const low = !lowIncluded ? dateAt(lo) : fromMs === -Infinity ? OLDEST_DATE : dateAt(fromMs);
  const high = hi === undefined ? NEWEST_DATE : dateAt(hi);
  return index.directions[0] === 1
    ? [encodeEntry([low, lowIncluded ? MIN_BOUND : MAX_BOUND]), encodeEntry([high, MAX_BOUND])]
    : [encodeEntry([high, MIN_BOUND]), encodeEntry([low, lowIncluded ? MAX_BOUND : MIN_BOUND])];
}

/**
 * Counts the entries of each expiry range in turn — due now, the buckets, after the horizon — with
 * `count` (expiry time T = date + offset, so T in (a, b] is a date in (a − offset, b − offset]).
 * Returns the dated documents.
 */
function tallyByRange(
  index: BTreeIndex,
  tally: Tally,
  offsetMs: number,
  fromMs: number,
  count: (range: [EntryKey, EntryKey]) => number,
): number {
  const counted = (lo: number | undefined, hi: number | undefined) => {
    const range = dateRange(index, lo, hi, fromMs);
    return range ? count(range) : 0;
  };
  const due = counted(undefined, tally.now - offsetMs);
  tally.dueNow += due;
  let dated = due;
  let lo = tally.now - offsetMs;
  for (let i = 0; i < tally.counts.length; i++) {
    const hi = tally.bounds(i).to - offsetMs;
    const n = counted(lo, hi);
    tally.counts[i] += n;
    dated += n;
    lo = hi;
  }
  const later = counted(lo, undefined);
  tally.later += later;
  return dated + later;
}

/** A single-key index: one range count per bucket, by subtree sizes. */
function tallyRanges(index: BTreeIndex, tally: Tally, offsetMs: number, fromMs = -Infinity): number {
  return tallyByRange(index, tally, offsetMs, fromMs, ([start, end]) => countBetween(index.tree, start, end));
}

/**
 * A multikey index: the ranges walked from the earliest expiry on, so a document is counted where
 * its first entry shows, which is its earliest date (rule 7.8); its later entries are passed over.
 */
function tallyMultikey(collection: Collection, index: BTreeIndex, tally: Tally, offsetMs: number): number {
  // Record ids are small and dense: a byte per id marks the documents counted (a Set of a million
  // ids cost most of the walk).
  const seen = new Uint8Array(collection.ridLimit + 1);
  return tallyByRange(index, tally, offsetMs, -Infinity, ([start, end]) => {
    let n = 0;
    index.tree.forRange(start, end, true, (_entry, record) => {
      if (seen[record.rid] === 1) return;
      seen[record.rid] = 1;
      n++;
    });
    return n;
  });
}

/** The documents an index holds (a multikey index holds some more than once). */
function distinctDocuments(collection: Collection, index: BTreeIndex): number {
  if (!index.multikey) return index.size;
  // Every document has at least one entry in an index that is neither partial nor sparse.
  if (!index.isPartial && !index.sparse) return collection.count;
  const rids = new Set<number>();
  index.tree.forEachPair((_k, record) => {
    rids.add(record.rid);
  });
  return rids.size;
}

/** Rules 5.4 / 7.10: the `_id` dates of a clustered collection, from 1970 on. */
function clusteredForecast(collection: Collection, tally: Tally, whatIfSeconds: number | undefined): Forecast {
  const stored = Number(collection.options.expireAfterSeconds);
  const seconds = whatIfSeconds ?? stored;
  const index = collection.idIndex;
  const base = {
    index: 'collection',
    kind: 'clustered' as const,
    expireAfterSeconds: seconds,
    whatIf: whatIfSeconds !== undefined,
  };
  // Stryker disable next-line StringLiteral,ArrayDeclaration: a clustered collection always has its _id_ index (dropIndexes refuses it), so this note is never written
  if (!index) return result(base, tally, collection.count, ['the collection has no clustered index']);
  const dated = tallyRanges(index, tally, seconds * 1000, 0);
  return result(base, tally, collection.count - dated, [
    '_id values that are not dates, or dates before 1970, never expire (rule 5.4)',
  ]);
}

/** The forecast's note on a time series: its figures are an estimate of mongod's buckets. */
export const TIMESERIES_ESTIMATE_NOTE =
  "an estimate of mongod's timing: measurements go with their whole bucket, when the bucket's earliest time is expireAfterSeconds + bucketMaxSpanSeconds old (rules 6.1, 6.2, 6.4); mongod's buckets may be cut differently";

/**
 * Rules 6.1 / 6.2 / 6.4: whole buckets go when their minimum time is expireAfterSeconds + maxSpan
 * old, by the collection's own rule or a partial TTL index's (the buckets whose meta it selects).
 */
function timeseriesForecast(
  collection: Collection,
  indexName: string | undefined,
  request: ForecastRequest,
  tally: Tally,
  whatIfSeconds: number | undefined,
): Forecast {
  if (request.partialFilterExpression !== undefined)
    throw badValue(
      `${collection.ns} is a time-series collection: a what-if partialFilterExpression cannot be forecast for it; forecast the index as it is, or with another expireAfterSeconds.`,
    );
  const rule = timeseriesRuleBuckets(collection, indexName, whatIfSeconds);
  const base = {
    index: indexName ?? 'collection',
    kind: 'timeseries' as const,
    whatIf: whatIfSeconds !== undefined,
  };
  // Skipped: every measurement stays. Otherwise a partial index covers the buckets its filter selects.
  if ('reason' in rule)
    return result({ ...base, expireAfterSeconds: whatIfSeconds ?? null }, tally, collection.count, [
      `the monitor skips this rule (${rule.reason}): nothing expires`,
    ]);
  let never = 0;
  for (const b of rule.buckets) {
    if (b.expiresMs === null) never += b.count;
    else tally.add(b.expiresMs, b.count);
  }
  return result({ ...base, expireAfterSeconds: rule.seconds }, tally, never, [TIMESERIES_ESTIMATE_NOTE]);
}

/** Rules 10.1–10.4: each document's `_ts` plus its own valid `ttl`, or the collection default. */
function cosmosForecast(collection: Collection, tally: Tally, whatIfSeconds: number | undefined): Forecast {
  const ttl = cosmosCollectionTTL(collection);
  const base = {
    index: ttl?.indexName ?? '_ts',
    kind: 'cosmos' as const,
    expireAfterSeconds: whatIfSeconds ?? ttl?.seconds ?? null,
    whatIf: whatIfSeconds !== undefined,
  };
  const defaultSeconds = whatIfSeconds ?? ttl?.seconds;
  let never = 0;
  for (const record of collection.records.values()) {
    const ts = cosmosTimestampOf(collection, record);
    const at = ts === undefined ? null : cosmosExpiryMs(record.doc, ts, defaultSeconds);
    if (at === null) never++;
    else tally.add(at);
  }
  return result(base, tally, never, [
    "each document's _ts (last write) plus its own ttl where valid, else the collection's default (rules 10.1–10.4); ttl: -1 never expires",
  ]);
}
