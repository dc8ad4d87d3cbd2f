/**
 * Time-series TTL targets asked directly (timeseries-target.ts; docs/ttl-rules.md rules 6.1–6.4,
 * 7.6, 7.12): which targets a collection has, why one is skipped, the visit's budgets between whole
 * buckets, the backlog in measurements, and the buckets the forecast reads. The monitor is switched
 * off so that only the visits asked for delete.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Long } from 'bson';
import { Engine, loadLegacyIndexSpec, type Document } from '../../../../src/engine';
import type { Collection } from '../../../../src/engine/catalog/collection';
import { VirtualClock } from '../../../../src/engine/clock';
import { interruptedError, withInterrupts } from '../../../../src/engine/interrupt';
import { BACKLOG_COUNT_LIMIT, type VisitBudget } from '../../../../src/engine/ttl/targets';
import {
  timeseriesExpiryCounts,
  timeseriesRuleBuckets,
  timeseriesTargets,
  TimeseriesCollectionTTLTarget,
  TimeseriesIndexTTLTarget,
} from '../../../../src/engine/ttl/timeseries-target';

const DB = 'app';
const T0 = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** A seconds-granularity bucket waits one hour (its span) on top of expireAfterSeconds. */
const SPAN = HOUR;

function setup(create: Document = {}): { engine: Engine; coll: Collection } {
  const engine = new Engine({ clock: new VirtualClock(T0), parameters: { ttlMonitorEnabled: false } });
  engine.runCommand(DB, { create: 'ts', timeseries: { timeField: 't', metaField: 'm' }, ...create });
  return { engine, coll: engine.getCollection(DB, 'ts')! };
}

/** `buckets` buckets of `perBucket` measurements each, metas m0, m1, … all at T0. */
function fill(engine: Engine, buckets: number, perBucket = 2): void {
  const docs: Document[] = [];
  for (let b = 0; b < buckets; b++)
    for (let i = 0; i < perBucket; i++) docs.push({ t: new Date(T0 + i * 1000), m: `m${b}` });
  engine.runCommand(DB, { insert: 'ts', documents: docs });
}

function budget(over: Partial<VisitBudget> = {}): VisitBudget {
  return { maxDocs: 0, maxMillis: 0, now: T0 + SPAN + 10 * MINUTE, ...over };
}

function ttlIndex(engine: Engine, name: string, expireAfterSeconds: number, partialFilterExpression?: Document): void {
  engine.runCommand(DB, {
    createIndexes: 'ts',
    indexes: [
      { key: { t: 1 }, name, expireAfterSeconds, ...(partialFilterExpression ? { partialFilterExpression } : {}) },
    ],
  });
}

function count(engine: Engine): number {
  return engine.db(DB).collection('ts').countDocuments({});
}

function skipReason(outcome: ReturnType<TimeseriesIndexTTLTarget['visit']>): [string, number] | undefined {
  return outcome.kind === 'skipped' ? [outcome.reason, outcome.logId] : undefined;
}

describe('timeseriesTargets: what the monitor visits on a collection', () => {
  it('none on an ordinary collection, even with a TTL index', () => {
    const engine = new Engine({ clock: new VirtualClock(T0) });
    engine.db(DB).collection('plain').createIndex({ t: 1 }, { expireAfterSeconds: 0 });
    assert.deepEqual(timeseriesTargets(engine.getCollection(DB, 'plain')!), []);
  });

  it('a time series without expireAfterSeconds or a TTL index has none; each rule is one target', () => {
    const { engine, coll } = setup();
    engine.db(DB).collection('ts').createIndex({ m: 1 }, { name: 'meta' });
    assert.deepEqual(timeseriesTargets(coll), []);
    ttlIndex(engine, 'a_ttl', 60, { m: 'a' });
    engine.runCommand(DB, { collMod: 'ts', expireAfterSeconds: 600 });
    const targets = timeseriesTargets(coll);
    assert.deepEqual(
      targets.map((t) => [t.constructor.name, t.label]),
      [
        ['TimeseriesCollectionTTLTarget', 'collection'],
        ['TimeseriesIndexTTLTarget', 'index a_ttl'],
      ],
    );
  });
});

