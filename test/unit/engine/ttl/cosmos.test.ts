/**
 * The Cosmos flavor's TTL (docs/ttl-rules.md §10): a hidden system `_ts` stamped by every write, the
 * `_ts` TTL index as collection default, per-document `ttl` overrides, and Cosmos reply fields.
 * Everything runs on a VirtualClock; the monitor passes every 60 s of virtual time.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal128, Double, Int32, Long } from 'bson';
import { Engine, loadLegacyIndexSpec, type Document } from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';
import {
  attachCosmosTTL,
  cosmosCollectionTTL,
  cosmosDocumentTTL,
  cosmosExpiryOf,
  cosmosStampOf,
  cosmosTimestampOf,
  cosmosTTLStatus,
  CosmosTTLTarget,
  isCosmosTimestampIndexSpec,
  restoreCosmosStamp,
} from '../../../../src/engine/ttl/cosmos';

const T0 = Date.UTC(2026, 0, 1);
const DB = 'app';
const SEC = 1000;

function setup(
  flavor: 'cosmos' | 'mongodb' = 'cosmos',
  parameters?: Record<string, unknown>,
): { engine: Engine; clock: VirtualClock } {
  const clock = new VirtualClock(T0);
  const engine = new Engine({ flavor, clock, ...(parameters ? { parameters } : {}) });
  return { engine, clock };
}

function coll(engine: Engine, name = 'c') {
  return engine.db(DB).collection(name);
}

function ids(engine: Engine, name = 'c'): unknown[] {
  return coll(engine, name)
    .find({}, { sort: { _id: 1 } })
    .map((d) => d._id);
}

function recordOf(engine: Engine, id: unknown, name = 'c') {
  const c = engine.getCollection(DB, name)!;
  const record = c.findById(id);
  assert.ok(record, `no record with _id ${String(id)}`);
  return { collection: c, record };
}

/** A collection with the `_ts` TTL index set to `seconds`. */
function withDefault(engine: Engine, seconds: number, name = 'c'): void {
  coll(engine, name).createIndex({ _ts: 1 }, { expireAfterSeconds: seconds });
}

describe('Cosmos flavor: the system _ts (rule 10.1)', () => {
  it('rule 10.1: _ts never appears in find results, projections or aggregate results', () => {
    const { engine } = setup();
    withDefault(engine, 3600);
    const c = coll(engine);
    c.insertMany([
      { _id: 1, a: 1 },
      { _id: 2, a: 2, ttl: 50 },
    ]);
    c.updateOne({ _id: 1 }, { $set: { b: 1 } });
    for (const doc of c.find()) assert.equal('_ts' in doc, false);
    for (const doc of c.find({}, { projection: { _ts: 1 } })) assert.deepEqual(Object.keys(doc), ['_id']);
    for (const doc of c.find({}, { projection: { a: 0 } })) assert.equal('_ts' in doc, false);
    for (const doc of c.aggregate([{ $match: {} }, { $addFields: { x: 1 } }])) assert.equal('_ts' in doc, false);
    assert.deepEqual(c.aggregate([{ $project: { _id: 0, ts: '$_ts' } }]), [{}, {}]);
    assert.equal(c.countDocuments({ _ts: { $exists: true } }), 0);
    assert.deepEqual(c.findOne({ _id: 2 }), { _id: 2, a: 2, ttl: 50 });
  });

  it('rule 10.1: _ts is the time of the last write, in whole seconds', () => {
    const { engine, clock } = setup();
    const c = coll(engine);
    clock.advance(1500);
    c.insertOne({ _id: 1 });
    const { collection, record } = recordOf(engine, 1);
    assert.equal(cosmosTimestampOf(collection, record), Math.floor((T0 + 1500) / SEC));
    clock.advance(10 * SEC);
    c.updateOne({ _id: 1 }, { $set: { a: 1 } });
    assert.equal(cosmosTimestampOf(collection, record), Math.floor((T0 + 11500) / SEC));
    clock.advance(5 * SEC);
    c.replaceOne({ _id: 1 }, { b: 2 });
    assert.equal(cosmosTimestampOf(collection, record), (T0 + 16500 - 500) / SEC);
  });
});

