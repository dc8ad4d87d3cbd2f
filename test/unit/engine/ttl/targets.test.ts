/**
 * What one TTL visit deletes (targets.ts), asked of the targets directly rather than through the
 * monitor's passes: the budget in documents and in real milliseconds, the batches, the interrupt
 * check between documents, which index entries are expired (rules 7.7–7.9, 5.4), the backlog, and
 * why a target is skipped (rule 7.6). Real time is read through `performance.now`, which the
 * budget tests replace with a counter so that "time is up" happens at a known call.
 */
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, loadLegacyIndexSpec, type Document } from '../../../../src/engine';
import type { Collection } from '../../../../src/engine/catalog/collection';
import type { StoredRecord } from '../../../../src/engine/catalog/record';
import { VirtualClock } from '../../../../src/engine/clock';
import { interruptedError, withInterrupts } from '../../../../src/engine/interrupt';
import {
  ClusteredTTLTarget,
  deleteWithinBudget,
  IndexTTLTarget,
  type VisitBudget,
} from '../../../../src/engine/ttl/targets';

const DB = 'app';
const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

function budget(over: Partial<VisitBudget> = {}): VisitBudget {
  return { maxDocs: 0, maxMillis: 0, now: T0, ...over };
}

/** Records in a map that `remove` deletes from; `candidates` reads what is left, in rid order. */
function pool(n: number) {
  const live = new Map<number, StoredRecord>();
  for (let rid = 1; rid <= n; rid++) live.set(rid, { rid, doc: { _id: rid }, idSlot: 0 });
  const removed: number[] = [];
  let scans = 0;
  return {
    live,
    removed,
    scans: () => scans,
    candidates: function* () {
      scans++;
      for (const record of [...live.values()]) yield record;
    },
    remove: (record: StoredRecord) => {
      assert.ok(live.delete(record.rid), `rid ${record.rid} removed once`);
      removed.push(record.rid);
    },
  };
}

/**
 * `performance.now` as a counter: each read is one millisecond after the last. `from` is the first
 * read: a clock far from zero tells a time spent (now − start) from a sum or a raw reading.
 */
function tickingTime(t: TestContext, from = 0): void {
  let now = from;
  t.mock.method(performance, 'now', () => now++);
}

/** A clock reading that is nowhere near zero, as in a process that has run for days. */
const LATE = 500_000_000;

function engineAt(): Engine {
  return new Engine({ clock: new VirtualClock(T0) });
}

function collection(engine: Engine, name = 'c'): Collection {
  return engine.getCollection(DB, name)!;
}

function insertDated(engine: Engine, n: number, ageMs: number, extra: (i: number) => Document = () => ({})): void {
  const docs: Document[] = [];
  for (let i = 0; i < n; i++) docs.push({ _id: i, t: new Date(T0 - ageMs), ...extra(i) });
  engine.db(DB).collection('c').insertMany(docs);
}

