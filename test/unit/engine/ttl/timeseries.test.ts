/**
 * Time-series bucketing and time-series TTL (docs/ttl-rules.md §6, §7.10, §7.12): how measurements
 * are grouped into buckets, when a bucket expires under the collection-level expireAfterSeconds or
 * a partial TTL index on the meta, the extended-range switch-off, and what the metrics count. All
 * on a virtual clock: the monitor runs a pass every 60 s of it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Long } from 'bson';
import { Engine, timeseriesExpiryCounts, type Document, type EngineOptions } from '../../../../src/engine';
import type { Collection } from '../../../../src/engine/catalog/collection';
import { bucketsOf, type BucketInfo, type TimeseriesBuckets } from '../../../../src/engine/catalog/timeseries-buckets';
import { VirtualClock } from '../../../../src/engine/clock';

// ---- helpers ----------------------------------------------------------------------------------

const DB = 'app';
const T0 = Date.UTC(2026, 0, 1);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

interface Setup {
  engine: Engine;
  clock: VirtualClock;
  coll: Collection;
  buckets: TimeseriesBuckets;
}

/** A time-series collection `ts` ({timeField: "t", metaField: "m"} unless `timeseries` says otherwise). */
function setup(create: Document = {}, options: Partial<EngineOptions> = {}): Setup {
  const clock = new VirtualClock(T0);
  const engine = new Engine({ clock, ...options });
  engine.runCommand(DB, { create: 'ts', timeseries: { timeField: 't', metaField: 'm' }, ...create });
  const coll = engine.getCollection(DB, 'ts')!;
  const buckets = bucketsOf(coll);
  assert.ok(buckets, 'a time-series collection has buckets');
  return { engine, clock, coll, buckets };
}

function insert(engine: Engine, docs: Document[]): void {
  const reply = engine.runCommand(DB, { insert: 'ts', documents: docs });
  assert.equal(reply.writeErrors, undefined, JSON.stringify(reply.writeErrors));
  assert.equal(reply.n, docs.length);
}

function at(ms: number): Date {
  return new Date(ms);
}

/** Measurements still there, as their `_id`s, sorted. */
function ids(engine: Engine): unknown[] {
  return engine
    .db(DB)
    .collection('ts')
    .find({}, { sort: { _id: 1 } })
    .map((d) => d._id);
}

function iso(b: BucketInfo): { min: string; max: string; count: number; meta: unknown } {
  return { min: b.minTime.toISOString(), max: b.maxTime.toISOString(), count: b.count, meta: b.meta };
}

function metrics(engine: Engine): { deletedDocuments: number; passes: number; subPasses: number } {
  return { ...engine.ttlMetrics };
}

/** Move the virtual clock to `T0 + offset` (passes run on the way). */
function advanceTo(clock: VirtualClock, offset: number): void {
  clock.set(T0 + offset);
}

// ---- bucketing ----------------------------------------------------------------------------------