describe('TimeseriesCollectionTTLTarget (rules 6.1, 6.2, 7.10)', () => {
  it('a bucket goes when its minimum time is expireAfterSeconds + the span old, inclusive; deleted counts measurements, the metric buckets', () => {
    const { engine, coll } = setup({ expireAfterSeconds: 60 });
    fill(engine, 3, 2);
    const target = new TimeseriesCollectionTTLTarget(coll);
    const due = T0 + (60 * 1000 + SPAN);
    assert.deepEqual(target.backlog(due - 1), { count: 0, atLeast: false });
    assert.deepEqual(target.backlog(due), { count: 6, atLeast: false });
    assert.deepEqual(
      target.visit(budget({ now: due - 1 }), () => undefined),
      {
        kind: 'done',
        deleted: 0,
        metricCount: 0,
      },
    );
    assert.deepEqual(
      target.visit(budget({ now: due }), () => undefined),
      { kind: 'done', deleted: 6, metricCount: 3 },
    );
    assert.equal(count(engine), 0);
  });

  it('maxDocs counts buckets: a visit stops after that many and says "more"', () => {
    const { engine, coll } = setup({ expireAfterSeconds: 0 });
    fill(engine, 3, 4);
    const target = new TimeseriesCollectionTTLTarget(coll);
    assert.deepEqual(
      target.visit(budget({ maxDocs: 2 }), () => undefined),
      {
        kind: 'more',
        deleted: 8,
        metricCount: 2,
      },
    );
    assert.deepEqual(
      target.visit(budget({ maxDocs: 2 }), () => undefined),
      {
        kind: 'done',
        deleted: 4,
        metricCount: 1,
      },
    );
  });

  it('maxMillis is read between buckets, never before the first: each bucket goes whole', (t) => {
    const { engine, coll } = setup({ expireAfterSeconds: 0 });
    fill(engine, 4, 3);
    let now = 0;
    t.mock.method(performance, 'now', () => now++);
    // The start reads 0; the checks after one and two buckets read 1 and 2.
    assert.deepEqual(
      new TimeseriesCollectionTTLTarget(coll).visit(budget({ maxMillis: 2 }), () => undefined),
      {
        kind: 'more',
        deleted: 6,
        metricCount: 2,
      },
    );
    assert.equal(count(engine), 6);
  });

  it('maxMillis counts the time spent since the visit began, not the clock reading itself', (t) => {
    const { engine, coll } = setup({ expireAfterSeconds: 0 });
    fill(engine, 4, 3);
    // A clock that has run for days: the start reads LATE, the checks after one and two buckets LATE+1, LATE+2.
    const LATE = 500_000_000;
    let now = LATE;
    t.mock.method(performance, 'now', () => now++);
    assert.deepEqual(
      new TimeseriesCollectionTTLTarget(coll).visit(budget({ maxMillis: 2 }), () => undefined),
      {
        kind: 'more',
        deleted: 6,
        metricCount: 2,
      },
    );
  });

  it('rule 7.10: a bucket starting at exactly 1970-01-01T00:00:00Z is in the scan from timestamp 0', () => {
    const { engine, coll } = setup({ expireAfterSeconds: 0 });
    engine.runCommand(DB, { insert: 'ts', documents: [{ t: new Date(0), m: 'epoch' }] });
    const target = new TimeseriesCollectionTTLTarget(coll);
    assert.deepEqual(target.backlog(budget().now), { count: 1, atLeast: false });
    const rule = timeseriesRuleBuckets(coll, undefined);
    assert.ok(!('reason' in rule));
    assert.deepEqual([...rule.buckets], [{ expiresMs: SPAN, count: 1 }]);
    assert.deepEqual(
      target.visit(budget(), () => undefined),
      { kind: 'done', deleted: 1, metricCount: 1 },
    );
    assert.equal(count(engine), 0);
  });

  it('a backlog that reaches BACKLOG_COUNT_LIMIT measurements says "at least"; one below it does not', () => {
    const { engine, coll } = setup({ expireAfterSeconds: 0 });
    // One meta, one second apart: 1000 measurements a bucket (timeseriesBucketMaxCount).
    const docs: Document[] = [];
    for (let i = 0; i < BACKLOG_COUNT_LIMIT - 1; i++) docs.push({ t: new Date(T0 + i * 1000), m: 'a' });
    for (let from = 0; from < docs.length; from += 50_000)
      engine.runCommand(DB, { insert: 'ts', documents: docs.slice(from, from + 50_000) });
    const target = new TimeseriesCollectionTTLTarget(coll);
    const late = T0 + 200_000 * 1000;
    assert.deepEqual(target.backlog(late), { count: BACKLOG_COUNT_LIMIT - 1, atLeast: false });
    engine.runCommand(DB, { insert: 'ts', documents: [{ t: new Date(T0 - 1000), m: 'a' }] });
    assert.deepEqual(target.backlog(late), { count: BACKLOG_COUNT_LIMIT, atLeast: true });
  });

  it('an interrupt between buckets ends the visit with the error, whole buckets deleted', () => {
    const { engine, coll } = setup({ expireAfterSeconds: 0 });
    fill(engine, 3, 2);
    let polls = 0;
    const source = {
      poll() {
        if (++polls > 1) throw interruptedError();
      },
    };
    const outcome = withInterrupts(source, () =>
      new TimeseriesCollectionTTLTarget(coll).visit(budget(), () => undefined),
    );
    assert.equal(outcome.kind, 'more');
    assert.ok(outcome.kind === 'more' && outcome.interrupted?.code === 11601);
    assert.deepEqual([outcome.deleted, outcome.kind === 'more' ? outcome.metricCount : -1], [2, 1]);
    assert.equal(count(engine), 4);
  });

  it('expireAfterSeconds turned off: skipped with why, no backlog, nothing for the forecast', () => {
    const { engine, coll } = setup({ expireAfterSeconds: 0 });
    fill(engine, 1);
    engine.runCommand(DB, { collMod: 'ts', expireAfterSeconds: 'off' });
    const target = new TimeseriesCollectionTTLTarget(coll);
    assert.deepEqual(
      target.visit(budget(), () => undefined),
      {
        kind: 'skipped',
        reason: 'expireAfterSeconds was removed',
        logId: 0,
      },
    );
    assert.deepEqual(target.backlog(budget().now), { count: 0, atLeast: false });
    assert.deepEqual(timeseriesRuleBuckets(coll, undefined), { reason: 'expireAfterSeconds was removed' });
  });

  it('rule 7.6: a stored expireAfterSeconds that is NaN or negative is skipped with why', () => {
    for (const stored of [Number.NaN, -1]) {
      const { engine, coll } = setup({ expireAfterSeconds: 0 });
      fill(engine, 1);
      // A catalog the engine did not write (create and collMod refuse both): set on the stored options.
      coll.options.expireAfterSeconds = stored;
      const target = new TimeseriesCollectionTTLTarget(coll);
      assert.deepEqual(
        target.visit(budget(), () => undefined),
        { kind: 'skipped', reason: 'invalid time-series expireAfterSeconds', logId: 0 },
        String(stored),
      );
      assert.deepEqual(target.backlog(budget().now), { count: 0, atLeast: false });
      assert.equal(count(engine), 2);
    }
  });

  it('rule 7.10: timeseriesExpiryCounts counts a bucket starting at exactly 1970 as expired', () => {
    const { engine, coll } = setup({ expireAfterSeconds: 0 });
    engine.runCommand(DB, { insert: 'ts', documents: [{ t: new Date(0), m: 'epoch' }] });
    assert.deepEqual(timeseriesExpiryCounts(coll, undefined, SPAN, 60), { expiredNow: 1, dueWithinWindow: 0 });
  });

  it('a collection that is not a time series is skipped as such, by both kinds of target', () => {
    const engine = new Engine({ clock: new VirtualClock(T0), parameters: { ttlMonitorEnabled: false } });
    engine
      .db(DB)
      .collection('plain')
      .insertOne({ t: new Date(0) });
    const plain = engine.getCollection(DB, 'plain')!;
    const expected = { kind: 'skipped', reason: 'not a time-series collection', logId: 0 };
    assert.deepEqual(
      new TimeseriesCollectionTTLTarget(plain).visit(budget(), () => undefined),
      expected,
    );
    assert.deepEqual(
      new TimeseriesIndexTTLTarget(plain, '_id_').visit(budget(), () => undefined),
      expected,
    );
    assert.deepEqual(timeseriesRuleBuckets(plain, undefined), { reason: 'not a time-series collection' });
  });
});

