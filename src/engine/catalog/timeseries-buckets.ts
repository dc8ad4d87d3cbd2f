/**
 * Time-series buckets (docs/ttl-rules.md rules 6.2, 6.3). The engine stores a time-series
 * collection's measurements as ordinary records; this observer keeps, next to them, the bucket
 * layout mongod's bucket catalog would have produced, because time-series TTL works on buckets:
 *
 * - a measurement joins a bucket of the same meta value (objects compared regardless of field
 *   order, everything else type-exactly, as mongod's normalized metadata; a missing meta and a null
 *   meta are different buckets) whose span covers its time: `minTime <= t < minTime + maxSpan`,
 *   where `minTime` is the first measurement's time rounded down to the bucket rounding;
 * - a bucket takes at most 1000 measurements (timeseriesBucketMaxCount) and is closed once full;
 * - when the meta's open bucket does not fit the time (time moved forward past the span, or back
 *   before the bucket's start), a non-full bucket of that meta whose span covers the time is
 *   reopened (7.0+ bucket reopening), else a new bucket starts at the rounded time;
 * - a bucket keeps its `minTime` (its `_id` in mongod) for its whole life, deletes included, and
 *   disappears with its last measurement;
 * - the collection is flagged "requires extended range support" (sticky) as soon as a bucket's
 *   minimum time, which is what mongod checks, is before 1970 or beyond 2^31 − 1 seconds.
 *
 * Buckets are ordered by `[minTime, id]` in a B+ tree, so the TTL monitor finds expired buckets by
 * walking the front of the tree: O(expired), never a scan. Partial TTL indexes (rule 6.4) get a
 * filtered tree of their own ("views"), kept in step as buckets come and go.
 */
import { EJSON } from 'bson';
import BTree from 'sorted-btree';
import { cloneValue } from '../values/clone';
import { setField } from '../values/fields';
import { isPlainObject, type Document } from '../values/types';
import type { Collection, RecordObserver, TimeseriesOptions } from './collection';
import type { StoredRecord } from './record';

/** timeseriesBucketMaxCount: a bucket closes at this many measurements. */
export const BUCKET_MAX_COUNT = 1000;

/** The last millisecond of the standard range: 2^31 − 1 seconds after the epoch (2038-01-19T03:14:07Z). */
export const MAX_STANDARD_RANGE_MS = (2 ** 31 - 1) * 1000;

/** bucketMaxSpanSeconds for each granularity (rule 6.2). */
export const GRANULARITY_SPAN_SECONDS: Readonly<Record<string, number>> = {
  seconds: 3600,
  minutes: 86400,
  hours: 2592000,
};

/** Bucket rounding (the unit `minTime` is rounded down to) for each granularity. */
export const GRANULARITY_ROUNDING_SECONDS: Readonly<Record<string, number>> = {
  seconds: 60,
  minutes: 3600,
  hours: 86400,
};

export function bucketMaxSpanSecondsOf(ts: TimeseriesOptions): number {
  return ts.bucketMaxSpanSeconds ?? GRANULARITY_SPAN_SECONDS[ts.granularity ?? 'seconds'];
}

export function bucketRoundingSecondsOf(ts: TimeseriesOptions): number {
  return ts.bucketRoundingSeconds ?? GRANULARITY_ROUNDING_SECONDS[ts.granularity ?? 'seconds'];
}

/** Rounds down (never toward zero) to a multiple of `roundingSeconds`. */
export function roundDownTime(ms: number, roundingSeconds: number): number {
  const unit = roundingSeconds * 1000;
  return ms - (((ms % unit) + unit) % unit);
}

/**
 * Rule 6.3, as mongod decides it: a bucket whose minimum time does not fit the 32-bit seconds of
 * an ObjectId (before 1970, or after 2038-01-19T03:14:07Z) needs extended range support.
 */
export function needsExtendedRange(bucketMinTimeMs: number): boolean {
  return bucketMinTimeMs < 0 || bucketMinTimeMs > MAX_STANDARD_RANGE_MS;
}

/** What the UI and tests may read about one bucket (a copy). */
export interface BucketInfo {
  id: number;
  /** False when the measurements have no meta value (no metaField, or the field is missing). */
  hasMeta: boolean;
  meta: unknown;
  /** The rounded minimum time: the bucket's `_id` time, which TTL reads. */
  minTime: Date;
  /** The latest measurement time in the bucket now. */
  maxTime: Date;
  count: number;
  /** Full (1000 measurements reached): takes no more measurements. */
  closed: boolean;
}

export interface BucketsSummary {
  bucketCount: number;
  measurementCount: number;
  requiresExtendedRange: boolean;
  bucketMaxSpanSeconds: number;
  bucketRoundingSeconds: number;
}