describe('time-series bucketing (rule 6.2)', () => {
  it('rule 6.2: measurements are grouped by meta value; missing meta and null meta are separate buckets', () => {
    const { engine, buckets } = setup();
    insert(engine, [
      { _id: 1, t: at(T0), m: 'a' },
      { _id: 2, t: at(T0 + MINUTE), m: 'b' },
      { _id: 3, t: at(T0 + 2 * MINUTE), m: 'a' },
      { _id: 4, t: at(T0 + 3 * MINUTE) },
      { _id: 5, t: at(T0 + 4 * MINUTE) },
      { _id: 6, t: at(T0 + 5 * MINUTE), m: null },
    ]);
    const list = buckets.buckets();
    assert.equal(buckets.bucketCount, 4);
    assert.deepEqual(
      list.map((b) => [b.hasMeta, b.meta, b.count]),
      [
        [true, 'a', 2],
        [true, 'b', 1],
        [false, undefined, 2],
        [true, null, 1],
      ],
    );
  });

  it('rule 6.2: object metas share a bucket whatever their field order (mongod normalizes the meta); arrays keep their order', () => {
    const { engine, buckets } = setup();
    insert(engine, [
      { t: at(T0), m: { a: 1, b: 1 } },
      { t: at(T0 + SECOND), m: { b: 1, a: 1 } },
      { t: at(T0 + 2 * SECOND), m: { a: 1 } },
      { t: at(T0 + 3 * SECOND), m: { x: [{ p: 1, q: 2 }] } },
      { t: at(T0 + 4 * SECOND), m: { x: [{ q: 2, p: 1 }] } },
      { t: at(T0 + 5 * SECOND), m: [1, 2] },
      { t: at(T0 + 6 * SECOND), m: [2, 1] },
    ]);
    assert.deepEqual(
      buckets.buckets().map((b) => b.count),
      [2, 1, 2, 1, 1],
    );
  });

  it('rule 6.2: a bucket spans bucketMaxSpanSeconds from its rounded minimum time (granularity seconds: 1 h, rounded to the minute)', () => {
    const { engine, buckets } = setup();
    insert(engine, [
      { t: at(T0 + 10 * HOUR + 17 * MINUTE + 45_500), m: 's' },
      { t: at(T0 + 11 * HOUR + 16 * MINUTE + 59_999), m: 's' },
      { t: at(T0 + 11 * HOUR + 17 * MINUTE), m: 's' },
    ]);
    assert.deepEqual(buckets.buckets().map(iso), [
      { min: '2026-01-01T10:17:00.000Z', max: '2026-01-01T11:16:59.999Z', count: 2, meta: 's' },
      { min: '2026-01-01T11:17:00.000Z', max: '2026-01-01T11:17:00.000Z', count: 1, meta: 's' },
    ]);
  });

  it('rule 6.2: the minimum time is rounded down by granularity (minutes → the hour, hours → the day) or bucketRoundingSeconds', () => {
    const time = T0 + 10 * HOUR + 17 * MINUTE + 45_500;
    const cases: Array<[Document, string, number]> = [
      [{ timeField: 't', metaField: 'm', granularity: 'seconds' }, '2026-01-01T10:17:00.000Z', 3600],
      [{ timeField: 't', metaField: 'm', granularity: 'minutes' }, '2026-01-01T10:00:00.000Z', 86400],
      [{ timeField: 't', metaField: 'm', granularity: 'hours' }, '2026-01-01T00:00:00.000Z', 2592000],
      [
        { timeField: 't', metaField: 'm', bucketMaxSpanSeconds: 600, bucketRoundingSeconds: 600 },
        '2026-01-01T10:10:00.000Z',
        600,
      ],
    ];
    for (const [timeseries, min, span] of cases) {
      const { engine, buckets } = setup({ timeseries });
      insert(engine, [{ t: at(time), m: 1 }]);
      assert.equal(buckets.buckets()[0].minTime.toISOString(), min, JSON.stringify(timeseries));
      assert.equal(buckets.summary().bucketMaxSpanSeconds, span);
    }
  });

  it('rule 6.2: a bucket closes at 1000 measurements (timeseriesBucketMaxCount)', () => {
    const { engine, buckets } = setup();
    const docs: Document[] = [];
    for (let i = 0; i < 2500; i++) docs.push({ t: at(T0 + i), m: 'x' });
    insert(engine, docs);
    assert.deepEqual(
      buckets.buckets().map((b) => [b.count, b.closed]),
      [
        [1000, true],
        [1000, true],
        [500, false],
      ],
    );
    assert.equal(buckets.summary().measurementCount, 2500);
  });

  it('rule 6.2: a late measurement reopens the non-full bucket of its meta whose span covers it; otherwise it starts its own', () => {
    const { engine, buckets } = setup();
    insert(engine, [
      { _id: 1, t: at(T0 + 10 * MINUTE), m: 'a' },
      { _id: 2, t: at(T0 + 2 * HOUR), m: 'a' },
      // Back in the first bucket's span (00:10 – 01:10): goes there.
      { _id: 3, t: at(T0 + 30 * MINUTE), m: 'a' },
      // Before any bucket of 'a': a bucket of its own, starting at its own rounded time.
      { _id: 4, t: at(T0 + 5 * MINUTE + 30 * SECOND), m: 'a' },
    ]);
    assert.deepEqual(buckets.buckets().map(iso), [
      { min: '2026-01-01T00:05:00.000Z', max: '2026-01-01T00:05:30.000Z', count: 1, meta: 'a' },
      { min: '2026-01-01T00:10:00.000Z', max: '2026-01-01T00:30:00.000Z', count: 2, meta: 'a' },
      { min: '2026-01-01T02:00:00.000Z', max: '2026-01-01T02:00:00.000Z', count: 1, meta: 'a' },
    ]);
  });

  it('a delete takes the measurement out of its bucket, an emptied bucket disappears, and the bucket keeps its minimum time', () => {
    const { engine, buckets } = setup();
    insert(engine, [
      { _id: 1, t: at(T0), m: 'a' },
      { _id: 2, t: at(T0 + 20 * MINUTE), m: 'a' },
      { _id: 3, t: at(T0 + 5 * MINUTE), m: 'b' },
    ]);
    engine.runCommand(DB, { delete: 'ts', deletes: [{ q: { _id: 1 }, limit: 1 }] });
    assert.deepEqual(buckets.buckets().map(iso), [
      // The bucket's _id (minimum time) is fixed at creation: deleting the first measurement does not move it.
      { min: '2026-01-01T00:00:00.000Z', max: '2026-01-01T00:20:00.000Z', count: 1, meta: 'a' },
      { min: '2026-01-01T00:05:00.000Z', max: '2026-01-01T00:05:00.000Z', count: 1, meta: 'b' },
    ]);
    engine.runCommand(DB, { delete: 'ts', deletes: [{ q: { m: 'b' }, limit: 0 }] });
    assert.equal(buckets.bucketCount, 1);
    engine.runCommand(DB, { delete: 'ts', deletes: [{ q: {}, limit: 0 }] });
    assert.equal(buckets.bucketCount, 0);
  });

  it('an update of the meta or the time moves the measurement; other updates leave it in place', () => {
    const { engine, buckets } = setup();
    insert(engine, [
      { _id: 1, t: at(T0), m: 'a', v: 1 },
      { _id: 2, t: at(T0 + MINUTE), m: 'a', v: 2 },
    ]);
    engine.runCommand(DB, { update: 'ts', updates: [{ q: { _id: 2 }, u: { $set: { v: 3 } } }] });
    assert.deepEqual(
      buckets.buckets().map((b) => [b.meta, b.count]),
      [['a', 2]],
    );
    engine.runCommand(DB, { update: 'ts', updates: [{ q: { _id: 2 }, u: { $set: { m: 'b' } } }] });
    assert.deepEqual(
      buckets.buckets().map((b) => [b.meta, b.count]),
      [
        ['a', 1],
        ['b', 1],
      ],
    );
    engine.runCommand(DB, { update: 'ts', updates: [{ q: { _id: 1 }, u: { $set: { t: at(T0 + 3 * HOUR) } } }] });
    assert.deepEqual(buckets.buckets().map(iso), [
      { min: '2026-01-01T00:01:00.000Z', max: '2026-01-01T00:01:00.000Z', count: 1, meta: 'b' },
      { min: '2026-01-01T03:00:00.000Z', max: '2026-01-01T03:00:00.000Z', count: 1, meta: 'a' },
    ]);
  });
});

