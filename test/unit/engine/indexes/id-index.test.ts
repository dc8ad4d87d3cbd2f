/**
 * The `_id` index keeps equal BSON values together whatever their JS form (hash table for the
 * common types, ordered tree for the rest, built on demand), so uniqueness, point reads, ranges and
 * deletes behave as with one ordered index.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BSONSymbol, Decimal128, Double, Int32, Long, ObjectId, Timestamp } from 'bson';
import { Engine, VirtualClock, type Document } from '../../../../src/engine';
import { IdIndex } from '../../../../src/engine/indexes/id-index';
import { prng } from '../../helpers/prng';

function collection() {
  const engine = new Engine();
  return { engine, c: engine.db('t').collection('c') };
}

function insertCode(c: ReturnType<typeof collection>['c'], doc: Document): number | undefined {
  try {
    c.insertOne(doc);
    return undefined;
  } catch (err) {
    return (err as { code?: number }).code;
  }
}

describe('_id index', () => {
  it('treats every numeric form of one value as the same _id (1, 1.0, NumberInt, NumberLong, Double, Decimal128)', () => {
    const { c } = collection();
    c.insertOne({ _id: 1 });
    for (const same of [
      new Int32(1),
      Long.fromNumber(1),
      new Double(1),
      Decimal128.fromString('1.0'),
      Decimal128.fromString('1'),
    ]) {
      assert.equal(insertCode(c, { _id: same }), 11000, `duplicate of 1: ${String(same)}`);
    }
    assert.equal(c.findOne({ _id: Decimal128.fromString('1.00') })?._id, 1);
    assert.equal((c.findOne({ _id: new Int32(1) }) as Document)._id, 1);
  });

  it('treats 0 and -0 (and Decimal128 -0) as one _id', () => {
    const { c } = collection();
    c.insertOne({ _id: -0, a: 1 });
    assert.equal(insertCode(c, { _id: 0 }), 11000);
    assert.equal(insertCode(c, { _id: Decimal128.fromString('-0') }), 11000);
    assert.equal(c.findOne({ _id: 0 })?.a, 1);
  });

  it('keeps numbers no double holds exact: NumberLong(2^53 + 1) and 2^53 are different, equal Decimal128 conflicts', () => {
    const { c } = collection();
    const big = Long.fromString('9007199254740993');
    c.insertOne({ _id: big, a: 1 });
    assert.equal(insertCode(c, { _id: 2 ** 53 }), undefined);
    assert.equal(insertCode(c, { _id: Decimal128.fromString('9007199254740993') }), 11000);
    assert.equal(c.findOne({ _id: Long.fromString('9007199254740993') })?.a, 1);
    assert.equal(c.findOne({ _id: 2 ** 53 })?.a, undefined);
    // 2^60 is a double exactly: the Long and the double are one value.
    c.insertOne({ _id: Long.fromString('1152921504606846976') });
    assert.equal(insertCode(c, { _id: 2 ** 60 }), 11000);
    assert.equal(insertCode(c, { _id: Decimal128.fromString('0.1') }), undefined);
    assert.equal(insertCode(c, { _id: 0.1 }), undefined, 'Decimal128 0.1 is not the double 0.1');
  });

  it('tells types apart: "1" vs 1, a date vs its milliseconds, a symbol equals its string', () => {
    const { c } = collection();
    c.insertOne({ _id: '1' });
    assert.equal(insertCode(c, { _id: 1 }), undefined);
    c.insertOne({ _id: new Date(5) });
    assert.equal(insertCode(c, { _id: 5 }), undefined, 'a date is not its milliseconds');
    assert.equal(insertCode(c, { _id: new Date(5) }), 11000);
    assert.equal(c.findOne({ _id: 5 })?._id, 5);
    assert.equal(insertCode(c, { _id: new BSONSymbol('1') }), 11000);
  });

  it('finds ObjectIds by value, not identity', () => {
    const { c } = collection();
    const id = new ObjectId();
    c.insertOne({ _id: id, a: 1 });
    assert.equal(c.findOne({ _id: new ObjectId(id.toHexString()) })?.a, 1);
    assert.equal(insertCode(c, { _id: ObjectId.createFromHexString(id.toHexString()) }), 11000);
    assert.equal(c.findOne({ _id: id.toHexString() }), null);
  });

  it('keeps unhashable _ids (null, documents, timestamps) unique and findable', () => {
    const { c } = collection();
    c.insertOne({ _id: null, k: 'null' });
    c.insertOne({ _id: { a: 1, b: 'x' }, k: 'doc' });
    c.insertOne({ _id: new Timestamp({ t: 1, i: 2 }), k: 'ts' });
    assert.equal(insertCode(c, { _id: null }), 11000);
    assert.equal(insertCode(c, { _id: { a: Long.fromNumber(1), b: 'x' } }), 11000);
    assert.equal(insertCode(c, { _id: { b: 'x', a: 1 } }), undefined, 'field order matters');
    assert.equal(c.findOne({ _id: { a: 1, b: 'x' } })?.k, 'doc');
    assert.equal(c.findOne({ _id: new Timestamp({ t: 1, i: 2 }) })?.k, 'ts');
    c.deleteOne({ _id: null });
    assert.equal(insertCode(c, { _id: null }), undefined);
  });

  it('answers _id ranges and sorts in BSON order after hashed-only inserts, and stays in step afterwards', () => {
    const { c } = collection();
    const r = prng(7);
    const ids = new Set<number>();
    while (ids.size < 300) ids.add(Math.floor(r() * 10_000));
    for (const id of ids) c.insertOne({ _id: id % 3 === 0 ? new Int32(id) : id });
    const sorted = [...ids].sort((a, b) => a - b);
    const range = (lo: number, hi: number) => c.find({ _id: { $gte: lo, $lt: hi } }).map((d) => Number(d._id));
    assert.deepEqual(
      range(1000, 5000),
      sorted.filter((v) => v >= 1000 && v < 5000),
    );
    // The ordered tree now exists; later writes must keep it in step.
    c.insertOne({ _id: 2500.5 });
    c.deleteMany({ _id: { $lt: 2000 } });
    const expected = [...sorted.filter((v) => v >= 2000 && v < 5000), 2500.5].sort((a, b) => a - b);
    assert.deepEqual(range(0, 5000), expected);
    assert.deepEqual(
      c.find({}, { sort: { _id: -1 }, limit: 3 }).map((d) => Number(d._id)),
      [...sorted].reverse().slice(0, 3),
    );
    assert.equal(c.countDocuments({}), ids.size + 1 - sorted.filter((v) => v < 2000).length);
  });

  it('explains an _id point query as an IXSCAN with bounds, and $in returns documents in _id order', () => {
    const { engine, c } = collection();
    c.insertMany([{ _id: 3 }, { _id: 1 }, { _id: 2 }]);
    const explain = engine.runCommand('t', {
      explain: { find: 'c', filter: { _id: { $in: [3, 1, 2, 1] } } },
      verbosity: 'executionStats',
    });
    const text = JSON.stringify(explain);
    assert.match(text, /"indexName":"_id_"/);
    assert.ok(text.includes('"[2, 2]"'), 'explain still describes the bounds');
    assert.deepEqual(
      c.find({ _id: { $in: [3, 1, 2, 1] } }).map((d) => d._id),
      [1, 2, 3],
    );
    assert.deepEqual(
      c.find({ _id: { $in: [3, 1, 2] } }, { sort: { _id: -1 } }).map((d) => d._id),
      [3, 2, 1],
    );
  });

  it('builds its ordered tree only when something needs _id order', () => {
    const { engine, c } = collection();
    c.insertMany([{ _id: 2 }, { _id: 1 }]);
    const index = engine.getCollection('t', 'c')!.idIndex as IdIndex;
    assert.ok(index instanceof IdIndex);
    const built = () => (index as unknown as { ordered: boolean }).ordered;
    c.findOne({ _id: 1 });
    c.deleteOne({ _id: 2 });
    assert.equal(built(), false);
    assert.deepEqual(
      c.find({ _id: { $gt: 0 } }).map((d) => d._id),
      [1],
    );
    assert.equal(built(), true);
    assert.equal(index.size, 1);
  });

  it('a deleted _id of every hashed kind is really gone: deleteOne and a TTL batch both free it for a new insert', () => {
    const t0 = Date.UTC(2026, 0, 1);
    const engine = new Engine({ clock: new VirtualClock(t0) });
    const c = engine.db('t').collection('c');
    c.createIndex({ at: 1 }, { expireAfterSeconds: 0 });
    const ids = () => [
      new ObjectId('65a1b2c3d4e5f60718293a4b'),
      7,
      new Int32(8),
      Long.fromNumber(9),
      2.5,
      'k',
      new BSONSymbol('s'),
      new Date(5),
      -0,
      NaN,
    ];
    const old = new Date(t0 - 1000);
    // deleteOne, one by one
    for (const id of ids()) {
      c.insertOne({ _id: id, at: old, v: 1 });
      assert.equal(c.deleteOne({ _id: id }).deletedCount, 1, String(id));
      assert.equal(insertCode(c, { _id: id, v: 2 }), undefined, `${String(id)} free again`);
      assert.equal(c.deleteOne({ _id: id }).deletedCount, 1);
    }
    // A TTL batch (removeMany), all kinds together
    c.insertMany(ids().map((id) => ({ _id: id, at: old, v: 3 })));
    engine.ttl.runPass();
    assert.equal(c.countDocuments({}), 0);
    for (const id of ids())
      assert.equal(insertCode(c, { _id: id, v: 4 }), undefined, `${String(id)} free after the TTL pass`);
    for (const id of ids()) assert.equal(c.findOne({ _id: id })?.v, 4, String(id));
  });

  it('serves {_id: value} reads and writes by direct lookup with the same answers as a scan', () => {
    const { engine, c } = collection();
    const id = new ObjectId();
    c.insertMany([
      { _id: id, a: 1 },
      { _id: 'k', a: 2 },
      { _id: new Int32(7), a: 3 },
      { _id: new Date(9), a: 4 },
    ]);
    assert.equal(c.findOne({ _id: 7 })?.a, 3);
    assert.equal(c.findOne({ _id: new Date(9) })?.a, 4);
    assert.equal(c.findOne({ _id: 9 }), null);
    assert.deepEqual(c.find({ _id: 'k' }, { skip: 1 }), []);
    assert.equal(c.countDocuments({ _id: id }), 1);
    assert.equal(c.updateOne({ _id: 7 }, { $set: { b: 1 } }).modifiedCount, 1);
    assert.equal(c.deleteOne({ _id: new ObjectId(id.toHexString()) }).deletedCount, 1);
    assert.equal(c.countDocuments({}), 3);
    const reply = engine.runCommand('t', { find: 'c', filter: { _id: 'k' }, projection: { a: 0 } });
    assert.deepEqual((reply.cursor as Document).firstBatch, [{ _id: 'k' }]);
  });
});
