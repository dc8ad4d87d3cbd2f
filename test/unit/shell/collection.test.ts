/** db.<collection> methods: mongosh 2.x result shapes, all through the engine's command path. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ObjectId } from 'bson';
import { defaultIndexName } from '../../../src/shell/collection';
import { harness, plain } from './helpers';

type Doc = Record<string, unknown>;

describe('writes', () => {
  it('insertOne returns {acknowledged, insertedId} and makes an ObjectId when _id is missing', () => {
    const h = harness();
    const r = h.value('db.c.insertOne({ a: 1 })') as Doc;
    assert.equal(r.acknowledged, true);
    assert.ok(r.insertedId instanceof ObjectId);
    assert.deepEqual(h.value('db.c.insertOne({ _id: "k", a: 2 })'), { acknowledged: true, insertedId: 'k' });
    assert.equal(h.value('db.c.countDocuments()'), 2);
  });

  it('insertOne adds the id to the given object, as the driver does', () => {
    const h = harness();
    const v = plain(
      h.value(
        'const doc = { a: 1 }; const res = db.c.insertOne(doc); [doc._id.equals(res.insertedId), Object.keys(doc)]',
      ),
    ) as unknown[];
    assert.deepEqual(v, [true, ['a', '_id']]);
    const frozen = h.value(
      'const f = Object.freeze({ b: 1 }); db.c.insertOne(f).insertedId instanceof ObjectId',
    ) as boolean;
    assert.equal(frozen, true);
  });

  it('insertMany returns insertedIds keyed by position', () => {
    const h = harness();
    const r = h.value('db.c.insertMany([{ _id: 1 }, { a: 2 }])') as { acknowledged: boolean; insertedIds: Doc };
    assert.equal(r.acknowledged, true);
    assert.deepEqual(Object.keys(r.insertedIds), ['0', '1']);
    assert.equal(r.insertedIds['0'], 1);
    assert.ok(r.insertedIds['1'] instanceof ObjectId);
  });

  it('legacy insert() takes one document or an array', () => {
    const h = harness();
    h.run('db.c.insert({ _id: 1 }); db.c.insert([{ _id: 2 }, { _id: 3 }])');
    assert.equal(h.value('db.c.countDocuments()'), 3);
  });

  it('updateOne / updateMany / replaceOne return mongosh update results', () => {
    const h = harness();
    h.run('db.c.insertMany([{ _id: 1, a: 1 }, { _id: 2, a: 1 }, { _id: 3, a: 2 }])');
    assert.deepEqual(h.value('db.c.updateOne({ a: 1 }, { $set: { b: 1 } })'), {
      acknowledged: true,
      insertedId: null,
      matchedCount: 1,
      modifiedCount: 1,
      upsertedCount: 0,
    });
    assert.deepEqual(h.value('db.c.updateMany({ a: 1 }, { $set: { b: 1 } })'), {
      acknowledged: true,
      insertedId: null,
      matchedCount: 2,
      modifiedCount: 1,
      upsertedCount: 0,
    });
    assert.deepEqual(h.value('db.c.replaceOne({ _id: 3 }, { a: 3 })'), {
      acknowledged: true,
      insertedId: null,
      matchedCount: 1,
      modifiedCount: 1,
      upsertedCount: 0,
    });
    assert.deepEqual(h.value('db.c.findOne({ _id: 3 })'), { _id: 3, a: 3 });
    assert.deepEqual(h.value('db.c.updateOne({ _id: 9 }, { $set: { a: 9 } }, { upsert: true })'), {
      acknowledged: true,
      insertedId: 9,
      matchedCount: 0,
      modifiedCount: 0,
      upsertedCount: 1,
    });
    assert.deepEqual(h.value('db.c.updateOne({ _id: 42 }, { $set: { a: 1 } })'), {
      acknowledged: true,
      insertedId: null,
      matchedCount: 0,
      modifiedCount: 0,
      upsertedCount: 0,
    });
  });

  it('refuses replacement documents in updates and operators in replacements, as the driver does', () => {
    const h = harness();
    const u = h.failure('db.c.updateOne({}, { a: 1 })');
    assert.equal(u.error?.name, 'MongoInvalidArgumentError');
    assert.match(u.error?.message ?? '', /requires atomic operators/);
    const r = h.failure('db.c.replaceOne({}, { $set: { a: 1 } })');
    assert.match(r.error?.message ?? '', /must not contain atomic operators/);
    assert.match(h.failure('db.c.findOneAndUpdate({}, { a: 1 })').error?.message ?? '', /requires atomic operators/);
  });

  it('legacy update() and remove() still work', () => {
    const h = harness();
    h.run('db.c.insertMany([{ _id: 1, a: 1 }, { _id: 2, a: 1 }])');
    assert.equal((h.value('db.c.update({ a: 1 }, { $set: { b: 1 } }, { multi: true })') as Doc).modifiedCount, 2);
    assert.equal((h.value('db.c.update({ _id: 1 }, { a: 5 })') as Doc).modifiedCount, 1);
    assert.equal((h.value('db.c.remove({ a: 1 }, true)') as Doc).deletedCount, 1);
    assert.equal((h.value('db.c.remove({})') as Doc).deletedCount, 1);
  });

  it('deleteOne / deleteMany return {acknowledged, deletedCount}', () => {
    const h = harness();
    h.run('db.c.insertMany([{ a: 1 }, { a: 1 }, { a: 1 }, { a: 2 }])');
    assert.deepEqual(h.value('db.c.deleteOne({ a: 1 })'), { acknowledged: true, deletedCount: 1 });
    assert.deepEqual(h.value('db.c.deleteMany({ a: 1 })'), { acknowledged: true, deletedCount: 2 });
    assert.deepEqual(h.value('db.nothing.deleteMany({})'), { acknowledged: true, deletedCount: 0 });
  });

  it('findOneAndUpdate returns the document before, or after with returnDocument / returnNewDocument', () => {
    const h = harness();
    h.run('db.c.insertOne({ _id: 1, n: 1 })');
    assert.deepEqual(h.value('db.c.findOneAndUpdate({ _id: 1 }, { $inc: { n: 1 } })'), { _id: 1, n: 1 });
    assert.deepEqual(h.value('db.c.findOneAndUpdate({ _id: 1 }, { $inc: { n: 1 } }, { returnDocument: "after" })'), {
      _id: 1,
      n: 3,
    });
    assert.deepEqual(
      h.value(
        'db.c.findOneAndUpdate({ _id: 1 }, { $inc: { n: 1 } }, { returnNewDocument: true, projection: { _id: 0 } })',
      ),
      { n: 4 },
    );
    assert.equal(h.value('db.c.findOneAndUpdate({ _id: 2 }, { $set: { n: 1 } })'), null);
    assert.deepEqual(
      h.value('db.c.findOneAndUpdate({ _id: 2 }, { $set: { n: 1 } }, { upsert: true, returnDocument: "after" })'),
      { _id: 2, n: 1 },
    );
  });

  it('findOneAndReplace and findOneAndDelete', () => {
    const h = harness();
    h.run('db.c.insertMany([{ _id: 1, n: 1 }, { _id: 2, n: 2 }])');
    assert.deepEqual(h.value('db.c.findOneAndReplace({ _id: 1 }, { m: 1 }, { returnDocument: "after" })'), {
      _id: 1,
      m: 1,
    });
    assert.deepEqual(h.value('db.c.findOneAndDelete({}, { sort: { n: -1 } })'), { _id: 2, n: 2 });
    assert.equal(h.value('db.c.countDocuments()'), 1);
  });

  it('argument mistakes are TypeErrors with a hint', () => {
    const h = harness();
    const e = h.failure('db.c.insertOne([1, 2])');
    assert.equal(e.error?.name, 'TypeError');
    assert.match(e.error?.message ?? '', /insertOne\(\) needs a document as an object, got an array/);
    assert.equal(h.failure('db.c.insertMany({ a: 1 })').error?.name, 'TypeError');
    assert.equal(h.failure('db.c.find(5)').error?.name, 'TypeError');
    assert.equal(h.failure('db.c.distinct(1)').error?.name, 'TypeError');
  });
});

describe('reads', () => {
  it('findOne returns the first match or null, with projection and options', () => {
    const h = harness();
    h.run('db.c.insertMany([{ _id: 1, a: 1, b: 1 }, { _id: 2, a: 2, b: 2 }])');
    assert.deepEqual(h.value('db.c.findOne()'), { _id: 1, a: 1, b: 1 });
    assert.deepEqual(h.value('db.c.findOne({ a: 2 }, { b: 1 })'), { _id: 2, b: 2 });
    assert.deepEqual(h.value('db.c.findOne({}, null, { sort: { a: -1 } })'), { _id: 2, a: 2, b: 2 });
    assert.equal(h.value('db.c.findOne({ a: 3 })'), null);
    assert.equal(h.value('db.none.findOne()'), null);
  });

  it('countDocuments, estimatedDocumentCount and count', () => {
    const h = harness();
    h.run('db.c.insertMany([{ a: 1 }, { a: 1 }, { a: 2 }])');
    assert.equal(h.value('db.c.countDocuments()'), 3);
    assert.equal(h.value('db.c.countDocuments({ a: 1 })'), 2);
    assert.equal(h.value('db.c.countDocuments({}, { skip: 1, limit: 1 })'), 1);
    assert.equal(h.value('db.c.estimatedDocumentCount()'), 3);
    assert.equal(h.value('db.c.count({ a: 2 })'), 1);
    assert.equal(h.value('db.none.countDocuments()'), 0);
  });

  it('distinct returns sorted distinct values', () => {
    const h = harness();
    h.run('db.c.insertMany([{ a: 2 }, { a: 1 }, { a: 2 }, { a: [3, 1] }])');
    assert.deepEqual(plain(h.value('db.c.distinct("a")')), [1, 2, 3]);
    assert.deepEqual(plain(h.value('db.c.distinct("a", { a: 2 })')), [2]);
  });

  it('aggregate takes an array or stages as arguments and returns a cursor', () => {
    const h = harness();
    h.run('db.c.insertMany([{ k: "x", n: 1 }, { k: "x", n: 2 }, { k: "y", n: 5 }])');
    assert.deepEqual(
      plain(
        h.value('db.c.aggregate([{ $group: { _id: "$k", total: { $sum: "$n" } } }, { $sort: { _id: 1 } }]).toArray()'),
      ),
      [
        { _id: 'x', total: 3 },
        { _id: 'y', total: 5 },
      ],
    );
    assert.deepEqual(
      plain(h.value('db.c.aggregate({ $match: { k: "y" } }, { $project: { _id: 0, n: 1 } }).toArray()')),
      [{ n: 5 }],
    );
    const explained = h.value('db.c.aggregate([{ $match: { k: "y" } }], { explain: true })') as Doc;
    assert.equal(explained.ok, 1);
    assert.ok(explained.queryPlanner);
  });
});

describe('indexes', () => {
  it('defaultIndexName follows the driver: field_value pairs joined by _', () => {
    assert.equal(defaultIndexName({ a: 1 }), 'a_1');
    assert.equal(defaultIndexName({ a: 1, 'b.c': -1 }), 'a_1_b.c_-1');
    assert.equal(defaultIndexName({ loc: '2dsphere' }), 'loc_2dsphere');
  });

  it('createIndex returns the index name; options pass through (TTL)', () => {
    const h = harness();
    assert.equal(h.value('db.c.createIndex({ createdAt: 1 }, { expireAfterSeconds: 3600 })'), 'createdAt_1');
    assert.equal(h.value('db.c.createIndex({ a: 1, b: -1 })'), 'a_1_b_-1');
    assert.equal(h.value('db.c.createIndex({ z: NumberInt(1) }, { name: "custom" })'), 'custom');
    const indexes = h.value('db.c.getIndexes()') as Doc[];
    assert.deepEqual(
      indexes.map((i) => i.name),
      ['_id_', 'createdAt_1', 'a_1_b_-1', 'custom'],
    );
    assert.equal(indexes[1].expireAfterSeconds, 3600);
    assert.equal(typeof indexes[1].expireAfterSeconds, 'number', 'the int32 reads back as a number');
  });

  it('createIndex errors are MongoServerErrors (an invalid TTL value)', () => {
    const h = harness();
    const failed = h.failure('db.c.createIndex({ t: 1 }, { expireAfterSeconds: -1 })');
    assert.equal(failed.error?.name, 'MongoServerError');
    assert.equal(typeof failed.error?.code, 'number');
  });

  it('createIndexes takes key patterns and returns the names', () => {
    const h = harness();
    assert.deepEqual(plain(h.value('db.c.createIndexes([{ a: 1 }, { b: -1 }])')), ['a_1', 'b_-1']);
    assert.deepEqual(plain(h.value('db.c.getIndexKeys()')), [{ _id: 1 }, { a: 1 }, { b: -1 }]);
    assert.equal((h.value('db.c.getIndexSpecs()') as unknown[]).length, 3);
  });

  it('dropIndex by name or key, dropIndexes, and refusals', () => {
    const h = harness();
    h.run('db.c.createIndexes([{ a: 1 }, { b: 1 }, { c: 1 }])');
    assert.deepEqual(h.value('db.c.dropIndex("a_1")'), { nIndexesWas: 4, ok: 1 });
    assert.deepEqual(h.value('db.c.dropIndex({ b: 1 })'), { nIndexesWas: 3, ok: 1 });
    assert.equal(h.failure('db.c.dropIndex("*")').error?.name, 'MongoInvalidArgumentError');
    assert.equal(h.failure('db.c.dropIndex("nope")').error?.codeName, 'IndexNotFound');
    assert.deepEqual(h.value('db.c.dropIndexes()'), {
      nIndexesWas: 2,
      msg: 'non-_id indexes dropped for collection',
      ok: 1,
    });
    assert.deepEqual(plain(h.value('db.c.getIndexes().map(i => i.name)')), ['_id_']);
  });
});

describe('collection', () => {
  it('drop returns true; stats, exists and names', () => {
    const h = harness();
    h.run('db.c.insertMany([{ a: 1 }, { a: 2 }])');
    assert.equal((h.value('db.c.stats()') as Doc).count, 2);
    assert.equal((h.value('db.c.exists()') as Doc).name, 'c');
    assert.deepEqual(plain(h.value('[db.c.getName(), db.c.getFullName(), db.c.getDB().getName(), String(db.c)]')), [
      'c',
      'test.c',
      'test',
      'test.c',
    ]);
    assert.equal(h.value('db.c.drop()'), true);
    assert.equal(h.value('db.c.exists()'), null);
    assert.equal(h.value('db.c.drop()'), true, 'dropping a missing collection succeeds since 7.0');
  });

  it('renameCollection moves the collection', () => {
    const h = harness();
    h.run('db.a.insertOne({ x: 1 })');
    assert.deepEqual(h.value('db.a.renameCollection("b")'), { ok: 1 });
    assert.equal(h.value('db.b.countDocuments()'), 1);
    assert.deepEqual(plain(h.value('db.getCollectionNames()')), ['b']);
  });

  it('a collection prints as its full name', () => {
    const h = harness();
    const result = h.last('db.events');
    assert.equal(result.rendered, 'test.events');
    assert.equal(result.ejson, 'test.events');
  });
});
