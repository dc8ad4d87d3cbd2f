/**
 * Time-series TTL (docs/ttl-rules.md rules 6.1–6.4, 7.10, 7.12). mongod deletes whole buckets of a
 * time-series collection, never single measurements:
 *
 * - collection-level `expireAfterSeconds` (6.1, 6.2, 7.10): a bounded scan of the buckets by their
 *   `_id` (the rounded minimum time) deletes every bucket with
 *   `0 <= bucketMinTime <= now − expireAfterSeconds − bucketMaxSpanSeconds`;
 * - a partial TTL index on the timeField (6.4), which mongod keeps on `control.min.<time>` of the
 *   buckets with the partialFilterExpression on the meta: the same bound with the index's
 *   `expireAfterSeconds`, for buckets whose meta matches the filter, so matching buckets can go
 *   sooner than the collection-level rule would take them;
 * - a collection flagged "requires extended range support" (6.3) is skipped by both.
 *
 * The monitor sees bucket documents, so `ttlIndexDeleteTargetDocs` bounds buckets per visit and
 * `metrics.ttl.deletedDocuments` counts buckets (7.12); the visit's `deleted` counts measurements,
 * which is what users see disappear. These targets remove records themselves (through
 * `collection.remove(record, 'ttl')`, so indexes, observers and events see ordinary TTL deletes)
 * and report the bucket count as `metricCount`.
 */
import { EJSON } from 'bson';
import type { Collection } from '../catalog/collection';
import type { StoredRecord } from '../catalog/record';
import {
  bucketMaxSpanSecondsOf,
  bucketsOf,
  type BucketView,
  type TimeseriesBuckets,
} from '../catalog/timeseries-buckets';
import type { EngineContext } from '../engine-context';
import { pendingInterrupt } from '../interrupt';
import { compileFilter } from '../query/matcher';
import { isPlainObject, type Document } from '../values/types';
import {
  BACKLOG_COUNT_LIMIT,
  NO_BACKLOG,
  type Backlog,
  type TTLTarget,
  type VisitBudget,
  type VisitOutcome,
} from './targets';
import { effectiveExpireAfterSeconds, isTTLIndexSpec, ttlKeyIsUsable } from './validation';

const EXTENDED_RANGE_REASON =
  'the time-series collection requires extended range support (a bucket starts before 1970 or after 2038-01-19T03:14:07Z): the TTL monitor skips the whole collection (rule 6.3)';

/**
 * Deletes buckets from the front of `view` (or of all buckets) while their minTime is at most
 * `thresholdMs` and at least `lowestMs`, within the budget. `maxDocs` counts buckets, the documents
 * of mongod's buckets collection; a bucket always goes whole.
 */
function deleteExpiredBuckets(
  buckets: TimeseriesBuckets,
  view: BucketView | undefined,
  lowestMs: number,
  thresholdMs: number,
  budget: VisitBudget,
): VisitOutcome {
  const started = performance.now();
  let bucketsDeleted = 0;
  let measurements = 0;
  const expired = () => {
    const oldest = buckets.oldest(view);
    return oldest && oldest.minTime >= lowestMs && oldest.minTime <= thresholdMs ? oldest : undefined;
  };
  for (;;) {
    const next = expired();
    if (!next) return { kind: 'done', deleted: measurements, metricCount: bucketsDeleted };
    if (budget.maxDocs > 0 && bucketsDeleted >= budget.maxDocs)
      return { kind: 'more', deleted: measurements, metricCount: bucketsDeleted };
    if (budget.maxMillis > 0 && bucketsDeleted > 0 && performance.now() - started >= budget.maxMillis) {
      return { kind: 'more', deleted: measurements, metricCount: bucketsDeleted };
    }
    // Between buckets: a bucket always goes whole.
    const interrupted = pendingInterrupt();
    if (interrupted) return { kind: 'more', deleted: measurements, metricCount: bucketsDeleted, interrupted };
    measurements += buckets.removeBucket(next.key, 'ttl');
    bucketsDeleted++;
  }
}

/** Rules 6.1, 6.2, 7.10: the collection's own expireAfterSeconds, bucket by bucket. */
export class TimeseriesCollectionTTLTarget implements TTLTarget {
  readonly label = 'collection';

  constructor(readonly collection: Collection) {}

  visit(budget: VisitBudget, _remove: (record: StoredRecord) => void): VisitOutcome {
    const rule = collectionRule(this.collection);
    if ('reason' in rule) return { kind: 'skipped', ...rule };
    return deleteExpiredBuckets(rule.buckets, rule.view, rule.lowestMs, rule.thresholdAt(budget.now), budget);
  }

  backlog(nowMs: number): Backlog {
    return ruleBacklog(collectionRule(this.collection), nowMs);
  }
}

/** Measurements in the buckets a rule would delete at `nowMs` (whole buckets, up to the limit). */
function ruleBacklog(rule: BucketRule | Skip, nowMs: number): Backlog {
  if ('reason' in rule) return NO_BACKLOG;
  const count = rule.buckets.countMeasurements(
    rule.view,
    rule.lowestMs - 1,
    rule.thresholdAt(nowMs),
    BACKLOG_COUNT_LIMIT,
  );
  return { count, atLeast: count >= BACKLOG_COUNT_LIMIT };
}