/** A bucket's identity in expiry order. */
export type BucketKey = readonly [minTime: number, id: number];

const compareBucketKeys = (a: BucketKey, b: BucketKey): number => a[0] - b[0] || a[1] - b[1];

interface Bucket {
  readonly id: number;
  readonly key: BucketKey;
  readonly group: MetaGroup;
  readonly hasMeta: boolean;
  readonly meta: unknown;
  readonly minTime: number;
  maxTime: number;
  /** A measurement at maxTime left: recompute on the next read rather than on every delete. */
  maxTimeStale: boolean;
  readonly rids: Set<number>;
  closed: boolean;
}

interface MetaGroup {
  readonly metaKey: string;
  /** The bucket new measurements of this meta try first. */
  open?: Bucket;
  /** All buckets of this meta in `[minTime, id]` order, to find one to reopen. */
  readonly byTime: BTree<BucketKey, Bucket>;
}

/** A filtered, expiry-ordered subset of the buckets (one per partial TTL index). */
export interface BucketView {
  readonly key: string;
  readonly predicate: (hasMeta: boolean, meta: unknown) => boolean;
  readonly tree: BTree<BucketKey, Bucket>;
}

const MISSING_META_KEY = '\u0000missing';

/** Objects with their fields sorted (recursively, through arrays too): mongod's normalized meta. */
function normalizeMeta(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeMeta);
  if (!isPlainObject(value)) return value;
  const out: Document = {};
  for (const k of Object.keys(value).sort()) setField(out, k, normalizeMeta(value[k]));
  return out;
}

/** A string equal for metas that share buckets: field order ignored, BSON types kept (Int32 ≠ Double). */
function metaKeyOf(hasMeta: boolean, meta: unknown): string {
  if (!hasMeta) return MISSING_META_KEY;
  // Fast path for the common string meta; canonical EJSON always starts with '{'.
  if (typeof meta === 'string') return `s${meta}`;
  try {
    return EJSON.stringify({ m: normalizeMeta(meta) }, { relaxed: false });
  } catch {
    return `?${String(meta)}`;
  }
}

export class TimeseriesBuckets implements RecordObserver {
  /** Every bucket in expiry order `[minTime, id]`. */
  private readonly all = new BTree<BucketKey, Bucket>(undefined, compareBucketKeys);
  private readonly groups = new Map<string, MetaGroup>();
  private readonly bucketOfRid = new Map<number, Bucket>();
  private readonly views = new Map<string, BucketView>();
  private nextId = 1;
  private extendedRange = false;

  constructor(private readonly collection: Collection) {}

  private get ts(): TimeseriesOptions {
    return this.collection.options.timeseries!;
  }

  // ---- RecordObserver ------------------------------------------------------------------------

  inserted(record: StoredRecord): void {
    this.place(record);
  }

  replaced(record: StoredRecord, before: Document): void {
    const time = this.timeOf(record.doc);
    const old = this.metaOf(before);
    const now = this.metaOf(record.doc);
    if (
      this.bucketOfRid.has(record.rid) &&
      time === this.timeOf(before) &&
      metaKeyOf(now.hasMeta, now.meta) === metaKeyOf(old.hasMeta, old.meta)
    )
      return;
    // A new time or meta: the measurement leaves its bucket and is placed like a new one.
    this.unplace(record.rid, this.timeOf(before));
    this.place(record);
  }

  removed(record: StoredRecord): void {
    this.unplace(record.rid, this.timeOf(record.doc));
  }

  // ---- read-only information ----------------------------------------------------------------

  /** Rule 6.3: sticky once any bucket started outside 1970 – 2038-01-19T03:14:07Z. */
  get requiresExtendedRange(): boolean {
    return this.extendedRange;
  }

  get bucketCount(): number {
    return this.all.size;
  }

  summary(): BucketsSummary {
    return {
      bucketCount: this.all.size,
      measurementCount: this.bucketOfRid.size,
      requiresExtendedRange: this.extendedRange,
      bucketMaxSpanSeconds: bucketMaxSpanSecondsOf(this.ts),
      bucketRoundingSeconds: bucketRoundingSecondsOf(this.ts),
    };
  }

  /** Buckets in expiry order (oldest `minTime` first), at most `limit` of them. */
  buckets(limit = Infinity): BucketInfo[] {
    const out: BucketInfo[] = [];
    for (const bucket of this.all.values()) {
      if (out.length >= limit) break;
      out.push(this.infoOf(bucket));
    }
    return out;
  }

  /** Each bucket's minimum time and measurements, of all buckets or of a view, oldest first. */
  *sizes(view?: BucketView): IterableIterator<{ minTime: number; count: number }> {
    for (const bucket of (view ? view.tree : this.all).values())
      yield { minTime: bucket.minTime, count: bucket.rids.size };
  }