describe('deleteWithinBudget: one visit of a target that removes records itself', () => {
  it('unbounded: every candidate goes, in batches of at most 1024, and the visit is done', () => {
    const p = pool(2500);
    let largest = 0;
    let sinceScan = 0;
    let scansSeen = 0;
    const outcome = deleteWithinBudget(p.candidates, budget(), (record) => {
      if (p.scans() !== scansSeen) {
        scansSeen = p.scans();
        sinceScan = 0;
      }
      p.remove(record);
      largest = Math.max(largest, ++sinceScan);
    });
    assert.deepEqual(outcome, { kind: 'done', deleted: 2500 });
    assert.equal(p.live.size, 0);
    assert.equal(largest, 1024, 'a batch holds 1024 records at most');
    assert.equal(p.scans(), 4, 'three batches (1024, 1024, 452) and the scan that finds nothing');
  });

  it('a record the candidates yield twice is deleted once', () => {
    const p = pool(3);
    const twice = function* () {
      for (const record of p.candidates()) {
        yield record;
        yield record;
      }
    };
    assert.deepEqual(deleteWithinBudget(twice, budget(), p.remove), { kind: 'done', deleted: 3 });
    assert.deepEqual(p.removed, [1, 2, 3]);
  });

  it('maxDocs: stops at the budget, "more" while candidates are left, "done" when the budget took the last one', () => {
    const short = pool(5);
    assert.deepEqual(deleteWithinBudget(short.candidates, budget({ maxDocs: 3 }), short.remove), {
      kind: 'more',
      deleted: 3,
    });
    assert.deepEqual(short.removed, [1, 2, 3]);
    const exact = pool(5);
    assert.deepEqual(deleteWithinBudget(exact.candidates, budget({ maxDocs: 5 }), exact.remove), {
      kind: 'done',
      deleted: 5,
    });
    const roomy = pool(5);
    assert.deepEqual(deleteWithinBudget(roomy.candidates, budget({ maxDocs: 6 }), roomy.remove), {
      kind: 'done',
      deleted: 5,
    });
  });

  it('maxDocs above one batch: the budget spans batches and stops exactly at it', () => {
    const p = pool(3000);
    assert.deepEqual(deleteWithinBudget(p.candidates, budget({ maxDocs: 1500 }), p.remove), {
      kind: 'more',
      deleted: 1500,
    });
    assert.equal(p.live.size, 1500);
  });

  it('maxMillis: real time is read every 256 deletions, and a spent budget ends the visit with "more"', (t) => {
    tickingTime(t);
    const p = pool(1000);
    assert.deepEqual(deleteWithinBudget(p.candidates, budget({ maxMillis: 1 }), p.remove), {
      kind: 'more',
      deleted: 256,
    });
  });

  it('maxMillis: a budget not yet spent at a check lets the visit go on', (t) => {
    tickingTime(t);
    const p = pool(1000);
    // The start is read at 0; the checks at 256, 512 and 768 deletions read 1, 2 and 3.
    assert.deepEqual(deleteWithinBudget(p.candidates, budget({ maxMillis: 3 }), p.remove), {
      kind: 'more',
      deleted: 768,
    });
  });

  it("maxMillis: the time spent is counted from the visit's start, not from the clock's zero", (t) => {
    tickingTime(t, LATE);
    const p = pool(1000);
    // As above, but the clock reads LATE at the start: the checks still see 1, 2 and 3 ms spent.
    assert.deepEqual(deleteWithinBudget(p.candidates, budget({ maxMillis: 3 }), p.remove), {
      kind: 'more',
      deleted: 768,
    });
  });

  it('maxMillis 0 means no time limit', (t) => {
    tickingTime(t);
    const p = pool(1000);
    assert.deepEqual(deleteWithinBudget(p.candidates, budget({ maxMillis: 0 }), p.remove), {
      kind: 'done',
      deleted: 1000,
    });
  });

  it('an interrupt between two documents ends the visit with what was deleted, and the error', () => {
    const p = pool(10);
    let polls = 0;
    const source = {
      poll() {
        if (++polls > 4) throw interruptedError();
      },
    };
    const outcome = withInterrupts(source, () => deleteWithinBudget(p.candidates, budget(), p.remove));
    assert.equal(outcome.kind, 'more');
    assert.equal(outcome.deleted, 4);
    assert.equal(outcome.interrupted?.code, 11601);
    assert.equal(p.live.size, 6);
  });
});