// ---- collection-level TTL ---------------------------------------------------------------------

describe('time-series collection-level TTL (rules 6.1, 6.2, 7.10)', () => {
  it('rule 6.2: a bucket expires only once its whole span plus expireAfterSeconds has passed, all its measurements at once', () => {
    // EAS 10 min, span 1 h: the bucket starting at T0 goes at T0 + 70 min (bound inclusive).
    const { engine, clock, buckets } = setup({ expireAfterSeconds: 600 });
    insert(engine, [
      { _id: 1, t: at(T0), m: 'a' },
      { _id: 2, t: at(T0 + 50 * MINUTE), m: 'a' },
    ]);
    advanceTo(clock, 69 * MINUTE);
    // Measurement 1 is 69 minutes old, far past its own 10 minutes, but its bucket has not expired.
    assert.deepEqual(ids(engine), [1, 2]);
    advanceTo(clock, 70 * MINUTE - 1);
    assert.deepEqual(ids(engine), [1, 2]);
    advanceTo(clock, 70 * MINUTE);
    assert.deepEqual(ids(engine), []);
    assert.equal(buckets.bucketCount, 0);
    const pass = engine.ttl.status().lastPass!;
    assert.deepEqual(
      pass.visits.filter((v) => v.collection === 'ts').map((v) => [v.target, v.deleted, v.outcome]),
      [['collection', 2, 'done']],
      'both measurements went in one visit',
    );
  });

  it('rule 6.2: buckets expire one by one in the order of their minimum time, per meta value', () => {
    const { engine, clock } = setup({ expireAfterSeconds: 0 });
    insert(engine, [
      { _id: 1, t: at(T0), m: 'a' },
      { _id: 2, t: at(T0 + 30 * MINUTE), m: 'b' },
      { _id: 3, t: at(T0 + 2 * HOUR), m: 'a' },
    ]);
    advanceTo(clock, HOUR);
    assert.deepEqual(ids(engine), [2, 3]);
    advanceTo(clock, HOUR + 30 * MINUTE);
    assert.deepEqual(ids(engine), [3]);
    advanceTo(clock, 3 * HOUR);
    assert.deepEqual(ids(engine), []);
  });

  it('rule 6.2: a granularity "hours" collection uses a 30-day span (buckets rounded to the day)', () => {
    const { engine, clock, buckets } = setup(
      { timeseries: { timeField: 't', metaField: 'm', granularity: 'hours' }, expireAfterSeconds: 3600 },
      { parameters: { ttlMonitorSleepSecs: 600 } },
    );
    insert(engine, [
      { _id: 1, t: at(T0 + 5 * HOUR), m: 'a' },
      { _id: 2, t: at(T0 + 20 * DAY), m: 'a' },
    ]);
    assert.equal(buckets.bucketCount, 1, '20 days later is still inside the 30-day span');
    assert.equal(buckets.buckets()[0].minTime.toISOString(), '2026-01-01T00:00:00.000Z');
    advanceTo(clock, 30 * DAY + 50 * MINUTE);
    assert.deepEqual(ids(engine), [1, 2]);
    advanceTo(clock, 30 * DAY + HOUR);
    assert.deepEqual(ids(engine), []);
  });

  it('rule 6.2: bucketMaxSpanSeconds given explicitly is the span TTL waits for', () => {
    const { engine, clock } = setup({
      timeseries: { timeField: 't', bucketMaxSpanSeconds: 600, bucketRoundingSeconds: 600 },
      expireAfterSeconds: 60,
    });
    insert(engine, [{ _id: 1, t: at(T0 + 3 * MINUTE) }]);
    // Bucket min 00:00, span 10 min, EAS 1 min: eligible at 00:11.
    advanceTo(clock, 10 * MINUTE);
    assert.deepEqual(ids(engine), [1]);
    advanceTo(clock, 11 * MINUTE);
    assert.deepEqual(ids(engine), []);
  });

  it('rules 5.5 / 6.1: collMod expireAfterSeconds changes take effect at the next pass, "off" stops deletion', () => {
    const { engine, clock } = setup({ expireAfterSeconds: 86400 });
    insert(engine, [
      { _id: 1, t: at(T0), m: 'a' },
      { _id: 2, t: at(T0 + 3 * HOUR), m: 'a' },
    ]);
    advanceTo(clock, 4 * HOUR + 30 * SECOND);
    assert.deepEqual(ids(engine), [1, 2]);
    engine.runCommand(DB, { collMod: 'ts', expireAfterSeconds: 600 });
    // Nothing happens before the next pass ...
    assert.deepEqual(ids(engine), [1, 2]);
    // ... which (at 04:01) deletes the bucket of 00:00 (00:00 <= 04:01 − 10 min − 1 h), not the one of 03:00.
    advanceTo(clock, 4 * HOUR + MINUTE);
    assert.deepEqual(ids(engine), [2]);
    engine.runCommand(DB, { collMod: 'ts', expireAfterSeconds: 'off' });
    advanceTo(clock, 10 * DAY);
    assert.deepEqual(ids(engine), [2], 'no TTL after "off"');
    engine.runCommand(DB, { collMod: 'ts', expireAfterSeconds: 0 });
    advanceTo(clock, 10 * DAY + MINUTE);
    assert.deepEqual(ids(engine), []);
  });

  it('rule 7.12: metrics.ttl.deletedDocuments counts buckets, not measurements, for time-series TTL', () => {
    const { engine, clock } = setup({ expireAfterSeconds: 60 });
    const docs: Document[] = [];
    for (let i = 0; i < 2500; i++) docs.push({ t: at(T0 + i), m: 'x' });
    docs.push({ t: at(T0), m: 'y' });
    insert(engine, docs);
    const before = metrics(engine).deletedDocuments;
    advanceTo(clock, 2 * HOUR);
    assert.equal(engine.getCollection(DB, 'ts')!.count, 0);
    // 1000 + 1000 + 500 measurements of 'x' and 1 of 'y': four buckets.
    assert.equal(metrics(engine).deletedDocuments - before, 4);
    const reply = engine.runCommand('admin', { serverStatus: 1 });
    const ttl = (reply.metrics as Document).ttl as Document;
    assert.equal((ttl.deletedDocuments as Long).toNumber(), 4);
  });
});