describe('Cosmos flavor: collection TTL through the _ts index (rule 10.1)', () => {
  it('rule 10.1: a document expires expireAfterSeconds after its last write', () => {
    const { engine, clock } = setup();
    withDefault(engine, 100);
    coll(engine).insertMany([{ _id: 1 }, { _id: 2 }]);
    clock.advance(60 * SEC); // pass at 60 s: 60 < 100
    assert.deepEqual(ids(engine), [1, 2]);
    clock.advance(60 * SEC); // pass at 120 s
    assert.deepEqual(ids(engine), []);
    assert.equal(engine.ttlMetrics.deletedDocuments, 2);
  });

  it('rule 10.1: a document inserted after a pass has looked at the collection expires from its own _ts too', () => {
    const { engine, clock } = setup();
    withDefault(engine, 100);
    coll(engine).insertOne({ _id: 1 });
    clock.advance(60 * SEC); // a pass at 60 s: nothing due, the expiry order is built
    coll(engine).insertOne({ _id: 2 }); // _ts 60 s: due at 160 s
    assert.equal(cosmosTTLStatus(engine.getCollection(DB, 'c')!)!.expiring, 2);
    clock.advance(60 * SEC); // pass at 120 s
    assert.deepEqual(ids(engine), [2]);
    clock.advance(60 * SEC); // pass at 180 s
    assert.deepEqual(ids(engine), []);
  });

  it('rule 10.1: the expiry is _ts + expireAfterSeconds, reported by cosmosExpiryOf', () => {
    const { engine } = setup();
    withDefault(engine, 100);
    coll(engine).insertMany([{ _id: 1 }, { _id: 2, ttl: 7 }, { _id: 3, ttl: -1 }]);
    const a = recordOf(engine, 1);
    assert.deepEqual(cosmosExpiryOf(a.collection, a.record), new Date(T0 + 100 * SEC));
    const b = recordOf(engine, 2);
    assert.deepEqual(cosmosExpiryOf(b.collection, b.record), new Date(T0 + 7 * SEC));
    const c = recordOf(engine, 3);
    assert.equal(cosmosExpiryOf(c.collection, c.record), null);
    const status = cosmosTTLStatus(a.collection)!;
    assert.deepEqual(status, {
      defaultSeconds: 100,
      indexName: '_ts_1',
      expiring: 2,
      nextExpiry: new Date(T0 + 7 * SEC),
    });
  });

  it('rule 10.1: every write resets the clock (an update postpones the expiry)', () => {
    const { engine, clock } = setup();
    withDefault(engine, 100);
    const c = coll(engine);
    c.insertMany([{ _id: 1 }, { _id: 2 }]);
    clock.advance(90 * SEC);
    c.updateOne({ _id: 1 }, { $set: { touched: true } }); // _ts = 90 s, expires at 190 s
    clock.advance(30 * SEC); // pass at 120 s
    assert.deepEqual(ids(engine), [1]);
    clock.advance(60 * SEC); // pass at 180 s
    assert.deepEqual(ids(engine), [1]);
    clock.advance(60 * SEC); // pass at 240 s
    assert.deepEqual(ids(engine), []);
  });

  it('rule 10.1: a replacement resets the clock too', () => {
    const { engine, clock } = setup();
    withDefault(engine, 100);
    const c = coll(engine);
    c.insertOne({ _id: 1, v: 1 });
    clock.advance(90 * SEC);
    c.replaceOne({ _id: 1 }, { v: 2 });
    clock.advance(90 * SEC); // passes at 120 s and 180 s; expires at 190 s
    assert.deepEqual(ids(engine), [1]);
    clock.advance(60 * SEC);
    assert.deepEqual(ids(engine), []);
  });

  it('rule 10.1: documents written before the _ts index was created expire from their own _ts', () => {
    const { engine, clock } = setup();
    coll(engine).insertOne({ _id: 1 });
    clock.advance(500 * SEC);
    coll(engine).insertOne({ _id: 2 });
    withDefault(engine, 300);
    clock.advance(60 * SEC);
    assert.deepEqual(ids(engine), [2]);
  });

  it('rule 3.6 / 10.1: collMod of the _ts index changes the default at the next pass', () => {
    const { engine, clock } = setup();
    withDefault(engine, 100_000);
    coll(engine).insertMany([{ _id: 1 }, { _id: 2, ttl: 50_000 }, { _id: 3, ttl: -1 }]);
    clock.advance(60 * SEC);
    assert.deepEqual(ids(engine), [1, 2, 3]);
    const reply = engine.runCommand(DB, { collMod: 'c', index: { keyPattern: { _ts: 1 }, expireAfterSeconds: 30 } });
    assert.equal(reply.ok, 1);
    clock.advance(60 * SEC);
    assert.deepEqual(ids(engine), [2, 3], 'the own ttl of 50 000 s still overrides the new default');
  });

  it('rule 7.3: a visit deletes at most ttlIndexDeleteTargetDocs, the pass finishes the rest', () => {
    const { engine, clock } = setup('cosmos', { ttlIndexDeleteTargetDocs: 10 });
    withDefault(engine, 30);
    coll(engine).insertMany(Array.from({ length: 25 }, (_, i) => ({ _id: i })));
    clock.advance(60 * SEC);
    assert.equal(coll(engine).countDocuments(), 0);
    const pass = engine.ttl.status().lastPass!;
    assert.deepEqual(
      pass.visits.filter((v) => v.collection === 'c').map((v) => v.deleted),
      [10, 10, 5],
    );
    assert.deepEqual(
      pass.visits.map((v) => v.target),
      ['index _ts_1', 'index _ts_1', 'index _ts_1'],
    );
  });

  it('rule 7.11: Cosmos TTL deletes reach listeners with cause "ttl"', () => {
    const { engine, clock } = setup();
    withDefault(engine, 10);
    coll(engine).insertMany([{ _id: 1 }, { _id: 2 }]);
    const seen: Array<{ kind: string; cause?: string; count?: number }> = [];
    engine.onDidChange((events) => {
      for (const e of events) seen.push(e);
    });
    clock.advance(60 * SEC);
    const deletes = seen.filter((e) => e.kind === 'documentsDeleted');
    assert.ok(deletes.length > 0);
    assert.ok(deletes.every((e) => e.cause === 'ttl'));
    assert.equal(
      deletes.reduce((n, e) => n + (e.count ?? 0), 0),
      2,
    );
  });
});