describe('IndexTTLTarget: a secondary TTL index (rules 7.6–7.9)', () => {
  it('rule 7.8: the expired range is inclusive at now − expireAfterSeconds, for either direction of index', () => {
    for (const direction of [1, -1]) {
      const engine = engineAt();
      engine
        .db(DB)
        .collection('c')
        .insertMany([
          { _id: 'before', t: new Date(T0 - HOUR - 1) },
          { _id: 'at', t: new Date(T0 - HOUR) },
          { _id: 'after', t: new Date(T0 - HOUR + 1) },
          { _id: 'notDate', t: 'yesterday' },
        ]);
      engine.db(DB).collection('c').createIndex({ t: direction }, { expireAfterSeconds: 3600, name: 'ttl' });
      const target = new IndexTTLTarget(collection(engine), 'ttl');
      assert.deepEqual(target.backlog(T0), { count: 2, atLeast: false }, `direction ${direction}`);
      const outcome = target.visit(budget(), () => assert.fail('an index target removes records itself'));
      assert.deepEqual(outcome, { kind: 'done', deleted: 2, metricCount: 2 });
      const left = engine
        .db(DB)
        .collection('c')
        .find({}, { sort: { _id: 1 } });
      assert.deepEqual(
        left.map((d) => d._id),
        ['after', 'notDate'],
        `direction ${direction}`,
      );
    }
  });

  it('maxDocs: a visit deletes that many; "more" while expired entries are left, "done" when none are', () => {
    const engine = engineAt();
    insertDated(engine, 5, 2 * HOUR);
    engine.db(DB).collection('c').createIndex({ t: 1 }, { expireAfterSeconds: 3600, name: 'ttl' });
    const target = new IndexTTLTarget(collection(engine), 'ttl');
    assert.deepEqual(
      target.visit(budget({ maxDocs: 3 }), () => undefined),
      {
        kind: 'more',
        deleted: 3,
        metricCount: 3,
      },
    );
    assert.deepEqual(
      target.visit(budget({ maxDocs: 2 }), () => undefined),
      {
        kind: 'done',
        deleted: 2,
        metricCount: 2,
      },
    );
    assert.equal(engine.db(DB).collection('c').countDocuments({}), 0);
  });

  it('a multikey index deletes a document once, by its earliest date, and counts its backlog by document', () => {
    const engine = engineAt();
    engine
      .db(DB)
      .collection('c')
      .insertMany([
        { _id: 1, t: [new Date(T0 - 2 * HOUR), new Date(T0 - 3 * HOUR)] },
        { _id: 2, t: [new Date(T0 + HOUR), new Date(T0 - 2 * HOUR)] },
        { _id: 3, t: [new Date(T0 + HOUR)] },
      ]);
    engine.db(DB).collection('c').createIndex({ t: 1 }, { expireAfterSeconds: 3600, name: 'ttl' });
    const target = new IndexTTLTarget(collection(engine), 'ttl');
    assert.deepEqual(target.backlog(T0), { count: 2, atLeast: false });
    assert.deepEqual(
      target.visit(budget({ maxDocs: 1 }), () => undefined),
      {
        kind: 'more',
        deleted: 1,
        metricCount: 1,
      },
    );
    assert.deepEqual(
      target.visit(budget(), () => undefined),
      { kind: 'done', deleted: 1, metricCount: 1 },
    );
    assert.deepEqual(
      engine
        .db(DB)
        .collection('c')
        .find({})
        .map((d) => d._id),
      [3],
    );
  });

  it('batches: the first holds 16384 documents; batchedDeletes counts batches and documents', () => {
    const engine = engineAt();
    insertDated(engine, 16_384 + 10, 2 * HOUR);
    engine.db(DB).collection('c').createIndex({ t: 1 }, { expireAfterSeconds: 3600, name: 'ttl' });
    const batchStats = { batches: 0, docs: 0, timeMillis: 0 };
    const outcome = new IndexTTLTarget(collection(engine), 'ttl').visit(budget({ batchStats }), () => undefined);
    assert.deepEqual(outcome, { kind: 'done', deleted: 16_394, metricCount: 16_394 });
    assert.equal(batchStats.batches, 2);
    assert.equal(batchStats.docs, 16_394);
  });

  it('maxMillis: time is checked between batches; a spent budget leaves the rest for the next visit', (t) => {
    const engine = engineAt();
    insertDated(engine, 16_384 + 10, 2 * HOUR);
    engine.db(DB).collection('c').createIndex({ t: 1 }, { expireAfterSeconds: 3600, name: 'ttl' });
    tickingTime(t);
    // Reads: start 0, batch begins 1, after the batch 2: 2 ms spent of 2.
    const outcome = new IndexTTLTarget(collection(engine), 'ttl').visit(budget({ maxMillis: 2 }), () => undefined);
    assert.deepEqual(outcome, { kind: 'more', deleted: 16_384, metricCount: 16_384 });
  });

  it('maxMillis: later batches are sized by the pace of the first, so a fast visit needs fewer of them', (t) => {
    const engine = engineAt();
    insertDated(engine, 2 * 16_384 + 10, 2 * HOUR);
    engine.db(DB).collection('c').createIndex({ t: 1 }, { expireAfterSeconds: 3600, name: 'ttl' });
    tickingTime(t);
    const batchStats = { batches: 0, docs: 0, timeMillis: 0 };
    // One millisecond per batch of 16384 against a budget of a million: the next batch takes the rest.
    const outcome = new IndexTTLTarget(collection(engine), 'ttl').visit(
      budget({ maxMillis: 1_000_000, batchStats }),
      () => undefined,
    );
    assert.deepEqual(outcome, { kind: 'done', deleted: 2 * 16_384 + 10, metricCount: 2 * 16_384 + 10 });
    assert.equal(batchStats.batches, 2);
  });

  it('maxMillis: a later batch is sized to fill 80% of the time left at the pace of the last one', (t) => {
    const engine = engineAt();
    insertDated(engine, 16_384 + 26_214 + 10, 2 * HOUR);
    engine.db(DB).collection('c').createIndex({ t: 1 }, { expireAfterSeconds: 3600, name: 'ttl' });
    tickingTime(t, LATE);
    // Reads: start LATE, first batch LATE+1 to LATE+2: 16384 documents in 1 ms, 2 ms of 4 left, so
    // the second batch holds 0.8 × 2 × 16384 = 26214; after it 4 ms are spent and the visit ends.
    const outcome = new IndexTTLTarget(collection(engine), 'ttl').visit(budget({ maxMillis: 4 }), () => undefined);
    assert.deepEqual(outcome, { kind: 'more', deleted: 16_384 + 26_214, metricCount: 16_384 + 26_214 });
    assert.equal(engine.db(DB).collection('c').countDocuments({}), 10);
  });

  it('maxMillis: a batch too fast to measure (0 ms) gives no pace, so the next batch keeps its size', (t) => {
    const engine = engineAt();
    insertDated(engine, 2 * 16_384 + 10, 2 * HOUR);
    engine.db(DB).collection('c').createIndex({ t: 1 }, { expireAfterSeconds: 3600, name: 'ttl' });
    t.mock.method(performance, 'now', () => LATE);
    const batchStats = { batches: 0, docs: 0, timeMillis: 0 };
    // At 0 ms a document, "the time left at this pace" would be an unbounded batch.
    const outcome = new IndexTTLTarget(collection(engine), 'ttl').visit(
      budget({ maxMillis: 1000, batchStats }),
      () => undefined,
    );
    assert.deepEqual(outcome, { kind: 'done', deleted: 2 * 16_384 + 10, metricCount: 2 * 16_384 + 10 });
    assert.deepEqual(batchStats, { batches: 3, docs: 2 * 16_384 + 10, timeMillis: 0 });
  });

  it('batchedDeletes.timeMillis adds up the real time of each batch', (t) => {
    const engine = engineAt();
    insertDated(engine, 16_384 + 10, 2 * HOUR);
    engine.db(DB).collection('c').createIndex({ t: 1 }, { expireAfterSeconds: 3600, name: 'ttl' });
    tickingTime(t, LATE);
    const batchStats = { batches: 0, docs: 0, timeMillis: 0 };
    // No time limit: each batch reads the clock as it begins and once more as it is counted, 1 ms later.
    new IndexTTLTarget(collection(engine), 'ttl').visit(budget({ batchStats }), () => undefined);
    assert.deepEqual(batchStats, { batches: 2, docs: 16_394, timeMillis: 2 });
  });

  it('a multikey index with several expired dates of one document deletes and counts it once', () => {
    const engine = engineAt();
    engine
      .db(DB)
      .collection('c')
      .insertMany([
        { _id: 1, t: [new Date(T0 - 3 * HOUR), new Date(T0 - 2 * HOUR)] },
        { _id: 2, t: [new Date(T0 - 4 * HOUR), new Date(T0 - 2 * HOUR - 1)] },
        { _id: 3, t: [new Date(T0 + HOUR)] },
      ]);
    engine.db(DB).collection('c').createIndex({ t: 1 }, { expireAfterSeconds: 3600, name: 'ttl' });
    const target = new IndexTTLTarget(collection(engine), 'ttl');
    assert.deepEqual(target.backlog(T0), { count: 2, atLeast: false });
    const batchStats = { batches: 0, docs: 0, timeMillis: 0 };
    assert.deepEqual(
      target.visit(budget({ batchStats }), () => undefined),
      { kind: 'done', deleted: 2, metricCount: 2 },
    );
    assert.equal(batchStats.batches, 1, 'both documents in one batch');
    assert.deepEqual(
      engine
        .db(DB)
        .collection('c')
        .find({})
        .map((d) => d._id),
      [3],
    );
  });

  it('an interrupt before a batch ends the visit with the error and nothing deleted', () => {
    const engine = engineAt();
    insertDated(engine, 3, 2 * HOUR);
    engine.db(DB).collection('c').createIndex({ t: 1 }, { expireAfterSeconds: 3600, name: 'ttl' });
    const source = {
      poll() {
        throw interruptedError();
      },
    };
    const outcome = withInterrupts(source, () =>
      new IndexTTLTarget(collection(engine), 'ttl').visit(budget(), () => undefined),
    );
    assert.equal(outcome.kind, 'more');
    assert.ok(outcome.kind === 'more' && outcome.interrupted?.code === 11601);
    assert.equal(engine.db(DB).collection('c').countDocuments({}), 3);
  });

  it('rule 7.6: a dropped index, an unusable key and an invalid value are skipped with their reason and log id', () => {
    const engine = engineAt();
    insertDated(engine, 2, 2 * HOUR);
    engine.db(DB).collection('c').createIndex({ t: 'hashed' }, { expireAfterSeconds: 0, name: 'hashed' });
    loadLegacyIndexSpec(engine, DB, 'c', { v: 2, key: { t: 1, u: 1 }, name: 'compound', expireAfterSeconds: 0 });
    loadLegacyIndexSpec(engine, DB, 'c', { v: 2, key: { t: -1 }, name: 'nan', expireAfterSeconds: NaN });
    engine.db(DB).collection('c').createIndex({ u: 1 }, { name: 'plain' });
    const skipped = (name: string) => {
      const target = new IndexTTLTarget(collection(engine), name);
      assert.deepEqual(target.backlog(T0), { count: 0, atLeast: false }, `${name}: no backlog`);
      const outcome = target.visit(budget(), () => undefined);
      assert.equal(outcome.kind, 'skipped', name);
      return outcome.kind === 'skipped' ? [outcome.reason, outcome.logId] : [];
    };
    assert.deepEqual(skipped('gone'), ['no longer a TTL index', 0]);
    assert.deepEqual(skipped('plain'), ['no longer a TTL index', 0]);
    assert.deepEqual(skipped('hashed'), ["special index can't be used as a TTL index, skipping TTL job", 22541]);
    assert.deepEqual(skipped('compound'), ['key for ttl index can only have 1 field', 22540]);
    assert.deepEqual(skipped('nan'), [
      'Skipping TTL job due to invalid index spec (expireAfterSeconds is NaN, negative or beyond int32)',
      6909100,
    ]);
    assert.equal(engine.db(DB).collection('c').countDocuments({}), 2);
  });

  it('its label names the index', () => {
    const engine = engineAt();
    engine.db(DB).collection('c').createIndex({ t: 1 }, { expireAfterSeconds: 0, name: 'ttl' });
    assert.equal(new IndexTTLTarget(collection(engine), 'ttl').label, 'index ttl');
  });
});