describe('ttlIndexDeleteTargetDocs and time-series visits (rule 7.3)', () => {
  it('rule 7.3: ttlIndexDeleteTargetDocs counts bucket documents: with 2, five expired buckets of 10 take visits of 2, 2 and 1 buckets in one pass', () => {
    const { engine, clock } = setup(
      { expireAfterSeconds: 0 },
      { parameters: { ttlIndexDeleteTargetDocs: 2, ttlMonitorEnabled: false } },
    );
    const docs: Document[] = [];
    for (let b = 0; b < 5; b++) for (let i = 0; i < 10; i++) docs.push({ t: at(T0 + i), m: `meta${b}` });
    insert(engine, docs);
    advanceTo(clock, 2 * HOUR);
    assert.equal(engine.getCollection(DB, 'ts')!.count, 50, 'monitor disabled');
    engine.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: true });
    const report = engine.ttl.runPass();
    assert.deepEqual(
      report.visits.map((v) => [v.target, v.deleted, v.outcome]),
      [
        ['collection', 20, 'more'],
        ['collection', 20, 'more'],
        ['collection', 10, 'done'],
      ],
    );
    assert.equal(report.subPasses, 1);
    assert.equal(engine.ttlMetrics.deletedDocuments, 5);
  });
});

// ---- partial TTL indexes ------------------------------------------------------------------------