describe('Cosmos flavor: per-document ttl (rules 10.2–10.4)', () => {
  it('rule 10.2: a ttl shorter than the collection TTL wins', () => {
    const { engine, clock } = setup();
    withDefault(engine, 1000);
    coll(engine).insertMany([{ _id: 1, ttl: 30 }, { _id: 2 }]);
    clock.advance(60 * SEC);
    assert.deepEqual(ids(engine), [2]);
  });

  it('rule 10.2: a ttl longer than the collection TTL wins', () => {
    const { engine, clock } = setup();
    withDefault(engine, 30);
    coll(engine).insertMany([{ _id: 1, ttl: 200 }, { _id: 2 }]);
    clock.advance(60 * SEC);
    assert.deepEqual(ids(engine), [1]);
    clock.advance(120 * SEC); // passes at 120 s and 180 s
    assert.deepEqual(ids(engine), [1]);
    clock.advance(60 * SEC); // pass at 240 s ≥ 200 s
    assert.deepEqual(ids(engine), []);
  });

  it('rule 10.3: valid forms NumberInt(20), NumberLong(20), 20.0 and 20 all override', () => {
    const { engine, clock } = setup();
    withDefault(engine, 1000);
    coll(engine).insertMany([
      { _id: 1, ttl: new Int32(20) },
      { _id: 2, ttl: Long.fromNumber(20) },
      { _id: 3, ttl: new Double(20) },
      { _id: 4, ttl: 20 },
      { _id: 5 },
    ]);
    clock.advance(60 * SEC);
    assert.deepEqual(ids(engine), [5]);
  });

  it('rule 10.3: a ttl of 20.5 is ignored and the collection TTL applies', () => {
    const { engine, clock } = setup();
    withDefault(engine, 150);
    coll(engine).insertOne({ _id: 1, ttl: 20.5 });
    clock.advance(120 * SEC);
    assert.deepEqual(ids(engine), [1]);
    clock.advance(60 * SEC);
    assert.deepEqual(ids(engine), []);
  });

  it('rule 10.3: invalid forms (20.5, NumberLong(2147483649), "20", decimal, 0, -5) are accepted on insert and ignored', () => {
    const { engine, clock } = setup();
    withDefault(engine, 150);
    const docs = [
      { _id: 1, ttl: 20.5 },
      { _id: 2, ttl: Long.fromString('2147483649') },
      { _id: 3, ttl: '20' },
      { _id: 4, ttl: Decimal128.fromString('20') },
      { _id: 5, ttl: 0 },
      { _id: 6, ttl: -5 },
      { _id: 7, ttl: null },
      { _id: 8, ttl: 2147483648 },
      { _id: 9, ttl: { seconds: 20 } },
    ];
    const reply = engine.runCommand(DB, { insert: 'c', documents: docs });
    assert.equal(reply.n, docs.length);
    assert.equal(reply.writeErrors, undefined);
    assert.equal(coll(engine).findOne({ _id: 3 })!.ttl, '20', 'the ttl field is stored as given');
    clock.advance(120 * SEC); // the own ttl would have deleted everything by now
    assert.deepEqual(ids(engine), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    clock.advance(60 * SEC); // 180 s ≥ 150 s: the collection TTL applies
    assert.deepEqual(ids(engine), []);
  });

  it('rule 10.3: NumberLong(2147483647) is the largest valid form', () => {
    assert.deepEqual(cosmosDocumentTTL({ ttl: Long.fromNumber(2147483647) }), { kind: 'seconds', seconds: 2147483647 });
    assert.equal(cosmosDocumentTTL({ ttl: Long.fromString('2147483648') }).kind, 'invalid');
    assert.equal(cosmosDocumentTTL({ ttl: 2147483647.0 }).kind, 'seconds');
    assert.equal(cosmosDocumentTTL({ ttl: Number.NaN }).kind, 'invalid');
    assert.equal(cosmosDocumentTTL({ ttl: Number.POSITIVE_INFINITY }).kind, 'invalid');
    assert.equal(cosmosDocumentTTL({ ttl: true }).kind, 'invalid');
    assert.equal(cosmosDocumentTTL({ TTL: 20 }).kind, 'absent', 'only the lower-case name counts');
    assert.equal(cosmosDocumentTTL({ a: { ttl: 20 } }).kind, 'absent', 'only a root-level ttl counts');
  });

  it('rule 10.4: ttl -1 never expires (in every valid numeric form)', () => {
    const { engine, clock } = setup();
    withDefault(engine, 10);
    coll(engine).insertMany([
      { _id: 1, ttl: -1 },
      { _id: 2, ttl: new Int32(-1) },
      { _id: 3, ttl: Long.fromNumber(-1) },
      { _id: 4, ttl: -1.0 },
      { _id: 5 },
    ]);
    clock.advance(24 * 3600 * SEC);
    assert.deepEqual(ids(engine), [1, 2, 3, 4]);
  });

  it('rule 10.4: ttl 0 and other negatives are ignored (confidence low): the collection TTL applies', () => {
    assert.equal(cosmosDocumentTTL({ ttl: 0 }).kind, 'invalid');
    assert.equal(cosmosDocumentTTL({ ttl: -2 }).kind, 'invalid');
    assert.equal(cosmosDocumentTTL({ ttl: new Int32(-100) }).kind, 'invalid');
    assert.deepEqual(cosmosDocumentTTL({ ttl: -1 }), { kind: 'never' });
    assert.deepEqual(cosmosDocumentTTL({}), { kind: 'absent' });
  });

  it('rule 10.2: updating ttl re-evaluates the document (set -1, then unset)', () => {
    const { engine, clock } = setup();
    withDefault(engine, 100);
    const c = coll(engine);
    c.insertMany([{ _id: 1 }, { _id: 2, ttl: 30 }]);
    c.updateOne({ _id: 1 }, { $set: { ttl: -1 } });
    c.updateOne({ _id: 2 }, { $unset: { ttl: '' } });
    clock.advance(60 * SEC);
    assert.deepEqual(ids(engine), [1, 2], 'ttl 30 was removed, so the default of 100 s applies to _id 2');
    clock.advance(60 * SEC);
    assert.deepEqual(ids(engine), [1]);
    c.updateOne({ _id: 1 }, { $set: { ttl: 5 } }); // written at 120 s: expires at 125 s
    clock.advance(60 * SEC);
    assert.deepEqual(ids(engine), []);
  });

  it('rule 10.2: without a _ts TTL index, per-document ttl is ignored and nothing expires', () => {
    const { engine, clock } = setup();
    coll(engine).insertMany([{ _id: 1, ttl: 10 }, { _id: 2 }]);
    clock.advance(3600 * SEC);
    assert.deepEqual(ids(engine), [1, 2]);
    const { collection, record } = recordOf(engine, 1);
    assert.equal(cosmosExpiryOf(collection, record), null);
    assert.ok(engine.ttl.status().metrics.passes >= 60, 'passes ran');
  });

  it('rule 10.2: a non-TTL index on _ts is no collection default', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ _ts: 1 });
    coll(engine).insertMany([{ _id: 1, ttl: 10 }, { _id: 2 }]);
    clock.advance(600 * SEC);
    assert.deepEqual(ids(engine), [1, 2]);
  });

  it('rule 10.2: dropping the _ts index stops expiry', () => {
    const { engine, clock } = setup();
    withDefault(engine, 100);
    const c = coll(engine);
    c.insertMany([{ _id: 1 }, { _id: 2, ttl: 20 }]);
    clock.advance(10 * SEC);
    c.dropIndex('_ts_1');
    clock.advance(3600 * SEC);
    assert.deepEqual(ids(engine), [1, 2]);
    // Recreating it brings expiry back, from each document's last write.
    withDefault(engine, 100);
    clock.advance(60 * SEC);
    assert.deepEqual(ids(engine), []);
  });
  it('rule 10.1: a stored field named _ts is not the system _ts (the monitor does not walk the _ts index as dates)', () => {
    const { engine, clock } = setup();
    withDefault(engine, 100);
    coll(engine).insertMany([
      { _id: 1, _ts: new Date(T0 - 365 * 24 * 3600 * SEC), ttl: -1 },
      { _id: 2, _ts: new Date(T0 - 1000 * SEC) },
    ]);
    clock.advance(60 * SEC);
    assert.deepEqual(ids(engine), [1, 2], 'expiry follows the system _ts (the last write), not the stored field');
    clock.advance(60 * SEC);
    assert.deepEqual(ids(engine), [1]);
  });
});