describe('TimeseriesIndexTTLTarget (rules 6.4, 7.6)', () => {
  it('deletes the buckets whose meta the filter selects, by the index own seconds', () => {
    const { engine, coll } = setup();
    fill(engine, 3, 2);
    ttlIndex(engine, 'm1_ttl', 60, { m: 'm1' });
    const target = new TimeseriesIndexTTLTarget(coll, 'm1_ttl');
    assert.equal(target.label, 'index m1_ttl');
    const due = T0 + 60_000 + SPAN;
    assert.deepEqual(target.backlog(due - 1), { count: 0, atLeast: false });
    assert.deepEqual(target.backlog(due), { count: 2, atLeast: false });
    assert.deepEqual(
      target.visit(budget({ now: due }), () => undefined),
      { kind: 'done', deleted: 2, metricCount: 1 },
    );
    assert.deepEqual(engine.db(DB).collection('ts').distinct('m', {}).sort(), ['m0', 'm2']);
  });

  it('rule 6.4: a bucket without a meta is matched as a document without the metaField', () => {
    const { engine, coll } = setup();
    engine.runCommand(DB, { insert: 'ts', documents: [{ t: new Date(T0), m: 'a' }, { t: new Date(T0) }] });
    ttlIndex(engine, 'has_meta', 0, { m: { $exists: true } });
    assert.deepEqual(
      new TimeseriesIndexTTLTarget(coll, 'has_meta').visit(budget(), () => undefined),
      { kind: 'done', deleted: 1, metricCount: 1 },
    );
    assert.deepEqual(
      engine
        .db(DB)
        .collection('ts')
        .find({}, { projection: { _id: 0 } }),
      [{ t: new Date(T0) }],
    );
  });

  it('a stored index without a partial filter (createIndexes requires one) covers every bucket', () => {
    const { engine, coll } = setup();
    fill(engine, 2, 2);
    loadLegacyIndexSpec(engine, DB, 'ts', { v: 2, key: { t: 1 }, name: 'all_ttl', expireAfterSeconds: 0 });
    assert.deepEqual(
      new TimeseriesIndexTTLTarget(coll, 'all_ttl').visit(budget(), () => undefined),
      {
        kind: 'done',
        deleted: 4,
        metricCount: 2,
      },
    );
  });

  it('an index recreated under the same name with another filter selects by the new filter', () => {
    const { engine, coll } = setup();
    fill(engine, 3, 1);
    ttlIndex(engine, 'sel', 0, { m: 'm0' });
    const first = new TimeseriesIndexTTLTarget(coll, 'sel');
    assert.deepEqual(first.backlog(budget().now), { count: 1, atLeast: false });
    engine.runCommand(DB, { dropIndexes: 'ts', index: 'sel' });
    ttlIndex(engine, 'sel', 0, { m: { $in: ['m1', 'm2'] } });
    assert.deepEqual(
      new TimeseriesIndexTTLTarget(coll, 'sel').visit(budget(), () => undefined),
      {
        kind: 'done',
        deleted: 2,
        metricCount: 2,
      },
    );
    assert.deepEqual(engine.db(DB).collection('ts').distinct('m', {}), ['m0']);
  });

  it('an index recreated with a filter that differs only past double precision selects by the new filter', () => {
    const { engine, coll } = setup();
    const [low, high] = [Long.fromString('9007199254740992'), Long.fromString('9007199254740993')];
    engine.runCommand(DB, {
      insert: 'ts',
      documents: [
        { t: new Date(T0), m: low },
        { t: new Date(T0), m: high },
      ],
    });
    ttlIndex(engine, 'sel', 0, { m: low });
    assert.deepEqual(new TimeseriesIndexTTLTarget(coll, 'sel').backlog(budget().now), { count: 1, atLeast: false });
    engine.runCommand(DB, { dropIndexes: 'ts', index: 'sel' });
    ttlIndex(engine, 'sel', 0, { m: high });
    new TimeseriesIndexTTLTarget(coll, 'sel').visit(budget(), () => undefined);
    assert.deepEqual(
      engine
        .db(DB)
        .collection('ts')
        .find({}, { projection: { _id: 0, m: 1 } }),
      [{ m: low }],
    );
  });

  it("a stored filter that fails on a bucket's meta selects nothing there, and the others still go", () => {
    const { engine, coll } = setup();
    engine.runCommand(DB, {
      insert: 'ts',
      documents: [
        { t: new Date(T0), m: 0 },
        { t: new Date(T0), m: 2 },
      ],
    });
    ttlIndex(engine, 'div', 0, { m: { $exists: true } });
    // A catalog the engine did not write ($expr is refused in a partial filter): 1 / m fails at m = 0.
    coll.indexes.get('div')!.spec.partialFilterExpression = { $expr: { $gt: [{ $divide: [1, '$m'] }, 0] } };
    assert.deepEqual(
      new TimeseriesIndexTTLTarget(coll, 'div').visit(budget(), () => undefined),
      { kind: 'done', deleted: 1, metricCount: 1 },
    );
    assert.deepEqual(
      engine
        .db(DB)
        .collection('ts')
        .find({}, { projection: { _id: 0, m: 1 } }),
      [{ m: 0 }],
    );
  });

  it('skipped with the reason and log id: dropped, not TTL, a special key, not on the timeField, an invalid value', () => {
    const { engine, coll } = setup();
    fill(engine, 1);
    engine.db(DB).collection('ts').createIndex({ m: 1 }, { name: 'plain' });
    loadLegacyIndexSpec(engine, DB, 'ts', { v: 2, key: { t: 'hashed' }, name: 'hashed', expireAfterSeconds: 0 });
    loadLegacyIndexSpec(engine, DB, 'ts', { v: 2, key: { m: 1 }, name: 'onMeta', expireAfterSeconds: 0 });
    loadLegacyIndexSpec(engine, DB, 'ts', { v: 2, key: { t: -1 }, name: 'nan', expireAfterSeconds: NaN });
    const reason = (name: string) => {
      const target = new TimeseriesIndexTTLTarget(coll, name);
      assert.deepEqual(target.backlog(budget().now), { count: 0, atLeast: false }, name);
      return skipReason(target.visit(budget(), () => undefined));
    };
    assert.deepEqual(reason('gone'), ['no longer a TTL index', 0]);
    assert.deepEqual(reason('plain'), ['no longer a TTL index', 0]);
    assert.deepEqual(reason('hashed'), ["special index can't be used as a TTL index, skipping TTL job", 22541]);
    assert.deepEqual(reason('onMeta'), ["TTL indexes on time-series collections must be on the timeField 't'", 0]);
    assert.deepEqual(reason('nan'), [
      'Skipping TTL job due to invalid index spec (expireAfterSeconds is NaN, negative or beyond int32)',
      6909100,
    ]);
    assert.deepEqual(timeseriesRuleBuckets(coll, 'onMeta'), {
      reason: "TTL indexes on time-series collections must be on the timeField 't'",
    });
    assert.equal(count(engine), 2);
  });

  it('rule 7.6: a stored partial filter that is not an object, or that cannot be compiled, skips the index with why', () => {
    const { engine, coll } = setup();
    fill(engine, 2, 1);
    ttlIndex(engine, 'odd', 0, { m: 'm0' });
    ttlIndex(engine, 'bad', 0, { m: 'm1' });
    // A catalog the engine did not write (createIndexes refuses both): set on the stored specs.
    coll.indexes.get('odd')!.spec.partialFilterExpression = 'm0';
    coll.indexes.get('bad')!.spec.partialFilterExpression = { m: { $bogus: 1 } };
    const odd = new TimeseriesIndexTTLTarget(coll, 'odd');
    assert.deepEqual(skipReason(odd.visit(budget(), () => undefined)), ['partialFilterExpression is not an object', 0]);
    assert.deepEqual(odd.backlog(budget().now), { count: 0, atLeast: false });
    const bad = skipReason(new TimeseriesIndexTTLTarget(coll, 'bad').visit(budget(), () => undefined));
    assert.match(bad![0], /^partialFilterExpression cannot be evaluated: .*\$bogus/);
    assert.equal(bad![1], 0);
    assert.equal(count(engine), 2);
  });

  it('rule 6.3: an extended-range collection skips the index too', () => {
    const { engine, coll } = setup();
    ttlIndex(engine, 'all_ttl', 0, { m: 'x' });
    engine.runCommand(DB, { insert: 'ts', documents: [{ t: new Date(Date.UTC(1969, 6, 20)), m: 'x' }] });
    const outcome = new TimeseriesIndexTTLTarget(coll, 'all_ttl').visit(budget(), () => undefined);
    assert.equal(outcome.kind, 'skipped');
    assert.match(skipReason(outcome)![0], /requires extended range support/);
  });
});

