import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal128, Int32, Long, MaxKey, MinKey, ObjectId } from 'bson';
import { compileSort, parseSort, sortKeyOf } from '../../../../src/engine/query/sort';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';

function sorted(spec: Document, docs: Document[]): unknown[] {
  const cmp = compileSort(spec);
  assert.ok(cmp, 'expected a comparator');
  return [...docs].sort(cmp).map((d) => d._id);
}

describe('compileSort: specification', () => {
  it('returns undefined for no sort and for {}', () => {
    assert.equal(compileSort(undefined), undefined);
    assert.equal(compileSort({}), undefined);
  });

  it('accepts 1 and -1 of any numeric type', () => {
    assert.deepEqual(
      parseSort({ a: new Int32(1), b: Long.fromNumber(-1), c: -1.0 }).map((f) => f.direction),
      [1, -1, -1],
    );
  });

  it('refuses other numbers with 15975', () => {
    expectError(
      () => compileSort({ a: 2 }),
      15975,
      '$sort key ordering must be 1 (for ascending) or -1 (for descending)',
    );
    expectError(() => compileSort({ a: 0 }), 15975);
  });

  it('refuses non-numbers with 15974', () => {
    expectError(() => compileSort({ a: 'asc' }), 15974, 'Illegal key in $sort specification: a: "asc"');
    expectError(() => compileSort({ a: true }), 15974);
  });

  it('refuses $meta sorts with a clear error', () => {
    expectError(() => compileSort({ s: { $meta: 'textScore' } }), 2, /not supported/);
    expectError(() => compileSort({ s: { $meta: 'nonsense' } }), 31138);
    expectError(() => compileSort({ s: { $foo: 1 } }), 17312);
  });

  it('refuses $natural with a clear error', () => {
    expectError(() => compileSort({ $natural: 1 }), 2, /\$natural/);
  });

  it('refuses invalid field paths', () => {
    expectError(() => compileSort({ '': 1 }), 40352);
    expectError(() => compileSort({ 'a..b': 1 }), 15998);
    expectError(() => compileSort({ $a: 1 }), 16410);
  });
});