describe('Cosmos flavor: replies and the mongodb flavor', () => {
  it('rule 10.5: the createIndexes reply carries _t: "CreateIndexesResponse"', () => {
    const { engine } = setup();
    const reply = engine.runCommand(DB, {
      createIndexes: 'c',
      indexes: [{ key: { _ts: 1 }, name: '_ts_1', expireAfterSeconds: 60 }],
    });
    assert.equal(reply._t, 'CreateIndexesResponse');
    assert.equal(reply.ok, 1);
    const listed = engine.runCommand(DB, { listIndexes: 'c' }).cursor as Document;
    const ts = (listed.firstBatch as Document[]).find((i) => i.name === '_ts_1')!;
    assert.equal(Number(ts.expireAfterSeconds), 60);
  });

  it('rule 10.5: the mongodb flavor has no _t in createIndexes replies', () => {
    const { engine } = setup('mongodb');
    const reply = engine.runCommand(DB, { createIndexes: 'c', indexes: [{ key: { t: 1 }, name: 't_1' }] });
    assert.equal(reply._t, undefined);
  });

  it('rule 7.8: in the cosmos flavor an ordinary TTL index on a date field still works as in mongod', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ at: 1 }, { expireAfterSeconds: 0 });
    coll(engine).insertMany([
      { _id: 1, at: new Date(T0 + 30 * SEC) },
      { _id: 2, at: new Date(T0 + 3600 * SEC) },
      { _id: 3, ttl: 1 },
    ]);
    clock.advance(60 * SEC);
    assert.deepEqual(ids(engine), [2, 3]);
  });

  it('mongodb flavor: a ttl field means nothing and a _ts TTL index only sees real _ts dates (rule 7.8)', () => {
    const { engine, clock } = setup('mongodb');
    withDefault(engine, 10);
    coll(engine).insertMany([
      { _id: 1, ttl: 5 },
      { _id: 2 },
      { _id: 3, _ts: new Date(T0) },
      { _id: 4, ttl: -1, _ts: new Date(T0) },
    ]);
    clock.advance(60 * SEC);
    assert.deepEqual(ids(engine), [1, 2]);
    const { collection, record } = recordOf(engine, 1);
    assert.equal(cosmosTimestampOf(collection, record), undefined, 'no _ts is tracked in the mongodb flavor');
    assert.equal(cosmosExpiryOf(collection, record), undefined);
    const pass = engine.ttl.status().lastPass!;
    assert.deepEqual(
      pass.visits.map((v) => v.target),
      ['index _ts_1'],
    );
  });
});