  /** The bucket a measurement (by record id) is in. */
  bucketOf(rid: number): BucketInfo | undefined {
    const bucket = this.bucketOfRid.get(rid);
    return bucket ? this.infoOf(bucket) : undefined;
  }

  /** When a bucket becomes eligible under an expiry of `expireAfterSeconds` (rule 6.2). */
  expiresAt(bucket: BucketInfo, expireAfterSeconds: number): Date {
    return new Date(bucket.minTime.getTime() + (expireAfterSeconds + bucketMaxSpanSecondsOf(this.ts)) * 1000);
  }

  // ---- for the TTL targets ------------------------------------------------------------------

  /**
   * The buckets matching `predicate`, kept in expiry order from now on. Built once (one walk over
   * the buckets) and then maintained as buckets are created and removed. `key` names the view
   * (index name and filter), so a recreated index with another filter gets a new one.
   */
  view(key: string, predicate: (hasMeta: boolean, meta: unknown) => boolean): BucketView {
    let view = this.views.get(key);
    if (!view) {
      view = { key, predicate, tree: new BTree<BucketKey, Bucket>(undefined, compareBucketKeys) };
      for (const bucket of this.all.values())
        if (predicate(bucket.hasMeta, bucket.meta)) view.tree.set(bucket.key, bucket);
      this.views.set(key, view);
    }
    return view;
  }

  /** Forget views whose index is gone. */
  retainViews(keys: ReadonlySet<string>): void {
    for (const key of [...this.views.keys()]) if (!keys.has(key)) this.views.delete(key);
  }

  /** The bucket with the smallest `[minTime, id]`, of all buckets or of a view. */
  oldest(view?: BucketView): { key: BucketKey; minTime: number; count: number } | undefined {
    const tree = view ? view.tree : this.all;
    const key = tree.minKey();
    if (key === undefined) return undefined;
    const bucket = tree.get(key)!;
    return { key, minTime: bucket.minTime, count: bucket.rids.size };
  }

  /**
   * Measurements in the buckets (of all buckets or of a view) whose minTime lies in
   * `(afterMs, uptoMs]`, counted up to `cap`: what a TTL rule would delete, for the UI's counts.
   * Walks the expiry-ordered tree from its start, so the cost is the buckets below `uptoMs`.
   */
  countMeasurements(view: BucketView | undefined, afterMs: number, uptoMs: number, cap = Infinity): number {
    const tree = view ? view.tree : this.all;
    let n = 0;
    for (const bucket of tree.values()) {
      if (bucket.minTime > uptoMs || n >= cap) break;
      if (bucket.minTime > afterMs) n += bucket.rids.size;
    }
    return Math.min(n, cap);
  }

  /**
   * Remove a whole bucket: every measurement through `collection.remove(record, cause)` (indexes,
   * observers, events as for any delete). Returns how many measurements went.
   */
  removeBucket(key: BucketKey, cause: 'command' | 'ttl' = 'ttl'): number {
    const bucket = this.all.get(key);
    if (!bucket) return 0;
    let removed = 0;
    for (const rid of [...bucket.rids]) {
      const record = this.collection.records.get(rid);
      if (record) {
        this.collection.remove(record, cause);
        removed++;
      } else {
        this.unplace(rid, undefined);
      }
    }
    // Normally gone with its last measurement; never leave an empty bucket behind.
    if (this.all.has(key)) this.dropBucket(bucket);
    return removed;
  }

  // ---- bucketing -----------------------------------------------------------------------------

  private timeOf(doc: Document): number | undefined {
    const t = doc[this.ts.timeField];
    if (!(t instanceof Date)) return undefined;
    const ms = t.getTime();
    return Number.isFinite(ms) ? ms : undefined;
  }

  private metaOf(doc: Document): { hasMeta: boolean; meta: unknown } {
    const field = this.ts.metaField;
    if (field === undefined || !Object.prototype.hasOwnProperty.call(doc, field) || doc[field] === undefined)
      return { hasMeta: false, meta: undefined };
    return { hasMeta: true, meta: doc[field] };
  }