/**
 * What one time-series TTL rule deletes: buckets (of a view, or all) whose minTime lies in
 * `[lowestMs, thresholdAt(now)]`. Shared by the monitor's visits and the UI's counts, so both
 * read the rule the same way.
 */
interface BucketRule {
  buckets: TimeseriesBuckets;
  view: BucketView | undefined;
  lowestMs: number;
  seconds: number;
  spanSeconds: number;
  thresholdAt(nowMs: number): number;
}

type Skip = { reason: string; logId: number };

function timing(
  seconds: number,
  ts: NonNullable<Collection['options']['timeseries']>,
): Pick<BucketRule, 'seconds' | 'spanSeconds' | 'thresholdAt'> {
  const span = bucketMaxSpanSecondsOf(ts);
  return { seconds, spanSeconds: span, thresholdAt: (nowMs) => nowMs - (seconds + span) * 1000 };
}

/** Rules 6.1, 6.2, 7.10: the collection's own expireAfterSeconds. */
function collectionRule(collection: Collection): BucketRule | Skip {
  const ts = collection.options.timeseries;
  const buckets = bucketsOf(collection);
  if (!ts || !buckets) return { reason: 'not a time-series collection', logId: 0 };
  // Re-read at every visit: collMod {expireAfterSeconds: N | "off"} counts from the next one (rule 6.1).
  const stored = collection.options.expireAfterSeconds;
  if (stored === undefined) return { reason: 'expireAfterSeconds was removed', logId: 0 };
  const seconds = Number(stored);
  if (!Number.isFinite(seconds) || seconds < 0) return { reason: 'invalid time-series expireAfterSeconds', logId: 0 };
  if (buckets.requiresExtendedRange) return { reason: EXTENDED_RANGE_REASON, logId: 0 };
  // The scan of the buckets' ObjectId _ids starts at timestamp 0 (rule 7.10).
  return { buckets, view: undefined, lowestMs: 0, ...timing(seconds, ts) };
}

/** The view key of a partial TTL index: its name and its filter, so a recreated index starts afresh. */
function viewKeyOf(indexName: string, filter: unknown): string {
  return `${indexName}\u0000${filter === undefined ? '' : EJSON.stringify(filter, { relaxed: false })}`;
}

/** Rule 6.4: a partial TTL index on the timeField, applied to the buckets whose meta matches. */
export class TimeseriesIndexTTLTarget implements TTLTarget {
  constructor(
    readonly collection: Collection,
    private readonly indexName: string,
  ) {}

  get label(): string {
    return `index ${this.indexName}`;
  }

  visit(budget: VisitBudget, _remove: (record: StoredRecord) => void): VisitOutcome {
    const rule = indexRule(this.collection, this.indexName);
    if ('reason' in rule) return { kind: 'skipped', ...rule };
    return deleteExpiredBuckets(rule.buckets, rule.view, rule.lowestMs, rule.thresholdAt(budget.now), budget);
  }

  backlog(nowMs: number): Backlog {
    return ruleBacklog(indexRule(this.collection, this.indexName), nowMs);
  }
}

/**
 * Rule 6.4: a partial TTL index on the timeField, for the buckets whose meta matches its filter.
 * With `whatIfSeconds`, the index as it would delete with that value, TTL yet or not (a forecast).
 */
function indexRule(collection: Collection, indexName: string, whatIfSeconds?: number): BucketRule | Skip {
  const ts = collection.options.timeseries;
  const buckets = bucketsOf(collection);
  if (!ts || !buckets) return { reason: 'not a time-series collection', logId: 0 };
  // Rule 7.6: the index is re-checked at every visit.
  const index = collection.indexes.get(indexName);
  if (!index || (whatIfSeconds === undefined && !isTTLIndexSpec(index.spec)))
    return { reason: 'no longer a TTL index', logId: 0 };
  const key = index.spec.key as Record<string, unknown>;
  const usable = ttlKeyIsUsable(key);
  if (!usable.usable) return { reason: usable.reason, logId: usable.logId };
  if (Object.keys(key)[0] !== ts.timeField)
    return { reason: `TTL indexes on time-series collections must be on the timeField '${ts.timeField}'`, logId: 0 };
  const seconds = whatIfSeconds ?? effectiveExpireAfterSeconds(index.spec.expireAfterSeconds);
  if (seconds === undefined)
    return {
      reason: 'Skipping TTL job due to invalid index spec (expireAfterSeconds is NaN, negative or beyond int32)',
      logId: 6909100,
    };
  if (buckets.requiresExtendedRange) return { reason: EXTENDED_RANGE_REASON, logId: 0 };
  const view = viewOf(indexName, buckets, index.spec.partialFilterExpression, ts.metaField);
  if (typeof view === 'string') return { reason: view, logId: 0 };
  // An index scan has no lower bound (rule 7.8); extended-range buckets never get here (6.3).
  return { buckets, view, lowestMs: -Infinity, ...timing(seconds, ts) };
}