describe('Cosmos flavor: why an own ttl is ignored, and which _ts index is the default (rules 10.1–10.4)', () => {
  const ignored = (what: string) => `ttl is ${what}: ignored, the collection TTL applies (rule 10.3)`;
  const notPositive = (n: string) =>
    `ttl ${n} is neither positive nor -1: ignored, the collection TTL applies (rule 10.4, confidence low)`;

  it('rule 10.3: each ignored form says what it is', () => {
    const cases: [unknown, string][] = [
      [20.5, ignored('a double with a fractional part (20.5)')],
      [Number.NaN, ignored('a double that is not finite (NaN)')],
      [Number.NEGATIVE_INFINITY, ignored('a double that is not finite (-Infinity)')],
      [new Double(1e10), ignored('a double outside the int32 range (10000000000)')],
      [-2147483649, ignored('a double outside the int32 range (-2147483649)')],
      [2147483648, ignored('a double outside the int32 range (2147483648)')],
      [Long.fromString('-2147483649'), ignored('a NumberLong outside the int32 range (-2147483649)')],
      [Long.fromString('2147483648'), ignored('a NumberLong outside the int32 range (2147483648)')],
      [2147483648n, ignored('a NumberLong outside the int32 range (2147483648)')],
      [-2147483649n, ignored('a NumberLong outside the int32 range (-2147483649)')],
      [null, ignored('not an int32, int64 or whole double (null)')],
      [[20], ignored('not an int32, int64 or whole double (an array)')],
      [new Date(0), ignored('not an int32, int64 or whole double (a date)')],
      [Decimal128.fromString('20'), ignored('not an int32, int64 or whole double (Decimal128)')],
      [{ seconds: 20 }, ignored('not an int32, int64 or whole double (an object)')],
      ['20', ignored('not an int32, int64 or whole double (string)')],
      [true, ignored('not an int32, int64 or whole double (boolean)')],
    ];
    for (const [ttl, reason] of cases)
      assert.deepEqual(cosmosDocumentTTL({ ttl }), { kind: 'invalid', reason }, reason);
  });

  it('rule 10.4: the int32 range ends are whole int32s; 0 and the lowest are not positive', () => {
    assert.deepEqual(cosmosDocumentTTL({ ttl: -2147483648 }), { kind: 'invalid', reason: notPositive('-2147483648') });
    assert.deepEqual(cosmosDocumentTTL({ ttl: Long.fromString('-2147483648') }), {
      kind: 'invalid',
      reason: notPositive('-2147483648'),
    });
    assert.deepEqual(cosmosDocumentTTL({ ttl: new Int32(0) }), { kind: 'invalid', reason: notPositive('0') });
    assert.deepEqual(cosmosDocumentTTL({ ttl: -0 }), { kind: 'invalid', reason: notPositive('0') });
    assert.deepEqual(cosmosDocumentTTL({ ttl: 1 }), { kind: 'seconds', seconds: 1 });
    assert.deepEqual(cosmosDocumentTTL({ ttl: 2147483647 }), { kind: 'seconds', seconds: 2147483647 });
  });

  it('rule 10.3: a BSON Double, an Int32 and a bigint in range are read as their number', () => {
    assert.deepEqual(cosmosDocumentTTL({ ttl: new Double(20) }), { kind: 'seconds', seconds: 20 });
    assert.deepEqual(cosmosDocumentTTL({ ttl: new Int32(5) }), { kind: 'seconds', seconds: 5 });
    assert.deepEqual(cosmosDocumentTTL({ ttl: 20n }), { kind: 'seconds', seconds: 20 });
    assert.deepEqual(cosmosDocumentTTL({ ttl: -1n }), { kind: 'never' });
    assert.deepEqual(cosmosDocumentTTL({ ttl: undefined }), { kind: 'absent' });
  });

  it('rule 10.1: a hashed _ts index, a compound one or an invalid stored value is no default; the first usable one is', () => {
    const { engine } = setup();
    coll(engine).insertOne({ _id: 1 });
    coll(engine).createIndex({ _ts: 'hashed' }, { expireAfterSeconds: 5 });
    loadLegacyIndexSpec(engine, DB, 'c', { v: 2, key: { _ts: -1 }, name: 'nan', expireAfterSeconds: Number.NaN });
    loadLegacyIndexSpec(engine, DB, 'c', { v: 2, key: { _ts: 1, a: 1 }, name: 'compound', expireAfterSeconds: 7 });
    const c = engine.getCollection(DB, 'c')!;
    assert.equal(cosmosCollectionTTL(c), undefined);
    assert.deepEqual(cosmosTTLStatus(c), { defaultSeconds: null, indexName: null, expiring: 0, nextExpiry: null });
    withDefault(engine, 100);
    assert.deepEqual(cosmosCollectionTTL(c), { seconds: 100, indexName: '_ts_1' });
    assert.deepEqual(cosmosTTLStatus(c), {
      defaultSeconds: 100,
      indexName: '_ts_1',
      expiring: 1,
      nextExpiry: new Date(T0 + 100 * SEC),
    });
  });

  it('rule 10.2: a target whose _ts index is gone is skipped with why, and has no backlog', () => {
    const { engine } = setup('cosmos', { ttlMonitorEnabled: false });
    withDefault(engine, 0);
    coll(engine).insertMany([{ _id: 1 }, { _id: 2 }]);
    const c = engine.getCollection(DB, 'c')!;
    const target = new CosmosTTLTarget(c, '_ts_1');
    assert.equal(target.label, 'index _ts_1');
    assert.deepEqual(target.backlog(T0), { count: 2, atLeast: false });
    coll(engine).dropIndex('_ts_1');
    assert.deepEqual(target.backlog(T0), { count: 0, atLeast: false });
    assert.deepEqual(
      target.visit({ maxDocs: 0, maxMillis: 0, now: T0 }, () => assert.fail('nothing expires')),
      { kind: 'skipped', reason: 'no TTL index on _ts any more: nothing expires (rule 10.2)', logId: 0 },
    );
    assert.deepEqual(ids(engine), [1, 2]);
  });

  it('a collection without Cosmos tracking: no stamps, no status, a target that skips', () => {
    const { engine } = setup('mongodb');
    coll(engine).insertOne({ _id: 1 });
    const { collection, record } = recordOf(engine, 1);
    assert.equal(cosmosTimestampOf(collection, record), undefined);
    assert.equal(cosmosExpiryOf(collection, record), undefined);
    assert.equal(cosmosTTLStatus(collection), undefined);
    const target = new CosmosTTLTarget(collection, '_ts_1');
    assert.deepEqual(target.backlog(T0), { count: 0, atLeast: false });
    assert.deepEqual(
      target.visit({ maxDocs: 0, maxMillis: 0, now: T0 }, () => undefined),
      {
        kind: 'skipped',
        reason: 'the collection has no Cosmos _ts tracking',
        logId: 0,
      },
    );
  });
});