  private place(record: StoredRecord): void {
    // Measurements without a valid date (the write path refuses them) belong to no bucket.
    const time = this.timeOf(record.doc);
    if (time === undefined) return;
    const { hasMeta, meta } = this.metaOf(record.doc);
    const metaKey = metaKeyOf(hasMeta, meta);
    let group = this.groups.get(metaKey);
    if (!group) {
      group = { metaKey, byTime: new BTree<BucketKey, Bucket>(undefined, compareBucketKeys) };
      this.groups.set(metaKey, group);
    }
    const spanMs = bucketMaxSpanSecondsOf(this.ts) * 1000;
    const fits = (b: Bucket) => !b.closed && time >= b.minTime && time < b.minTime + spanMs;
    let bucket = group.open && fits(group.open) ? group.open : undefined;
    if (!bucket && !(group.open && group.open.closed)) {
      // Reopening: a full open bucket rolls over to a new one; a time mismatch looks for a
      // non-full bucket of this meta whose span covers the time, latest start first.
      group.byTime.forRange(
        [time - spanMs, Number.MAX_SAFE_INTEGER],
        [time, Number.MAX_SAFE_INTEGER],
        true,
        (_k, b) => {
          if (fits(b) && (!bucket || b.minTime >= bucket.minTime)) bucket = b;
        },
      );
    }
    if (!bucket) bucket = this.createBucket(group, hasMeta, meta, time);
    group.open = bucket;
    bucket.rids.add(record.rid);
    if (time > bucket.maxTime) bucket.maxTime = time;
    if (bucket.rids.size >= BUCKET_MAX_COUNT) bucket.closed = true;
    this.bucketOfRid.set(record.rid, bucket);
  }

  private createBucket(group: MetaGroup, hasMeta: boolean, meta: unknown, time: number): Bucket {
    const minTime = roundDownTime(time, bucketRoundingSecondsOf(this.ts));
    const id = this.nextId++;
    const key: BucketKey = [minTime, id];
    const bucket: Bucket = {
      id,
      key,
      group,
      hasMeta,
      meta: hasMeta ? cloneValue(meta) : undefined,
      minTime,
      maxTime: time,
      maxTimeStale: false,
      rids: new Set(),
      closed: false,
    };
    this.all.set(key, bucket);
    group.byTime.set(key, bucket);
    for (const view of this.views.values()) if (view.predicate(bucket.hasMeta, bucket.meta)) view.tree.set(key, bucket);
    // Rule 6.3: mongod flags the collection when it writes a bucket whose minimum time needs it.
    if (needsExtendedRange(minTime)) this.extendedRange = true;
    return bucket;
  }

  /** Take a measurement (whose time was `time`) out of its bucket; an emptied bucket disappears. */
  private unplace(rid: number, time: number | undefined): void {
    const bucket = this.bucketOfRid.get(rid);
    if (!bucket) return;
    this.bucketOfRid.delete(rid);
    bucket.rids.delete(rid);
    if (bucket.rids.size === 0) this.dropBucket(bucket);
    else if (time === undefined || time >= bucket.maxTime) bucket.maxTimeStale = true;
  }

  private dropBucket(bucket: Bucket): void {
    for (const rid of bucket.rids) this.bucketOfRid.delete(rid);
    bucket.rids.clear();
    this.all.delete(bucket.key);
    bucket.group.byTime.delete(bucket.key);
    for (const view of this.views.values()) view.tree.delete(bucket.key);
    if (bucket.group.open === bucket) bucket.group.open = undefined;
    if (bucket.group.byTime.size === 0) this.groups.delete(bucket.group.metaKey);
  }

  private infoOf(bucket: Bucket): BucketInfo {
    if (bucket.maxTimeStale) {
      // The latest measurement left: look at the others (at most 1000).
      let max = bucket.minTime;
      for (const rid of bucket.rids) {
        const record = this.collection.records.get(rid);
        const t = record ? this.timeOf(record.doc) : undefined;
        if (t !== undefined && t > max) max = t;
      }
      bucket.maxTime = max;
      bucket.maxTimeStale = false;
    }
    return infoOfBucket(bucket);
  }
}

function infoOfBucket(bucket: Bucket): BucketInfo {
  return {
    id: bucket.id,
    hasMeta: bucket.hasMeta,
    meta: bucket.hasMeta ? cloneValue(bucket.meta) : undefined,
    minTime: new Date(bucket.minTime),
    maxTime: new Date(bucket.maxTime),
    count: bucket.rids.size,
    closed: bucket.closed,
  };
}

const bucketsByCollection = new WeakMap<Collection, TimeseriesBuckets>();

/**
 * The buckets of a time-series collection (undefined for other collections). Attached when the
 * collection is created; a time-series collection that somehow has none gets one built from its
 * records in natural order.
 */
export function bucketsOf(collection: Collection): TimeseriesBuckets | undefined {
  if (!collection.options.timeseries) return undefined;
  let buckets = bucketsByCollection.get(collection);
  if (!buckets) {
    buckets = new TimeseriesBuckets(collection);
    for (const record of collection.records.values()) buckets.inserted(record);
    collection.observers.push(buckets);
    bucketsByCollection.set(collection, buckets);
  }
  return buckets;
}

/** Called where a time-series collection is created: start bucketing its measurements. */
export function attachTimeseriesBuckets(collection: Collection): void {
  bucketsOf(collection);
}