describe('timeseriesRuleBuckets: what the forecast reads (rules 6.2, 6.4)', () => {
  it('each bucket expires at its minimum time + expireAfterSeconds + the span; a what-if value replaces the stored one', () => {
    const { engine, coll } = setup({ expireAfterSeconds: 120 });
    fill(engine, 2, 3);
    const stored = timeseriesRuleBuckets(coll, undefined);
    assert.ok(!('reason' in stored));
    assert.equal(stored.seconds, 120);
    assert.deepEqual(
      [...stored.buckets],
      [
        { expiresMs: T0 + 120_000 + SPAN, count: 3 },
        { expiresMs: T0 + 120_000 + SPAN, count: 3 },
      ],
    );
    const whatIf = timeseriesRuleBuckets(coll, undefined, 5);
    assert.ok(!('reason' in whatIf));
    assert.equal(whatIf.seconds, 5);
    assert.deepEqual(
      [...whatIf.buckets].map((b) => b.expiresMs),
      [T0 + 5000 + SPAN, T0 + 5000 + SPAN],
    );
  });

  it("a partial index's buckets are those its filter selects", () => {
    const { engine, coll } = setup();
    fill(engine, 3, 2);
    ttlIndex(engine, 'm2_ttl', 30, { m: 'm2' });
    const rule = timeseriesRuleBuckets(coll, 'm2_ttl');
    assert.ok(!('reason' in rule));
    assert.deepEqual([...rule.buckets], [{ expiresMs: T0 + 30_000 + SPAN, count: 2 }]);
  });

  it('rule 6.4: a plain partial index of the timeField given a what-if value has the buckets it would delete as TTL; without one, none', () => {
    const { engine, coll } = setup();
    fill(engine, 3, 2);
    engine.runCommand(DB, {
      createIndexes: 'ts',
      indexes: [{ key: { t: 1 }, name: 'm1_plain', partialFilterExpression: { m: 'm1' } }],
    });
    assert.deepEqual(timeseriesRuleBuckets(coll, 'm1_plain'), { reason: 'no longer a TTL index' });
    const rule = timeseriesRuleBuckets(coll, 'm1_plain', 45);
    assert.ok(!('reason' in rule));
    assert.equal(rule.seconds, 45);
    assert.deepEqual([...rule.buckets], [{ expiresMs: T0 + 45_000 + SPAN, count: 2 }]);
  });

  it('rules 7.6 / 6.4: a what-if value stands in for a stored value the monitor would skip', () => {
    const { engine, coll } = setup();
    fill(engine, 1, 2);
    loadLegacyIndexSpec(engine, DB, 'ts', {
      v: 2,
      key: { t: 1 },
      name: 'nan',
      expireAfterSeconds: NaN,
      partialFilterExpression: { m: 'm0' },
    });
    assert.match((timeseriesRuleBuckets(coll, 'nan') as { reason: string }).reason, /invalid index spec/);
    const rule = timeseriesRuleBuckets(coll, 'nan', 10);
    assert.ok(!('reason' in rule));
    assert.deepEqual([...rule.buckets], [{ expiresMs: T0 + 10_000 + SPAN, count: 2 }]);
  });
});
