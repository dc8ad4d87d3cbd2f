import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Int32 } from 'bson';
import { BTreeIndex } from '../../../../src/engine/indexes/btree-index';
import { defaultIndexName, parseKeyPattern } from '../../../../src/engine/indexes/key-pattern';
import { documentKeys, fieldKeys } from '../../../../src/engine/indexes/keys';
import { type EngineError } from '../../../../src/engine/errors';

const keysOf = (doc: object, key: object) => {
  const p = parseKeyPattern(key);
  return documentKeys(
    doc as never,
    p.fields,
    p.fields.map((f) => f.path.split('.')),
  ).keys;
};

describe('index key generation', () => {
  test('a missing field indexes as null, an empty array as undefined', () => {
    assert.deepEqual(fieldKeys({}, 'a').values, [null]);
    assert.equal(fieldKeys({}, 'a').missing, true);
    assert.deepEqual(fieldKeys({ a: [] }, 'a').values, [undefined]);
  });

  test('an array contributes one key per distinct element (multikey)', () => {
    const k = fieldKeys({ a: [3, 1, 3] }, 'a');
    assert.equal(k.multikey, true);
    assert.deepEqual(keysOf({ a: [3, 1, 3, new Int32(1)] }, { a: 1 }), [[1], [3]]);
  });

  test('dotted paths descend through arrays of documents', () => {
    assert.deepEqual(fieldKeys({ a: [{ b: 1 }, { b: [2, 3] }] }, 'a.b').values, [1, 2, 3]);
    assert.deepEqual(fieldKeys({ a: { b: { c: 'x' } } }, 'a.b.c').values, ['x']);
    assert.deepEqual(fieldKeys({ a: [10, 20] }, 'a.1').values, [20]);
  });

  test("an array element the rest of the path reaches nothing in keys as null (so {'a.b': null} finds it)", () => {
    assert.deepEqual(fieldKeys({ a: [{ b: 1 }, { c: 1 }] }, 'a.b').values, [1, null]);
    assert.deepEqual(fieldKeys({ a: [{}, { b: { c: 2 } }] }, 'a.b.c').values, [null, 2]);
    assert.deepEqual(keysOf({ a: [{}, { b: 5 }] }, { 'a.b': 1 }), [[null], [5]]);
  });

  test('compound keys take the cartesian product with one array field', () => {
    assert.deepEqual(keysOf({ a: 1, b: [2, 3] }, { a: 1, b: 1 }), [
      [1, 2],
      [1, 3],
    ]);
  });

  test('compound keys over fields that meet the same array take one key per element, not parallel arrays', () => {
    const doc = {
      a: [
        { b: 3, c: 6 },
        { b: 1, c: 1 },
      ],
      x: 9,
    };
    assert.deepEqual(keysOf(doc, { 'a.b': 1, 'a.c': 1 }), [
      [1, 1],
      [3, 6],
    ]);
    assert.deepEqual(keysOf(doc, { 'a.b': 1, x: 1, 'a.c': 1 }), [
      [1, 9, 1],
      [3, 9, 6],
    ]);
    // The whole element and one of its fields, from the same array.
    assert.deepEqual(keysOf({ a: [{ c: 1 }, { c: 2 }] }, { a: 1, 'a.c': 1 }), [
      [{ c: 1 }, 1],
      [{ c: 2 }, 2],
    ]);
  });

  test('parallel arrays in a compound key are refused with 171', () => {
    assert.throws(
      () => keysOf({ a: [1, 2], b: [3, 4] }, { a: 1, b: 1 }),
      (e: EngineError) => e.code === 171 && e.codeName === 'CannotIndexParallelArrays',
    );
    assert.throws(
      () => keysOf({ a: [{ b: 1 }, { b: 2 }], c: [{ d: 1 }, { d: 2 }] }, { 'a.b': 1, 'c.d': 1 }),
      (e: EngineError) => e.code === 171,
    );
  });
});

describe('key patterns', () => {
  test('rule 2.1: default names join field_value pairs', () => {
    assert.equal(defaultIndexName({ t: 1 }), 't_1');
    assert.equal(defaultIndexName({ t: -1 }), 't_-1');
    assert.equal(defaultIndexName({ a: 1, b: -1 }), 'a_1_b_-1');
    assert.equal(defaultIndexName({ a: 'hashed' }), 'a_hashed');
    assert.equal(defaultIndexName({ a: new Int32(1) }), 'a_1');
  });

  test('zero, unknown plugins and empty patterns are refused with 67', () => {
    for (const key of [{ a: 0 }, { a: 'fancy' }, {}, { a: true }]) {
      assert.throws(
        () => parseKeyPattern(key),
        (e: EngineError) => e.code === 67,
        JSON.stringify(key),
      );
    }
  });

  test("'$'-prefixed key fields are refused with 67, except DBRef fields past the first component ('a.$id')", () => {
    for (const key of [{ $a: 1 }, { 'a.$b': 1 }, { $db: 1 }])
      assert.throws(
        () => parseKeyPattern(key),
        (e: EngineError) => e.code === 67,
        JSON.stringify(key),
      );
    for (const key of [{ 'a.$id': 1 }, { 'a.$ref': 1 }, { 'a.$db': 1 }, { a$ap: 1 }]) parseKeyPattern(key);
  });

  test('wildcard and special plugins are recognized', () => {
    assert.equal(parseKeyPattern({ '$**': 1 }).plugin, 'wildcard');
    assert.equal(parseKeyPattern({ loc: '2dsphere' }).plugin, '2dsphere');
    assert.equal(parseKeyPattern({ a: 'hashed' }).plugin, 'hashed');
  });
});