describe('partial TTL indexes on a time-series collection (rule 6.4)', () => {
  it('rule 6.4: a partial TTL index on the meta expires matching buckets sooner; the others wait for the collection-level TTL', () => {
    const { engine, clock } = setup({ expireAfterSeconds: 86400 });
    engine.runCommand(DB, {
      createIndexes: 'ts',
      indexes: [
        { key: { t: 1 }, name: 'debug_ttl', expireAfterSeconds: 60, partialFilterExpression: { 'm.level': 'debug' } },
      ],
    });
    insert(engine, [
      { _id: 1, t: at(T0), m: { level: 'debug', host: 'a' } },
      { _id: 2, t: at(T0 + MINUTE), m: { level: 'info', host: 'a' } },
      { _id: 3, t: at(T0 + 2 * MINUTE), m: { level: 'debug', host: 'b' } },
    ]);
    // Debug buckets start at 00:00 and 00:02: eligible at 01:01 and 01:03 (1 min + 1 h span).
    advanceTo(clock, HOUR);
    assert.deepEqual(ids(engine), [1, 2, 3]);
    advanceTo(clock, HOUR + MINUTE);
    assert.deepEqual(ids(engine), [2, 3]);
    advanceTo(clock, HOUR + 3 * MINUTE);
    assert.deepEqual(ids(engine), [2]);
    const lastIndexVisit = engine.ttl.status().lastPass!.visits.find((v) => v.target === 'index debug_ttl');
    assert.deepEqual([lastIndexVisit?.deleted, lastIndexVisit?.outcome], [1, 'done']);
    // The info bucket (00:01) waits for 1 day + 1 h.
    advanceTo(clock, DAY + HOUR);
    assert.deepEqual(ids(engine), [2]);
    advanceTo(clock, DAY + HOUR + MINUTE);
    assert.deepEqual(ids(engine), []);
  });

  it('rule 6.4: a partial TTL index works without a collection-level expireAfterSeconds, and counts buckets (7.12)', () => {
    const { engine, clock } = setup();
    engine.runCommand(DB, {
      createIndexes: 'ts',
      indexes: [
        {
          key: { t: 1 },
          name: 'tmp_ttl',
          expireAfterSeconds: 0,
          partialFilterExpression: { m: { $in: ['tmp', 'scratch'] } },
        },
      ],
    });
    const docs: Document[] = [];
    for (let i = 0; i < 1500; i++) docs.push({ t: at(T0 + i * 10), m: 'tmp' });
    docs.push({ _id: 'keep', t: at(T0), m: 'keep' });
    insert(engine, docs);
    advanceTo(clock, 2 * HOUR);
    assert.deepEqual(ids(engine), ['keep']);
    assert.equal(engine.ttlMetrics.deletedDocuments, 2, 'two buckets of tmp (1000 + 500)');
  });

  it('rule 6.4: dropping the partial TTL index stops it at the next pass', () => {
    const { engine, clock } = setup();
    engine.runCommand(DB, {
      createIndexes: 'ts',
      indexes: [{ key: { t: 1 }, name: 'tmp_ttl', expireAfterSeconds: 0, partialFilterExpression: { m: 'tmp' } }],
    });
    insert(engine, [{ _id: 1, t: at(T0), m: 'tmp' }]);
    engine.runCommand(DB, { dropIndexes: 'ts', index: 'tmp_ttl' });
    advanceTo(clock, 3 * HOUR);
    assert.deepEqual(ids(engine), [1]);
  });
});