describe('compileSort: ordering', () => {
  it('sorts numbers ascending and descending', () => {
    const docs = [
      { _id: 1, a: 3 },
      { _id: 2, a: 1 },
      { _id: 3, a: 2 },
    ];
    assert.deepEqual(sorted({ a: 1 }, docs), [2, 3, 1]);
    assert.deepEqual(sorted({ a: -1 }, docs), [1, 3, 2]);
  });

  it('compares numbers of different BSON types by value', () => {
    const docs = [
      { _id: 'long', a: Long.fromNumber(3) },
      { _id: 'int', a: new Int32(2) },
      { _id: 'double', a: 2.5 },
      { _id: 'dec', a: Decimal128.fromString('0.5') },
    ];
    assert.deepEqual(sorted({ a: 1 }, docs), ['dec', 'int', 'double', 'long']);
  });

  it('orders different types by the BSON type order', () => {
    const docs = [
      { _id: 'max', a: new MaxKey() },
      { _id: 'date', a: new Date(0) },
      { _id: 'bool', a: false },
      { _id: 'oid', a: new ObjectId('65f000000000000000000001') },
      { _id: 'obj', a: { x: 1 } },
      { _id: 'str', a: 'x' },
      { _id: 'num', a: 5 },
      { _id: 'null', a: null },
      { _id: 'min', a: new MinKey() },
    ];
    assert.deepEqual(sorted({ a: 1 }, docs), ['min', 'null', 'num', 'str', 'obj', 'oid', 'bool', 'date', 'max']);
  });

  it('sorts a missing field as null (ties keep input order)', () => {
    const docs = [{ _id: 1, a: 1 }, { _id: 2 }, { _id: 3, a: null }];
    assert.deepEqual(sorted({ a: 1 }, docs), [2, 3, 1]);
  });

  it('sorts arrays by their smallest element ascending and largest descending', () => {
    const docs = [
      { _id: 1, a: [5, 1] },
      { _id: 2, a: 3 },
      { _id: 3, a: [4, 2] },
    ];
    assert.deepEqual(sorted({ a: 1 }, docs), [1, 3, 2]);
    assert.deepEqual(sorted({ a: -1 }, docs), [1, 3, 2]);
    const docs2 = [
      { _id: 1, a: [0, 2] },
      { _id: 2, a: 3 },
      { _id: 3, a: [1, 10] },
    ];
    assert.deepEqual(sorted({ a: -1 }, docs2), [3, 2, 1]);
  });

  it('sorts an empty array below null', () => {
    const docs = [
      { _id: 'null', a: null },
      { _id: 'empty', a: [] },
      { _id: 'one', a: 1 },
    ];
    assert.deepEqual(sorted({ a: 1 }, docs), ['empty', 'null', 'one']);
    assert.deepEqual(sorted({ a: -1 }, docs), ['one', 'null', 'empty']);
  });

  it('sorts by a dotted path through embedded documents', () => {
    const docs = [
      { _id: 1, a: { b: 2 } },
      { _id: 2, a: { b: 1 } },
      { _id: 3, a: 5 },
    ];
    assert.deepEqual(sorted({ 'a.b': 1 }, docs), [3, 2, 1]);
  });

  it('sorts by a dotted path through an array of documents', () => {
    const docs = [
      { _id: 1, a: [{ b: 5 }, { b: 9 }] },
      { _id: 2, a: [{ b: 7 }] },
      { _id: 3, a: [{ b: 6 }, { c: 1 }] },
    ];
    // Ascending uses each document's smallest b; an element without b counts as null.
    assert.deepEqual(sorted({ 'a.b': 1 }, docs), [3, 1, 2]);
    assert.deepEqual(sorted({ 'a.b': -1 }, docs), [1, 2, 3]);
  });

  it('uses a positional component as an array index', () => {
    const docs = [
      { _id: 1, a: [3, 0] },
      { _id: 2, a: [1, 9] },
    ];
    assert.deepEqual(sorted({ 'a.0': 1 }, docs), [2, 1]);
  });

  it('breaks ties with the next sort field', () => {
    const docs = [
      { _id: 1, a: 1, b: 2 },
      { _id: 2, a: 1, b: 1 },
      { _id: 3, a: 0, b: 5 },
    ];
    assert.deepEqual(sorted({ a: 1, b: -1 }, docs), [3, 1, 2]);
    assert.deepEqual(sorted({ a: 1, b: 1 }, docs), [3, 2, 1]);
  });

  it('sorts dates and strings', () => {
    const docs = [
      { _id: 1, d: new Date(20), s: 'b' },
      { _id: 2, d: new Date(10), s: 'a' },
    ];
    assert.deepEqual(sorted({ d: 1 }, docs), [2, 1]);
    assert.deepEqual(sorted({ s: -1 }, docs), [1, 2]);
  });

  it('refuses two sort fields reaching different arrays (parallel arrays, 2)', () => {
    const cmp = compileSort({ a: 1, b: 1 });
    assert.ok(cmp);
    expectError(() => cmp({ _id: 1, a: [1, 2], b: [1, 2] }, { _id: 2, a: 1, b: 1 }), 2, /parallel arrays/);
  });

  it('allows two sort fields under the same array', () => {
    const docs = [
      { _id: 1, a: [{ b: 1, c: 2 }] },
      { _id: 2, a: [{ b: 0, c: 1 }] },
    ];
    assert.deepEqual(sorted({ 'a.b': 1, 'a.c': 1 }, docs), [2, 1]);
  });
});

describe('sortKeyOf', () => {
  it('gives one key value per field', () => {
    const fields = parseSort({ a: 1, 'b.c': -1, missing: 1 });
    assert.deepEqual(sortKeyOf({ a: [3, 1], b: { c: 4 } }, fields), [1, 4, null]);
    assert.deepEqual(sortKeyOf({ a: 2, b: { c: [4, 8] } }, fields), [2, 8, null]);
  });
});