describe('B+ tree index', () => {
  test('entries are ordered by value then record id, descending fields reversed', () => {
    const index = new BTreeIndex({ v: 2, key: { a: 1, b: -1 }, name: 'a_1_b_-1' });
    const docs = [
      { a: 2, b: 1 },
      { a: 1, b: 1 },
      { a: 1, b: 5 },
      { a: 'x', b: 0 },
    ];
    docs.forEach((doc, i) => index.add({ rid: i + 1, doc, idSlot: -1 }, index.keysOf(doc)));
    const order = [...index.tree.keys()].map((k) => index.valuesOf(k));
    assert.deepEqual(order, [
      [1, 5],
      [1, 1],
      [2, 1],
      ['x', 0],
    ]);
  });

  test('a sparse index leaves out documents missing every key field', () => {
    const index = new BTreeIndex({ v: 2, key: { a: 1 }, name: 'a_1', sparse: true });
    assert.equal(index.keysOf({ b: 1 }), null);
    assert.deepEqual(index.keysOf({ a: null }), [[null]]);
  });

  test('a unique index finds a duplicate held by another record only', () => {
    const index = new BTreeIndex({ v: 2, key: { a: 1 }, name: 'a_1', unique: true });
    index.add({ rid: 1, doc: { a: 5 }, idSlot: -1 }, [[5]]);
    assert.equal(index.findDuplicate([[5]], 1), undefined);
    assert.equal(index.findDuplicate([[5]], 2)?.record.rid, 1);
    assert.equal(index.findDuplicate([[new Int32(5)]], 2)?.record.rid, 1, 'Int32(5) and 5.0 are the same key');
  });
});

describe('index key generation: ambiguous numeric field names (16746)', () => {
  test('a numeric part that is both a position of the array and a field of an element is refused', () => {
    const expect16746 = (fn: () => unknown) =>
      assert.throws(fn, (e: EngineError) => e.code === 16746 && /Ambiguous field name found in array/.test(e.message));
    expect16746(() => keysOf({ a: [{ 0: 1 }] }, { 'a.0.c': 1 }));
    expect16746(() => keysOf({ a: [{ 0: { b: 1 } }] }, { 'a.0.c': 1 }));
    expect16746(() => keysOf({ a: [{ 0: 1 }], z: 1 }, { 'a.0.c': 1, z: 1 }));
    // No element holds the field, or the position is past the end: nothing is ambiguous.
    assert.deepEqual(keysOf({ a: [{}, { b: { 0: { 0: 1 } } }] }, { 'a.0.c': 1 }), [[null]]);
    assert.deepEqual(keysOf({ a: [{ 5: 1 }, { 5: 2 }] }, { 'a.5': 1 }), [[1], [2]]);
  });

  test('a position past the end of the array reads that field of each element, as the matcher does', () => {
    // {a: [{1: 1}]} under 'a.1': no element 1, so the part names the elements' field "1".
    assert.deepEqual(keysOf({ a: [{ 1: 1 }] }, { 'a.1': 1 }), [[1]]);
    assert.deepEqual(keysOf({ a: [{ 1: 1 }], z: 2 }, { 'a.1': 1, z: 1 }), [[1, 2]]);
    assert.deepEqual(keysOf({ a: [{}, { b: 1 }] }, { 'a.5': 1 }), [[null]]);
  });

  test("a numeric part with a leading zero ('a.00') is no array position: it reads the elements' field", () => {
    // BSON names array elements "0", "1", …: "00" can only be a field, so nothing is ambiguous.
    assert.deepEqual(keysOf({ a: [{ '00': 1 }] }, { 'a.00': 1 }), [[1]]);
    assert.deepEqual(keysOf({ a: [{ '01': 'x' }, { '01': 'y' }] }, { 'a.01': 1 }), [['x'], ['y']]);
    assert.deepEqual(fieldKeys({ a: [{ '00': 1 }] }, 'a.00').multikey, true);
  });

  test('an update that would make a document ambiguous for an index fails and changes nothing', async () => {
    const { Engine } = await import('../../../../src/engine');
    const engine = new Engine();
    engine.runCommand('app', { insert: 'c', documents: [{ _id: 0, a: [{}] }] });
    engine.runCommand('app', { createIndexes: 'c', indexes: [{ key: { 'a.0.c': 1 }, name: 'a.0.c_1' }] });
    const reply = engine.runCommand('app', { update: 'c', updates: [{ q: { _id: 0 }, u: { $set: { 'a.0.0': 1 } } }] });
    assert.equal((reply.writeErrors as Array<{ code: number }>)[0].code, 16746);
    const docs = (engine.runCommand('app', { find: 'c' }).cursor as { firstBatch: unknown[] }).firstBatch;
    assert.deepEqual(docs, [{ _id: 0, a: [{}] }]);
    assert.equal(engine.runCommand('app', { validate: 'c', full: true }).valid, true);
  });
});