// ---- extended range -------------------------------------------------------------------------------

describe('extended-range dates switch time-series TTL off (rule 6.3)', () => {
  for (const [label, date] of [
    ['1969', Date.UTC(1969, 6, 20)],
    ['2039', Date.UTC(2039, 0, 1)],
  ] as const) {
    it(`rule 6.3: one measurement dated ${label} stops TTL deletion for the whole collection, collection-level and partial index alike`, () => {
      const { engine, clock, buckets } = setup({ expireAfterSeconds: 60 });
      engine.runCommand(DB, {
        createIndexes: 'ts',
        indexes: [{ key: { t: 1 }, name: 'debug_ttl', expireAfterSeconds: 0, partialFilterExpression: { m: 'debug' } }],
      });
      insert(engine, [
        { _id: 1, t: at(T0), m: 'a' },
        { _id: 2, t: at(T0), m: 'debug' },
      ]);
      assert.equal(buckets.requiresExtendedRange, false);
      insert(engine, [{ _id: 3, t: at(date), m: 'other' }]);
      assert.equal(buckets.requiresExtendedRange, true);
      advanceTo(clock, 2 * DAY);
      assert.deepEqual(ids(engine), [1, 2, 3]);
      const visits = engine.ttl.status().lastPass!.visits.filter((v) => v.collection === 'ts');
      assert.deepEqual(
        visits.map((v) => [v.target, v.outcome]),
        [
          ['collection', 'skipped'],
          ['index debug_ttl', 'skipped'],
        ],
      );
      assert.match(visits[0].reason ?? '', /extended range/);
      assert.equal(engine.ttlMetrics.deletedDocuments, 0);
    });
  }

  it('rule 6.3: the flag is sticky: deleting the out-of-range measurement does not turn TTL back on', () => {
    const { engine, clock, buckets } = setup({ expireAfterSeconds: 60 });
    insert(engine, [
      { _id: 1, t: at(T0), m: 'a' },
      { _id: 2, t: at(Date.UTC(1960, 0, 1)), m: 'a' },
    ]);
    engine.runCommand(DB, { delete: 'ts', deletes: [{ q: { _id: 2 }, limit: 1 }] });
    assert.equal(buckets.requiresExtendedRange, true);
    advanceTo(clock, DAY);
    assert.deepEqual(ids(engine), [1]);
  });

  it('rule 6.3: the edges are 1970-01-01T00:00:00Z and 2038-01-19T03:14:07Z (the bucket start mongod checks)', () => {
    const edge = (time: number) => {
      const { engine, buckets } = setup({
        timeseries: { timeField: 't', bucketMaxSpanSeconds: 1, bucketRoundingSeconds: 1 },
      });
      insert(engine, [{ t: at(time) }]);
      return buckets.requiresExtendedRange;
    };
    assert.equal(edge(0), false);
    assert.equal(edge(-1), true, '1969-12-31T23:59:59.999Z');
    assert.equal(edge(Date.UTC(2038, 0, 19, 3, 14, 7, 999)), false);
    assert.equal(edge(Date.UTC(2038, 0, 19, 3, 14, 8)), true);
  });

  it('rule 6.3: what mongod checks is the bucket start (control.min, rounded), so 03:14:30 in a bucket starting 03:14:00 does not flag', () => {
    const { engine, buckets } = setup();
    insert(engine, [{ t: at(Date.UTC(2038, 0, 19, 3, 14, 30)), m: 'a' }]);
    assert.equal(buckets.buckets()[0].minTime.toISOString(), '2038-01-19T03:14:00.000Z');
    assert.equal(buckets.requiresExtendedRange, false);
    insert(engine, [{ t: at(Date.UTC(2038, 0, 19, 3, 15)), m: 'b' }]);
    assert.equal(buckets.requiresExtendedRange, true);
  });

  it('rule 6.3: other time-series collections keep expiring', () => {
    const { engine, clock } = setup({ expireAfterSeconds: 60 });
    engine.runCommand(DB, { create: 'old', timeseries: { timeField: 't' }, expireAfterSeconds: 60 });
    engine.runCommand(DB, { insert: 'old', documents: [{ t: at(Date.UTC(1965, 0, 1)) }, { t: at(T0) }] });
    insert(engine, [{ _id: 1, t: at(T0), m: 'a' }]);
    advanceTo(clock, 2 * HOUR);
    assert.deepEqual(ids(engine), []);
    assert.equal(engine.getCollection(DB, 'old')!.count, 2);
  });
});

