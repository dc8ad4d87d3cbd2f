/** db.c.bulkWrite(): mongosh's BulkWriteResult and MongoBulkWriteError, through the engine's commands. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ObjectId } from 'bson';
import { harness, plain } from './helpers';

type Doc = Record<string, unknown>;

describe('db.c.bulkWrite', () => {
  it('bulkWrite: runs every kind of operation in order and returns mongosh BulkWriteResult', () => {
    const h = harness();
    h.run('db.c.insertMany([{ _id: 1, a: 1 }, { _id: 2, a: 1 }, { _id: 3, a: 2 }])');
    const r = plain(
      h.value(`db.c.bulkWrite([
        { insertOne: { document: { _id: 4, a: 3 } } },
        { updateOne: { filter: { _id: 1 }, update: { $set: { b: 1 } } } },
        { updateMany: { filter: { a: 1 }, update: { $set: { b: 1 } } } },
        { replaceOne: { filter: { _id: 3 }, replacement: { a: 9 } } },
        { updateOne: { filter: { _id: 7 }, update: { $set: { a: 7 } }, upsert: true } },
        { deleteOne: { filter: { _id: 2 } } },
        { deleteMany: { filter: { a: 9 } } },
      ])`),
    ) as Doc;
    assert.deepEqual(Object.keys(r), [
      'acknowledged',
      'insertedCount',
      'insertedIds',
      'matchedCount',
      'modifiedCount',
      'deletedCount',
      'upsertedCount',
      'upsertedIds',
    ]);
    assert.deepEqual(r, {
      acknowledged: true,
      insertedCount: 1,
      insertedIds: { '0': 4 },
      matchedCount: 4,
      modifiedCount: 3,
      deletedCount: 2,
      upsertedCount: 1,
      upsertedIds: { '4': 7 },
    });
    assert.deepEqual(plain(h.value('db.c.find().sort({ _id: 1 }).toArray()')), [
      { _id: 1, a: 1, b: 1 },
      { _id: 4, a: 3 },
      { _id: 7, a: 7 },
    ]);
  });

  it('bulkWrite: insertOne without an _id gets an ObjectId in insertedIds', () => {
    const h = harness();
    const r = h.value('db.c.bulkWrite([{ insertOne: { document: { a: 1 } } }, { insertOne: { b: 2 } }])') as Doc;
    const ids = r.insertedIds as Doc;
    assert.ok(ids['0'] instanceof ObjectId);
    assert.ok(ids['1'] instanceof ObjectId);
    assert.equal(h.value('db.c.countDocuments({ b: 2 })'), 1);
  });

  it('bulkWrite ordered: the first error stops the rest; the error carries its operation index', () => {
    const h = harness();
    h.run('db.c.insertOne({ _id: 1 })');
    const v = plain(
      h.value(`let e; try {
        db.c.bulkWrite([
          { insertOne: { document: { _id: 2 } } },
          { deleteOne: { filter: { _id: 2 } } },
          { insertOne: { document: { _id: 1 } } },
          { insertOne: { document: { _id: 3 } } },
        ]);
      } catch (err) { e = err; }
      [e.name, e.code, e.writeErrors.map((w) => [w.index, w.code]), e.result.insertedCount, e.result.deletedCount, e.result.insertedIds]`),
    );
    assert.deepEqual(v, ['MongoBulkWriteError', 11000, [[2, 11000]], 1, 1, { '0': 2 }]);
    assert.equal(h.value('db.c.countDocuments({ _id: 3 })'), 0);
  });

  it('bulkWrite unordered: every operation is tried, and errors keep their indexes', () => {
    const h = harness();
    h.run('db.c.insertOne({ _id: 1 })');
    const v = plain(
      h.value(`let e; try {
        db.c.bulkWrite([
          { insertOne: { document: { _id: 1 } } },
          { updateOne: { filter: { _id: 1 }, update: { $inc: { n: "x" } } } },
          { insertOne: { document: { _id: 2 } } },
        ], { ordered: false });
      } catch (err) { e = err; }
      [e.writeErrors.map((w) => [w.index, w.code]), e.result.insertedCount, e.result.insertedIds]`),
    );
    assert.deepEqual(v, [
      [
        [0, 11000],
        [1, 14],
      ],
      1,
      { '2': 2 },
    ]);
    assert.equal(h.value('db.c.countDocuments()'), 2);
  });

  it('bulkWrite: positional updates with arrayFilters and pipeline updates pass through', () => {
    const h = harness();
    h.run('db.c.insertOne({ _id: 1, a: [1, 5, 9] })');
    h.run(`db.c.bulkWrite([
      { updateOne: { filter: { _id: 1 }, update: { $set: { 'a.$[x]': 0 } }, arrayFilters: [{ x: { $gt: 4 } }] } },
      { updateOne: { filter: { _id: 1 }, update: [{ $set: { n: { $size: '$a' } } }] } },
    ])`);
    assert.deepEqual(plain(h.value('db.c.findOne()')), { _id: 1, a: [1, 0, 0], n: 3 });
  });

  it('bulkWrite: malformed operations are refused before anything runs (MongoInvalidArgumentError)', () => {
    const h = harness();
    for (const ops of [
      '[{ insertOne: { document: { _id: 1 } } }, { updateOne: { filter: {}, update: { a: 1 } } }]',
      '[{ insertOne: { document: { _id: 1 } } }, { replaceOne: { filter: {}, replacement: { $set: { a: 1 } } } }]',
      '[{ insertOne: { document: { _id: 1 } } }, { upsertOne: {} }]',
      '[]',
    ]) {
      const failed = h.failure(`db.c.bulkWrite(${ops})`);
      assert.equal(failed.error?.name, 'MongoInvalidArgumentError', ops);
    }
    assert.equal(h.value('db.c.countDocuments()'), 0);
  });
});

describe('arrayFilters through the shell', () => {
  it('findOneAndUpdate passes arrayFilters to findAndModify', () => {
    const h = harness();
    h.run('db.c.insertOne({ _id: 1, a: [1, 5, 9] })');
    const v = plain(
      h.value(
        "db.c.findOneAndUpdate({ _id: 1 }, { $set: { 'a.$[x]': 0 } }, { arrayFilters: [{ x: { $gt: 4 } }], returnDocument: 'after' })",
      ),
    );
    assert.deepEqual(v, { _id: 1, a: [1, 0, 0] });
  });

  it('updateMany with a positional $ updates the matched element of each document', () => {
    const h = harness();
    h.run('db.c.insertMany([{ _id: 1, a: [{ k: 1 }, { k: 2 }] }, { _id: 2, a: [{ k: 2 }] }])');
    h.run("db.c.updateMany({ 'a.k': 2 }, { $set: { 'a.$.hit': true } })");
    assert.deepEqual(plain(h.value('db.c.find().toArray()')), [
      { _id: 1, a: [{ k: 1 }, { k: 2, hit: true }] },
      { _id: 2, a: [{ k: 2, hit: true }] },
    ]);
  });
});