describe('Cosmos flavor: the expiry order the monitor walks (rules 10.1, 7.8)', () => {
  const noBudget = (now: number) => ({ maxDocs: 0, maxMillis: 0, now });

  it('rule 7.8: a document whose expiry is exactly now is expired, for the backlog and the visit', () => {
    const { engine } = setup('cosmos', { ttlMonitorEnabled: false });
    withDefault(engine, 100);
    coll(engine).insertMany([{ _id: 1 }, { _id: 2, ttl: 101 }]);
    const target = new CosmosTTLTarget(engine.getCollection(DB, 'c')!, '_ts_1');
    const due = T0 + 100 * SEC;
    assert.deepEqual(target.backlog(due - 1), { count: 0, atLeast: false });
    assert.deepEqual(target.backlog(due), { count: 1, atLeast: false });
    assert.deepEqual(
      target.visit(noBudget(due), (record) => engine.getCollection(DB, 'c')!.remove(record, 'ttl')),
      { kind: 'done', deleted: 1 },
    );
    assert.deepEqual(ids(engine), [2]);
  });

  it('rule 10.2: under a document budget the earliest expiries go first, whatever the insertion order', () => {
    const { engine } = setup('cosmos', { ttlMonitorEnabled: false });
    withDefault(engine, 1000);
    coll(engine).insertMany([
      { _id: 'late', ttl: 300 },
      { _id: 'default' },
      { _id: 'first', ttl: 10 },
      { _id: 'second', ttl: 20 },
    ]);
    const c = engine.getCollection(DB, 'c')!;
    const removed: unknown[] = [];
    const outcome = new CosmosTTLTarget(c, '_ts_1').visit({ maxDocs: 3, maxMillis: 0, now: T0 + 2000 * SEC }, (r) => {
      removed.push(r.doc._id);
      c.remove(r, 'ttl');
    });
    assert.deepEqual(outcome, { kind: 'more', deleted: 3 });
    assert.deepEqual(removed, ['first', 'second', 'late']);
  });

  it('rule 3.6 / 10.1: a target re-reads the _ts index at each visit and backlog, with no write since the collMod', () => {
    const { engine } = setup('cosmos', { ttlMonitorEnabled: false });
    withDefault(engine, 1000);
    coll(engine).insertMany([{ _id: 1 }, { _id: 2 }]);
    const c = engine.getCollection(DB, 'c')!;
    const target = new CosmosTTLTarget(c, '_ts_1');
    const at = T0 + 60 * SEC;
    assert.deepEqual(target.backlog(at), { count: 0, atLeast: false });
    engine.runCommand(DB, { collMod: 'c', index: { keyPattern: { _ts: 1 }, expireAfterSeconds: 30 } });
    assert.deepEqual(target.backlog(at), { count: 2, atLeast: false });
    engine.runCommand(DB, { collMod: 'c', index: { keyPattern: { _ts: 1 }, expireAfterSeconds: 1000 } });
    assert.deepEqual(
      target.visit(noBudget(at), (r) => c.remove(r, 'ttl')),
      { kind: 'done', deleted: 0 },
    );
    engine.runCommand(DB, { collMod: 'c', index: { keyPattern: { _ts: 1 }, expireAfterSeconds: 50 } });
    assert.deepEqual(
      target.visit(noBudget(at), (r) => c.remove(r, 'ttl')),
      { kind: 'done', deleted: 2 },
    );
  });

  it('rule 10.1: a restored _ts (from storage) replaces the stamp and refiles the record under it', () => {
    const { engine } = setup('cosmos', { ttlMonitorEnabled: false });
    withDefault(engine, 100);
    coll(engine).insertMany([{ _id: 1 }, { _id: 2 }]);
    const { collection, record } = recordOf(engine, 1);
    assert.equal(cosmosStampOf(collection, record.rid), T0 / SEC);
    restoreCosmosStamp(collection, record, T0 / SEC - 1000);
    assert.equal(cosmosStampOf(collection, record.rid), T0 / SEC - 1000);
    assert.deepEqual(cosmosExpiryOf(collection, record), new Date(T0 - 900 * SEC));
    assert.deepEqual(cosmosTTLStatus(collection)?.nextExpiry, new Date(T0 - 900 * SEC));
    assert.deepEqual(new CosmosTTLTarget(collection, '_ts_1').backlog(T0), { count: 1, atLeast: false });
  });

  it('a restored _ts on a collection without Cosmos tracking is not kept', () => {
    const { engine } = setup('mongodb');
    coll(engine).insertOne({ _id: 1 });
    const { collection, record } = recordOf(engine, 1);
    restoreCosmosStamp(collection, record, 5);
    assert.equal(cosmosStampOf(collection, record.rid), undefined);
  });

  it('rule 10.1: records already there when tracking starts are stamped with that time; attaching again changes nothing', () => {
    const { engine, clock } = setup('mongodb');
    coll(engine).insertMany([{ _id: 1 }, { _id: 2, ttl: -1 }]);
    const { collection, record } = recordOf(engine, 1);
    clock.advance(30 * SEC);
    attachCosmosTTL(engine, collection);
    assert.equal(cosmosTimestampOf(collection, record), (T0 + 30 * SEC) / SEC);
    clock.advance(10 * SEC);
    withDefault(engine, 100);
    assert.deepEqual(cosmosTTLStatus(collection), {
      defaultSeconds: 100,
      indexName: '_ts_1',
      expiring: 1,
      nextExpiry: new Date(T0 + 130 * SEC),
    });
    const observers = collection.observers.length;
    clock.advance(30 * SEC);
    attachCosmosTTL(engine, collection);
    assert.equal(collection.observers.length, observers);
    assert.equal(cosmosTimestampOf(collection, record), (T0 + 30 * SEC) / SEC);
  });

  it('a time-series collection gets no Cosmos target, even with a _ts TTL index in its catalog', () => {
    const { engine, clock } = setup();
    engine.runCommand(DB, { create: 'ts', timeseries: { timeField: 't' } });
    loadLegacyIndexSpec(engine, DB, 'ts', { v: 2, key: { _ts: 1 }, name: '_ts_1', expireAfterSeconds: 0 });
    engine.runCommand(DB, { insert: 'ts', documents: [{ t: new Date(T0) }, { t: new Date(T0 + SEC) }] });
    clock.advance(60 * SEC);
    assert.equal(coll(engine, 'ts').countDocuments(), 2);
    // The only visit is the time-series index target's, which refuses a key off the timeField.
    assert.deepEqual(
      engine.ttl
        .status()
        .lastPass!.visits.filter((v) => v.collection === 'ts')
        .map((v) => [v.target, v.outcome, v.deleted]),
      [['index _ts_1', 'skipped', 0]],
    );
  });

  it('rule 10.1: a _ts index is the Cosmos rule only as a single-field TTL index on _ts itself', () => {
    const ttl = (key: Document) => ({ v: 2, key, name: 'i', expireAfterSeconds: 60 });
    assert.equal(isCosmosTimestampIndexSpec(ttl({ _ts: 1 })), true);
    assert.equal(isCosmosTimestampIndexSpec(ttl({ _ts: -1 })), true);
    assert.equal(isCosmosTimestampIndexSpec(ttl({ _ts: 1, a: 1 })), false);
    assert.equal(isCosmosTimestampIndexSpec(ttl({ a: 1, _ts: 1 })), false);
    assert.equal(isCosmosTimestampIndexSpec(ttl({ ts: 1 })), false);
    assert.equal(isCosmosTimestampIndexSpec({ v: 2, key: { _ts: 1 }, name: 'i' }), false);
  });

  it('rule 10.3: a bigint at the int32 ends is a whole int32', () => {
    assert.deepEqual(cosmosDocumentTTL({ ttl: 2147483647n }), { kind: 'seconds', seconds: 2147483647 });
    assert.equal(cosmosDocumentTTL({ ttl: -2147483648n }).kind, 'invalid');
    assert.match(
      (cosmosDocumentTTL({ ttl: -2147483648n }) as { reason: string }).reason,
      /^ttl -2147483648 is neither positive nor -1/,
    );
  });
});
