/**
 * The validate command: mongod's reply shape, and inconsistencies between indexes and documents
 * found when an index is damaged through the index structures themselves (the seam a bug in the
 * write path would use), never through a mock.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Long } from 'bson';
import { Engine, VirtualClock, type Document } from '../../../../src/engine';
import { entryOf } from '../../../../src/engine/indexes/key-order';
import { expectError } from '../../helpers/expect-error';
import { harness, plain } from '../../shell/helpers';

const T0 = Date.UTC(2026, 0, 1);

function setUp(): Engine {
  const engine = new Engine({ clock: new VirtualClock(T0) });
  engine.runCommand('db', {
    insert: 'c',
    documents: [
      { _id: 1, a: 10, tags: ['x', 'y'], at: new Date(T0) },
      { _id: 2, a: 20, tags: ['y'], at: new Date(T0) },
      { _id: 3, a: 30 },
    ],
  });
  engine.runCommand('db', {
    createIndexes: 'c',
    indexes: [
      { key: { a: 1 }, name: 'a_1' },
      { key: { tags: 1 }, name: 'tags_1' },
      { key: { at: 1 }, name: 'at_1', expireAfterSeconds: 3600 },
      { key: { a: 1 }, name: 'a_partial', partialFilterExpression: { a: { $gt: 15 } } },
    ],
  });
  return engine;
}

function validate(engine: Engine, extra: Document = {}): Document {
  return engine.runCommand('db', { validate: 'c', ...extra });
}

describe('validate: a consistent collection', () => {
  it("answers mongod's shape: valid, nrecords, nIndexes, keysPerIndex, indexDetails, empty errors and warnings", () => {
    const engine = setUp();
    const r = validate(engine, { full: true });
    assert.equal(r.ns, 'db.c');
    assert.equal(r.valid, true);
    assert.equal(r.nrecords, 3);
    assert.equal(r.nIndexes, 5);
    assert.equal(r.nInvalidDocuments, 0);
    assert.equal(r.nNonCompliantDocuments, 0);
    assert.deepEqual(r.keysPerIndex, {
      _id_: Long.fromNumber(3),
      a_1: Long.fromNumber(3),
      // Documents without the field are indexed under null (the indexes are not sparse).
      tags_1: Long.fromNumber(4),
      at_1: Long.fromNumber(3),
      a_partial: Long.fromNumber(2),
    });
    assert.deepEqual(r.indexDetails, {
      _id_: { valid: true },
      a_1: { valid: true },
      tags_1: { valid: true },
      at_1: { valid: true },
      a_partial: { valid: true },
    });
    assert.deepEqual([r.errors, r.warnings, r.missingIndexEntries, r.extraIndexEntries], [[], [], [], []]);
    assert.equal(r.repaired, false);
    assert.equal(r.advice, undefined);
    assert.equal(r.ok, 1);
    engine.close();
  });

  it('refuses a missing collection (NamespaceNotFound) and repair (InvalidOptions)', () => {
    const engine = setUp();
    expectError(() => engine.runCommand('db', { validate: 'nope' }), 26, /does not exist to validate/);
    expectError(() => validate(engine, { repair: true }), 72);
    engine.close();
  });
});

describe('validate: damaged indexes', () => {
  it('an index entry removed: missing entry with indexName, recordId, idKey and indexKey; valid: false', () => {
    const engine = setUp();
    const coll = engine.getCollection('db', 'c')!;
    const index = coll.indexes.get('a_1')!;
    const record = coll.findById(2)!;
    assert.equal(index.tree.delete(entryOf([20], record.rid)), true);
    const r = validate(engine);
    assert.equal(r.valid, false);
    assert.deepEqual(r.indexDetails, {
      _id_: { valid: true },
      a_1: { valid: false },
      tags_1: { valid: true },
      at_1: { valid: true },
      a_partial: { valid: true },
    });
    assert.deepEqual(r.errors, ["Index with name 'a_1' has inconsistencies."]);
    assert.deepEqual(r.warnings, ['Detected 1 missing index entries.']);
    assert.deepEqual(r.missingIndexEntries, [
      { indexName: 'a_1', recordId: Long.fromNumber(record.rid), idKey: 2, indexKey: { a: 20 } },
    ]);
    assert.deepEqual(r.extraIndexEntries, []);
    assert.deepEqual(r.keysPerIndex && (r.keysPerIndex as Document).a_1, Long.fromNumber(2));
    assert.match(String(r.advice), /Drop and recreate/);
    engine.close();
  });

  it('an entry no document produces, and one leading to a record that is gone: extra entries', () => {
    const engine = setUp();
    const coll = engine.getCollection('db', 'c')!;
    const index = coll.indexes.get('a_1')!;
    const record = coll.findById(3)!;
    index.tree.set(entryOf([99], record.rid), record);
    const ghost = { rid: 1000, doc: { _id: 'ghost', a: 5 }, idSlot: -1 };
    index.tree.set(entryOf([5], ghost.rid), ghost);
    const r = validate(engine);
    assert.equal(r.valid, false);
    assert.deepEqual(r.extraIndexEntries, [
      { indexName: 'a_1', recordId: Long.fromNumber(1000), idKey: 'ghost', indexKey: { a: 5 } },
      { indexName: 'a_1', recordId: Long.fromNumber(record.rid), idKey: 3, indexKey: { a: 99 } },
    ]);
    assert.deepEqual(r.warnings, ['Detected 2 extra index entries.']);
    engine.close();
  });

  it('a multikey index whose multikey flag was lost is an error naming the document', () => {
    const engine = setUp();
    const index = engine.getCollection('db', 'c')!.indexes.get('tags_1')!;
    assert.equal(index.multikey, true);
    index.multikey = false;
    const r = validate(engine);
    assert.equal(r.valid, false);
    assert.equal((r.indexDetails as Document).tags_1 && ((r.indexDetails as Document).tags_1 as Document).valid, false);
    assert.match(
      (r.errors as string[])[0],
      /Index with name 'tags_1' is not multi-key but has more than one key in document .* _id 1/,
    );
    assert.equal(index.multikey, false, 'validate reports the flag, it does not repair it');
    engine.close();
  });

  it('the _id index losing a document is found too', () => {
    const engine = setUp();
    const coll = engine.getCollection('db', 'c')!;
    const record = coll.findById(1)!;
    coll.idIndex!.remove(record, [[1]]);
    const r = validate(engine);
    assert.equal(r.valid, false);
    assert.deepEqual(r.missingIndexEntries, [
      { indexName: '_id_', recordId: Long.fromNumber(record.rid), idKey: 1, indexKey: { _id: 1 } },
    ]);
    engine.close();
  });
});

describe('validate: warnings', () => {
  it('a TTL index with an expireAfterSeconds the monitor skips (NaN) is a warning, not an error', () => {
    const engine = setUp();
    engine.getCollection('db', 'c')!.indexes.get('at_1')!.spec.expireAfterSeconds = NaN;
    const r = validate(engine);
    assert.equal(r.valid, true);
    assert.equal((r.warnings as string[]).length, 1);
    assert.match(
      (r.warnings as string[])[0],
      /TTL index 'at_1' has an expireAfterSeconds the TTL monitor skips \(NaN\)/,
    );
    engine.close();
  });

  it('documents stored before a validator was added are counted as non-compliant, with a warning', () => {
    const engine = setUp();
    engine.runCommand('db', { collMod: 'c', validator: { a: { $gte: 20 } } });
    const r = validate(engine);
    assert.equal(r.valid, true);
    assert.equal(r.nNonCompliantDocuments, 1);
    assert.match((r.warnings as string[])[0], /not compliant with the collection's schema \(1\)/);
    engine.close();
  });
});

describe('validate in the shell', () => {
  it('db.c.validate() and db.c.validate({full: true}) run the validate command', () => {
    const h = harness();
    h.value('db.c.insertMany([{ _id: 1, a: 1 }, { _id: 2, a: [1, 2] }]); db.c.createIndex({ a: 1 })');
    const r = plain(h.value('db.c.validate({ full: true })')) as Document;
    assert.equal(r.valid, true);
    assert.equal(r.nrecords, 2);
    assert.equal(r.nIndexes, 2);
    assert.equal(h.value('db.c.validate().keysPerIndex.a_1.toNumber()'), 3);
    assert.equal((plain(h.value('db.c.validate()')) as Document).valid, true);
    assert.equal((plain(h.value('db.c.validate(true)')) as Document).ns, 'test.c');
  });
});