/** The buckets the partial index holds: those whose `{<metaField>: meta}` matches the filter. */
function viewOf(
  indexName: string,
  buckets: TimeseriesBuckets,
  filter: unknown,
  metaField: string | undefined,
): BucketView | string {
  const viewKey = viewKeyOf(indexName, filter);
  if (filter === undefined) return buckets.view(viewKey, () => true);
  if (!isPlainObject(filter)) return 'partialFilterExpression is not an object';
  let matches: (doc: Document) => boolean;
  try {
    matches = compileFilter(filter);
  } catch (err) {
    return `partialFilterExpression cannot be evaluated: ${(err as Error).message}`;
  }
  return buckets.view(viewKey, (hasMeta, meta) => {
    // The bucket document carries the meta under `meta`; the user's filter names the metaField.
    const doc: Document = hasMeta && metaField !== undefined ? { [metaField]: meta } : {};
    try {
      return matches(doc);
    } catch {
      return false;
    }
  });
}

export interface TimeseriesExpiryCounts {
  /** Measurements the next pass would delete (their buckets are past the rule's threshold). */
  expiredNow: number;
  /** Measurements whose buckets pass the threshold within the window after now. */
  dueWithinWindow: number;
}

/**
 * How many measurements a time-series TTL rule deletes now and within `windowSeconds`: the
 * collection's own expireAfterSeconds (no `indexName`) or a partial TTL index. Whole buckets
 * count, as the monitor deletes whole buckets. `{reason}` when the monitor skips the rule.
 */
export function timeseriesExpiryCounts(
  collection: Collection,
  indexName: string | undefined,
  nowMs: number,
  windowSeconds: number,
  cap = Infinity,
): TimeseriesExpiryCounts | { reason: string } {
  const rule = indexName === undefined ? collectionRule(collection) : indexRule(collection, indexName);
  if ('reason' in rule) return { reason: rule.reason };
  const threshold = rule.thresholdAt(nowMs);
  // minTimes are whole milliseconds: "after lowest − 1" is "from lowest on".
  const expiredNow = rule.buckets.countMeasurements(rule.view, rule.lowestMs - 1, threshold, cap);
  const dueWithinWindow = rule.buckets.countMeasurements(
    rule.view,
    threshold,
    rule.thresholdAt(nowMs + windowSeconds * 1000),
    cap,
  );
  return { expiredNow, dueWithinWindow };
}

/** A time-series TTL rule's buckets as the expiry forecast reads them. */
export interface TimeseriesRuleBuckets {
  seconds: number;
  /** Each bucket's measurements and when the rule deletes it (null: never, a bucket before its lowest bound). */
  buckets: Iterable<{ expiresMs: number | null; count: number }>;
}

/**
 * The buckets of the collection's own rule (no `indexName`) or of a partial TTL index, each with
 * the time the monitor deletes it: its minTime + expireAfterSeconds (`whatIfSeconds` instead of
 * the rule's own when given; then the index need not be TTL yet) + bucketMaxSpanSeconds (rules
 * 6.2, 6.4). `{reason}` when the monitor skips the rule (6.3, 7.6): then nothing expires.
 */
export function timeseriesRuleBuckets(
  collection: Collection,
  indexName: string | undefined,
  whatIfSeconds?: number,
): TimeseriesRuleBuckets | { reason: string } {
  const rule = indexName === undefined ? collectionRule(collection) : indexRule(collection, indexName, whatIfSeconds);
  if ('reason' in rule) return { reason: rule.reason };
  const seconds = whatIfSeconds ?? rule.seconds;
  const offsetMs = (seconds + rule.spanSeconds) * 1000;
  const { buckets, view, lowestMs } = rule;
  return {
    seconds,
    buckets: (function* () {
      for (const b of buckets.sizes(view))
        yield { expiresMs: b.minTime >= lowestMs ? b.minTime + offsetMs : null, count: b.count };
    })(),
  };
}

/** The targets of one collection: none unless it is a time-series collection. */
export function timeseriesTargets(collection: Collection): TTLTarget[] {
  if (!collection.options.timeseries) return [];
  const targets: TTLTarget[] = [];
  if (collection.options.expireAfterSeconds !== undefined) targets.push(new TimeseriesCollectionTTLTarget(collection));
  const live = new Set<string>();
  for (const index of collection.indexes.values()) {
    if (!isTTLIndexSpec(index.spec)) continue;
    targets.push(new TimeseriesIndexTTLTarget(collection, index.name));
    live.add(viewKeyOf(index.name, index.spec.partialFilterExpression));
  }
  // Views of dropped indexes are forgotten at the next snapshot.
  bucketsOf(collection)?.retainViews(live);
  return targets;
}

/** Register time-series TTL with the engine's monitor (called once, from the Engine constructor). */
export function registerTimeseriesTTL(engine: EngineContext): void {
  engine.ttl.registerTargets(timeseriesTargets);
}

/** Re-exported so the Engine wires time-series TTL through one import. */
export { attachTimeseriesBuckets } from '../catalog/timeseries-buckets';