describe('ClusteredTTLTarget: a clustered collection’s own expireAfterSeconds (rules 5.4, 7.10)', () => {
  function clustered(engine: Engine, expireAfterSeconds: number, ids: unknown[]): Collection {
    engine.runCommand(DB, { create: 'c', clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds });
    engine
      .db(DB)
      .collection('c')
      .insertMany(ids.map((_id) => ({ _id })));
    return collection(engine);
  }

  it('deletes the _id dates from 1970 to now − expireAfterSeconds (inclusive); other _ids stay', () => {
    const engine = engineAt();
    const coll = clustered(engine, 3600, [
      new Date(-1000),
      new Date(0),
      new Date(T0 - HOUR),
      new Date(T0 - HOUR + 1),
      'text',
      7,
    ]);
    const target = new ClusteredTTLTarget(coll);
    assert.equal(target.label, 'collection');
    assert.deepEqual(target.backlog(T0), { count: 2, atLeast: false });
    const removed: unknown[] = [];
    const outcome = target.visit(budget(), (record) => {
      removed.push(record.doc._id);
      coll.remove(record, 'ttl');
    });
    assert.deepEqual(outcome, { kind: 'done', deleted: 2 });
    assert.deepEqual(removed, [new Date(0), new Date(T0 - HOUR)]);
    assert.equal(engine.db(DB).collection('c').countDocuments({}), 4);
  });

  it('a threshold before 1970 deletes nothing and has no backlog', () => {
    const engine = engineAt();
    // The largest value createCollection takes now; asked about a moment earlier, the threshold is before 1970.
    const seconds = T0 / 1000 - 100;
    const coll = clustered(engine, seconds, [new Date(0), new Date(-5)]);
    const target = new ClusteredTTLTarget(coll);
    assert.deepEqual(target.backlog(T0), { count: 1, atLeast: false });
    const earlier = T0 - 200_000;
    assert.deepEqual(target.backlog(earlier), { count: 0, atLeast: false });
    assert.deepEqual(
      target.visit(budget({ now: earlier }), () => assert.fail('nothing is expired')),
      { kind: 'done', deleted: 0 },
    );
  });

  it('rule 5.4: a threshold of exactly 1970 still deletes the _id Date(0)', () => {
    const engine = engineAt();
    const seconds = T0 / 1000 - 100;
    const coll = clustered(engine, seconds, [new Date(0), new Date(1)]);
    const target = new ClusteredTTLTarget(coll);
    const atEpoch = seconds * 1000;
    assert.deepEqual(target.backlog(atEpoch), { count: 1, atLeast: false });
    const removed: unknown[] = [];
    const outcome = target.visit(budget({ now: atEpoch }), (record) => {
      removed.push(record.doc._id);
      coll.remove(record, 'ttl');
    });
    assert.deepEqual(outcome, { kind: 'done', deleted: 1 });
    assert.deepEqual(removed, [new Date(0)]);
  });

  it('rule 7.6: a stored expireAfterSeconds that is not a finite number is skipped, with no backlog', () => {
    const engine = engineAt();
    const coll = clustered(engine, 0, [new Date(0)]);
    // A catalog the engine did not write (create and collMod refuse it): set on the stored options.
    coll.options.expireAfterSeconds = Number.NaN;
    const target = new ClusteredTTLTarget(coll);
    assert.deepEqual(target.backlog(T0), { count: 0, atLeast: false });
    assert.deepEqual(
      target.visit(budget(), () => assert.fail('nothing expires')),
      { kind: 'skipped', reason: 'invalid clustered expireAfterSeconds', logId: 0 },
    );
  });

  it('a collection whose expireAfterSeconds was removed is skipped, with no backlog', () => {
    const engine = engineAt();
    const coll = clustered(engine, 0, [new Date(0)]);
    engine.runCommand(DB, { collMod: 'c', expireAfterSeconds: 'off' });
    const target = new ClusteredTTLTarget(coll);
    assert.deepEqual(target.backlog(T0), { count: 0, atLeast: false });
    assert.deepEqual(
      target.visit(budget(), () => undefined),
      {
        kind: 'skipped',
        reason: 'expireAfterSeconds was removed',
        logId: 0,
      },
    );
  });
});