// ---- counts for the UI ------------------------------------------------------------------------------

describe('time-series expiry counts agree with what the monitor deletes (rules 6.2, 6.4)', () => {
  it('rule 6.2: expiredNow counts whole buckets past minTime + span + expireAfterSeconds; the next pass deletes exactly that many', () => {
    const { engine, clock, coll } = setup({ expireAfterSeconds: 600 }, { parameters: { ttlMonitorEnabled: false } });
    insert(engine, [
      { _id: 1, t: at(T0), m: 'a' },
      { _id: 2, t: at(T0 + 50 * MINUTE), m: 'a' },
      { _id: 3, t: at(T0 + 30 * MINUTE), m: 'b' },
      { _id: 4, t: at(T0 + 3 * HOUR), m: 'a' },
    ]);
    // Bucket a@00:00 (2 measurements) is due at 01:10, b@00:30 at 01:40, a@03:00 at 04:10.
    const at69 = timeseriesExpiryCounts(coll, undefined, T0 + 69 * MINUTE, 3600);
    assert.deepEqual(
      at69,
      { expiredNow: 0, dueWithinWindow: 3 },
      'both early buckets fall due within the hour, the 03:00 one does not',
    );
    const at70 = timeseriesExpiryCounts(coll, undefined, T0 + 70 * MINUTE, 1800);
    assert.deepEqual(
      at70,
      { expiredNow: 2, dueWithinWindow: 1 },
      'the bound is inclusive: a@00:00 is expired at 01:10 exactly',
    );
    engine.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: true });
    advanceTo(clock, 70 * MINUTE);
    engine.ttl.runPass();
    assert.deepEqual(ids(engine), [3, 4], 'the pass deleted the 2 counted measurements');
    assert.deepEqual(timeseriesExpiryCounts(coll, undefined, T0 + 70 * MINUTE, 1800), {
      expiredNow: 0,
      dueWithinWindow: 1,
    });
  });

  it('rule 6.4: a partial TTL index counts only the buckets whose meta matches its filter; the cap bounds the count', () => {
    const { engine, coll } = setup({}, { parameters: { ttlMonitorEnabled: false } });
    engine.runCommand(DB, {
      createIndexes: 'ts',
      indexes: [
        { key: { t: 1 }, name: 'debug_ttl', expireAfterSeconds: 60, partialFilterExpression: { 'm.level': 'debug' } },
      ],
    });
    const docs: Document[] = [];
    for (let i = 0; i < 30; i++) docs.push({ t: at(T0 + i * SECOND), m: { level: i % 3 === 0 ? 'debug' : 'info' } });
    insert(engine, docs);
    assert.deepEqual(timeseriesExpiryCounts(coll, 'debug_ttl', T0 + HOUR + MINUTE, 60), {
      expiredNow: 10,
      dueWithinWindow: 0,
    });
    assert.deepEqual(timeseriesExpiryCounts(coll, 'debug_ttl', T0 + HOUR, 60), { expiredNow: 0, dueWithinWindow: 10 });
    assert.deepEqual(timeseriesExpiryCounts(coll, 'debug_ttl', T0 + HOUR + MINUTE, 60, 4), {
      expiredNow: 4,
      dueWithinWindow: 0,
    });
    assert.deepEqual(
      timeseriesExpiryCounts(coll, undefined, T0 + DAY, 60),
      { reason: 'expireAfterSeconds was removed' },
      'no collection-level TTL: nothing to count',
    );
  });

  it('rule 6.3: an extended-range collection reports why nothing is counted', () => {
    const { engine, coll } = setup({ expireAfterSeconds: 60 });
    insert(engine, [{ _id: 1, t: at(Date.UTC(1969, 6, 20)), m: 'a' }]);
    const r = timeseriesExpiryCounts(coll, undefined, T0, 60);
    assert.ok('reason' in r && /extended range/.test(r.reason), JSON.stringify(r));
  });
});
