/**
 * find's index-key options (min, max, returnKey, showRecordId) and count's hint and skip rules, as
 * mongod 8.0 answers them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Long } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

const DB = 'app';

function run(engine: Engine, cmd: Document): Document {
  return engine.runCommand(DB, cmd);
}

function found(engine: Engine, cmd: Document): Document[] {
  return (run(engine, { find: 'c', batchSize: 1000, ...cmd }).cursor as Document).firstBatch as Document[];
}

function withDocs(docs: Document[], indexes: Document[]): Engine {
  const engine = new Engine();
  run(engine, { insert: 'c', documents: docs });
  if (indexes.length) run(engine, { createIndexes: 'c', indexes });
  return engine;
}

const grid = () =>
  withDocs(
    [
      { _id: 1, a: 1, b: 1 },
      { _id: 2, a: 1, b: 2 },
      { _id: 3, a: 2, b: 1 },
      { _id: 4, a: 2, b: 2 },
    ],
    [
      { key: { a: 1, b: 1 }, name: 'a_1_b_1' },
      { key: { a: 1, b: -1 }, name: 'a_1_b_-1' },
    ],
  );

const ids = (docs: Document[]) => docs.map((d) => d._id);

describe('find min/max', () => {
  it('min is inclusive and max exclusive, compared as whole keys of the hinted index', () => {
    const engine = grid();
    const hint = { a: 1, b: 1 };
    assert.deepEqual(ids(found(engine, { hint, min: { a: 1, b: 2 }, max: { a: 2, b: 1 } })), [2]);
    assert.deepEqual(ids(found(engine, { hint, min: { a: 1, b: 2 }, max: { a: 2, b: 1.5 } })), [2, 3]);
    assert.deepEqual(ids(found(engine, { hint, min: { a: 1, b: 2 } })), [2, 3, 4]);
    assert.deepEqual(ids(found(engine, { hint, max: { a: 2, b: 1.5 } })), [1, 2, 3]);
  });

  it('a descending key field counts down: min {a: 2, b: 1} on {a: 1, b: -1} is the last key', () => {
    const engine = grid();
    const hint = { a: 1, b: -1 };
    assert.deepEqual(ids(found(engine, { hint, min: { a: 1, b: 2 } })), [2, 1, 4, 3]);
    assert.deepEqual(ids(found(engine, { hint, min: { a: 2, b: 1 } })), [3]);
    assert.deepEqual(ids(found(engine, { hint, max: { a: 1, b: 1.5 } })), [2]);
  });

  it('bounds of another type follow BSON order: a string min lies above every number', () => {
    const engine = grid();
    assert.deepEqual(found(engine, { hint: { a: 1, b: 1 }, min: { a: 'x', b: 1 } }), []);
    assert.equal(found(engine, { hint: { a: 1, b: 1 }, max: { a: 'x', b: 1 } }).length, 4);
  });

  it('the filter still applies inside the bounds', () => {
    const engine = grid();
    assert.deepEqual(ids(found(engine, { filter: { b: 2 }, hint: { a: 1, b: 1 }, min: { a: 1, b: 1 } })), [2, 4]);
  });

  it('a sort the index gives backwards walks the bounds backwards', () => {
    const engine = withDocs(
      Array.from({ length: 10 }, (_, i) => ({ _id: i, a: i })),
      [{ key: { a: 1 }, name: 'a_1' }],
    );
    assert.deepEqual(ids(found(engine, { hint: { a: 1 }, min: { a: 3 }, max: { a: 6 }, sort: { a: -1 } })), [5, 4, 3]);
  });

  it('min/max without a hint fails with 51173', () => {
    expectError(() => found(grid(), { min: { a: 1, b: 2 }, max: { a: 2, b: 1 } }), 51173, /hint/);
  });

  it('bounds that do not name every key field of the hinted index, in order, fail with 51174', () => {
    expectError(() => found(grid(), { min: { a: 1 }, hint: { a: 1, b: -1 } }), 51174);
    expectError(() => found(grid(), { min: { b: 1, a: 1 }, hint: { a: 1, b: 1 } }), 51174);
  });

  it('min and max with different field names fail with 51176, even on a missing collection', () => {
    expectError(() => found(grid(), { min: { a: 1, b: 1 }, max: { a: 1 }, hint: { a: 1, b: -1 } }), 51176);
    expectError(() => found(grid(), { min: { b: 1 }, max: { a: 1, b: 2 }, hint: { a: 1, b: -1 } }), 51176);
    expectError(() => found(new Engine(), { min: { b: 1 }, max: { a: 1 } }), 51176);
  });

  it('min not below max in the index order fails with 51175', () => {
    const engine = withDocs([{ a: 1 }], [{ key: { a: 1 }, name: 'a_1' }]);
    expectError(() => found(engine, { hint: { a: 1 }, min: { a: 6 }, max: { a: 3 }, sort: { a: -1 } }), 51175);
    expectError(() => found(engine, { hint: { a: 1 }, min: { a: 2 }, max: { a: 2 } }), 51175);
  });

  it('min/max with a $natural hint fails with BadValue', () => {
    expectError(() => found(grid(), { min: { a: 1 }, hint: { $natural: 1 } }), 2);
  });

  it('empty min and max are no bounds at all', () => {
    assert.equal(found(grid(), { min: {}, max: {} }).length, 4);
  });
});

describe('find returnKey', () => {
  it('returns the key of the scanned index in index order, whatever the sort', () => {
    const engine = withDocs(
      [
        { _id: 1, a: 1, b: 3 },
        { _id: 2, a: 2, b: 2 },
        { _id: 3, a: 3, b: 1 },
      ],
      [{ key: { a: 1 }, name: 'a_1' }],
    );
    assert.deepEqual(found(engine, { hint: { a: 1 }, sort: { a: -1 }, returnKey: true }), [
      { a: 3 },
      { a: 2 },
      { a: 1 },
    ]);
    assert.deepEqual(found(engine, { hint: { a: 1 }, sort: { b: 1 }, returnKey: true }), [
      { a: 3 },
      { a: 2 },
      { a: 1 },
    ]);
    assert.deepEqual(found(engine, { sort: { _id: 1 }, returnKey: true }), [{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
  });

  it('a multikey document reports the first of its keys the scan bounds reach (min, or the filter)', () => {
    const engine = withDocs([{ _id: 0, a: [{ b: 0 }, { c: 1 }] }], [{ key: { 'a.b': 1 }, name: 'ab' }]);
    // Its keys are null (the element without b) and 0.
    assert.deepEqual(found(engine, { hint: { 'a.b': 1 }, returnKey: true }), [{ 'a.b': null }]);
    assert.deepEqual(found(engine, { hint: { 'a.b': 1 }, min: { 'a.b': 0 }, returnKey: true }), [{ 'a.b': 0 }]);
    assert.deepEqual(found(engine, { filter: { 'a.b': 0 }, hint: { 'a.b': 1 }, returnKey: true }), [{ 'a.b': 0 }]);
  });

  it('a compound key comes back with every field; a projection does not change it', () => {
    const engine = withDocs([{ _id: 1, x: -1, y: 5 }], [{ key: { _id: 1, x: 1 }, name: 'id_x' }]);
    assert.deepEqual(found(engine, { hint: { _id: 1, x: 1 }, projection: { y: 1 }, returnKey: true }), [
      { _id: 1, x: -1 },
    ]);
  });

  it('a collection scan has no key: every result is {}', () => {
    const engine = withDocs([{ a: 1 }, { a: 2 }], []);
    assert.deepEqual(found(engine, { hint: { $natural: 1 }, returnKey: true }), [{}, {}]);
  });
});

describe('find showRecordId', () => {
  it('appends $recordId as a NumberLong to each result, after the projection, through getMore too', () => {
    const engine = withDocs([{ a: 1 }, { a: 2 }, { a: 3 }], []);
    const reply = run(engine, { find: 'c', projection: { _id: 0, a: 1 }, showRecordId: true, batchSize: 2 });
    const cursor = reply.cursor as Document;
    const more = run(engine, { getMore: cursor.id, collection: 'c' }).cursor as Document;
    const all = [...(cursor.firstBatch as Document[]), ...(more.nextBatch as Document[])];
    assert.equal(all.length, 3);
    const rids = all.map((d) => {
      assert.deepEqual(Object.keys(d), ['a', '$recordId']);
      assert.ok(d.$recordId instanceof Long);
      return d.$recordId.toNumber();
    });
    assert.equal(new Set(rids).size, 3, 'record ids are distinct');
  });

  it('holds for an _id point query too', () => {
    const engine = withDocs([{ _id: 0, a: 1 }], []);
    const [doc] = found(engine, { filter: { _id: 0 }, showRecordId: true });
    assert.ok(doc.$recordId instanceof Long);
    assert.equal(doc.a, 1);
  });
});

describe('count hint and skip', () => {
  it('an empty query with a hint counts through the hinted index: a sparse index without entries gives 0', () => {
    const engine = withDocs([{ i: 1 }, { i: 2 }], [{ key: { x: 1 }, name: 'x_1', sparse: true }]);
    assert.equal(run(engine, { count: 'c', hint: 'x_1' }).n, 0);
    assert.equal(run(engine, { count: 'c', hint: { x: 1 } }).n, 0);
    assert.equal(run(engine, { count: 'c', hint: '_id_' }).n, 2);
    assert.equal(run(engine, { count: 'c' }).n, 2);
  });

  it('a negative skip fails, on a missing collection too', () => {
    expectError(() => run(new Engine(), { count: 'missing', skip: -2 }), 2);
    expectError(() => run(withDocs([{ a: 1 }], []), { count: 'c', skip: -2 }), 2);
  });
});
