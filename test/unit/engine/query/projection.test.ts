import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32, Long } from 'bson';
import { compileProjection } from '../../../../src/engine/query/projection';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';

function project(spec: Document, doc: Document): Document {
  const fn = compileProjection(spec);
  assert.ok(fn, 'expected a projection function');
  return fn(doc);
}

const DOC = { _id: 1, a: 1, b: 'x', c: { d: 1, e: 2 }, arr: [1, 2, 3, 4, 5] };

describe('compileProjection: no projection', () => {
  it('returns undefined for undefined and {}', () => {
    assert.equal(compileProjection(undefined), undefined);
    assert.equal(compileProjection({}), undefined);
  });
});

describe('compileProjection: inclusion', () => {
  it('keeps the listed fields and _id', () => {
    assert.deepEqual(project({ a: 1, c: 1 }, DOC), { _id: 1, a: 1, c: { d: 1, e: 2 } });
  });

  it('follows the document field order, not the projection order', () => {
    assert.deepEqual(Object.keys(project({ c: 1, a: 1 }, DOC)), ['_id', 'a', 'c']);
  });

  it('drops _id when excluded', () => {
    assert.deepEqual(project({ a: 1, _id: 0 }, DOC), { a: 1 });
  });

  it('treats a lone {_id: 1} as an inclusion of _id only', () => {
    assert.deepEqual(project({ _id: 1 }, DOC), { _id: 1 });
  });

  it('accepts true and any non-zero number (NumberInt, NumberLong) as inclusion', () => {
    assert.deepEqual(project({ a: true, b: new Int32(1), arr: Long.fromNumber(-1) }, DOC), {
      _id: 1,
      a: 1,
      b: 'x',
      arr: [1, 2, 3, 4, 5],
    });
  });

  it('omits fields the document does not have', () => {
    assert.deepEqual(project({ zz: 1 }, DOC), { _id: 1 });
  });

  it('includes a dotted path inside an embedded document', () => {
    assert.deepEqual(project({ 'c.d': 1 }, DOC), { _id: 1, c: { d: 1 } });
  });

  it('treats {a: {b: 1}} like {"a.b": 1}', () => {
    assert.deepEqual(project({ c: { e: 1 } }, DOC), { _id: 1, c: { e: 2 } });
  });

  it('keeps an empty embedded document when the sub-field is missing', () => {
    assert.deepEqual(project({ 'c.zz': 1 }, DOC), { _id: 1, c: {} });
  });

  it('leaves out a scalar that a dotted inclusion cannot reach into', () => {
    assert.deepEqual(project({ 'a.b': 1 }, DOC), { _id: 1 });
  });

  it('projects each document of an array, dropping scalars and keeping nested arrays', () => {
    const doc = { _id: 1, a: [{ b: 1, c: 2 }, 3, { c: 4 }, [{ b: 5, c: 6 }, 7]] };
    assert.deepEqual(project({ 'a.b': 1 }, doc), { _id: 1, a: [{ b: 1 }, {}, [{ b: 5 }]] });
  });
});

describe('compileProjection: exclusion', () => {
  it('removes the listed fields and keeps the rest', () => {
    assert.deepEqual(project({ a: 0, arr: 0 }, DOC), { _id: 1, b: 'x', c: { d: 1, e: 2 } });
  });

  it('treats a lone {_id: 0} as an exclusion', () => {
    assert.deepEqual(project({ _id: 0 }, DOC), { a: 1, b: 'x', c: { d: 1, e: 2 }, arr: [1, 2, 3, 4, 5] });
  });

  it('allows {_id: 1} alongside exclusions', () => {
    assert.deepEqual(project({ a: 0, _id: 1 }, { _id: 1, a: 1, b: 2 }), { _id: 1, b: 2 });
  });

  it('removes a dotted path', () => {
    assert.deepEqual(project({ 'c.d': 0 }, DOC).c, { e: 2 });
  });

  it('removes a field from every document of an array and keeps other elements', () => {
    const doc = { _id: 1, a: [{ b: 1, c: 2 }, 3, [{ b: 5 }]] };
    assert.deepEqual(project({ 'a.b': false }, doc), { _id: 1, a: [{ c: 2 }, 3, [{}]] });
  });
});

describe('compileProjection: mixing inclusion and exclusion', () => {
  it('refuses an exclusion in an inclusion projection (31254)', () => {
    expectError(
      () => compileProjection({ a: 1, b: 0 }),
      31254,
      'Cannot do exclusion on field b in inclusion projection',
    );
  });

  it('refuses an inclusion in an exclusion projection (31253)', () => {
    expectError(
      () => compileProjection({ b: 0, a: 1 }),
      31253,
      'Cannot do inclusion on field a in exclusion projection',
    );
  });

  it('applies the rule to nested _id fields too', () => {
    expectError(() => compileProjection({ a: 1, 'c._id': 0 }), 31254);
  });
});

describe('compileProjection: $slice', () => {
  it('keeps the first n elements and all other fields', () => {
    assert.deepEqual(project({ arr: { $slice: 2 } }, DOC), { ...DOC, arr: [1, 2] });
  });

  it('keeps the last n elements for a negative count', () => {
    assert.deepEqual(project({ arr: { $slice: -2 } }, DOC).arr, [4, 5]);
  });

  it('supports [skip, limit] with positive and negative skip', () => {
    assert.deepEqual(project({ arr: { $slice: [1, 2] } }, DOC).arr, [2, 3]);
    assert.deepEqual(project({ arr: { $slice: [-2, 5] } }, DOC).arr, [4, 5]);
    assert.deepEqual(project({ arr: { $slice: [10, 2] } }, DOC).arr, []);
    assert.deepEqual(project({ arr: { $slice: [-10, 2] } }, DOC).arr, [1, 2]);
  });

  it('leaves a non-array value as it is', () => {
    assert.equal(project({ b: { $slice: 1 } }, DOC).b, 'x');
  });

  it('with inclusions, returns only the included fields and the sliced one', () => {
    assert.deepEqual(project({ a: 1, arr: { $slice: 1 } }, DOC), { _id: 1, a: 1, arr: [1] });
  });

  it('is an exclusion combined with excluded fields', () => {
    assert.deepEqual(project({ a: 0, arr: { $slice: 1 } }, DOC), { _id: 1, b: 'x', c: { d: 1, e: 2 }, arr: [1] });
  });

  it('becomes an inclusion with an explicit {_id: 1}', () => {
    assert.deepEqual(project({ _id: 1, arr: { $slice: 1 } }, DOC), { _id: 1, arr: [1] });
  });

  it('slices arrays inside the documents of an array', () => {
    const doc = { _id: 1, a: [{ b: [1, 2, 3], c: 1 }, { b: [4, 5] }] };
    assert.deepEqual(project({ 'a.b': { $slice: 1 } }, doc), { _id: 1, a: [{ b: [1], c: 1 }, { b: [4] }] });
  });

  it('refuses malformed arguments with mongod codes', () => {
    expectError(() => compileProjection({ a: { $slice: [1] } }), 31272);
    expectError(() => compileProjection({ a: { $slice: ['x', 1] } }), 31257);
    expectError(() => compileProjection({ a: { $slice: [1, 'x'] } }), 31258);
    expectError(() => compileProjection({ a: { $slice: [1, 0] } }), 31259, '$slice limit must be positive, got 0');
    expectError(() => compileProjection({ a: { $slice: 'x' } }), 31273);
  });
});

describe('compileProjection: $elemMatch', () => {
  const doc = {
    _id: 1,
    z: 0,
    items: [
      { k: 1, v: 'a' },
      { k: 2, v: 'b' },
      { k: 2, v: 'c' },
    ],
    nums: [1, 5, 9],
  };

  it('returns only the first matching element', () => {
    assert.deepEqual(project({ items: { $elemMatch: { k: 2 } } }, doc), { _id: 1, items: [{ k: 2, v: 'b' }] });
  });

  it('matches scalar elements with operator conditions', () => {
    assert.deepEqual(project({ nums: { $elemMatch: { $gt: 4 } } }, doc), { _id: 1, nums: [5] });
  });

  it('omits the field when no element matches', () => {
    assert.deepEqual(project({ items: { $elemMatch: { k: 9 } } }, doc), { _id: 1 });
  });

  it('puts the $elemMatch field after the other included fields', () => {
    const r = project({ items: { $elemMatch: { k: 1 } }, z: 1 }, doc);
    assert.deepEqual(Object.keys(r), ['_id', 'z', 'items']);
  });

  it('refuses a nested field (31275) and a non-document argument (31274)', () => {
    expectError(
      () => compileProjection({ 'a.b': { $elemMatch: { x: 1 } } }),
      31275,
      'Cannot use $elemMatch projection on a nested field.',
    );
    expectError(() => compileProjection({ a: { $elemMatch: 1 } }), 31274);
  });
});

describe('compileProjection: refused and invalid specifications', () => {
  it('refuses literal values with a clear BadValue (2)', () => {
    expectError(() => compileProjection({ a: 1, b: 'x' }), 2, /literal or expression/);
    expectError(() => compileProjection({ b: '$x' }), 2);
  });

  it('refuses a literal in an exclusion projection as mongod does (31310)', () => {
    expectError(() => compileProjection({ a: 0, b: 'x' }), 31310);
  });

  it('refuses aggregation expressions and $meta (2)', () => {
    expectError(() => compileProjection({ a: { $add: [1, 2] } }), 2, /aggregation expression/);
    expectError(() => compileProjection({ s: { $meta: 'textScore' } }), 2, /\$meta/);
  });

  it('refuses the positional operator (2)', () => {
    expectError(() => compileProjection({ 'a.$': 1 }), 2, /positional projection 'a\.\$' is not supported/);
  });

  it('reports path collisions (31250, 31249)', () => {
    expectError(() => compileProjection({ 'a.b': 1, a: 1 }), 31250, 'Path collision at a');
    expectError(() => compileProjection({ a: 1, 'a.b.c': 1 }), 31249, 'Path collision at a.b.c remaining portion b.c');
  });

  it('refuses an empty sub-projection (51270)', () => {
    expectError(() => compileProjection({ a: {} }), 51270);
  });

  it('refuses $-prefixed and empty field names', () => {
    expectError(() => compileProjection({ 'a.$b': 1 }), 16410);
    expectError(() => compileProjection({ 'a..b': 1 }), 15998);
  });
});

describe('compileProjection: copies', () => {
  it('never shares arrays or documents with the input (inclusion)', () => {
    const doc = { _id: 1, a: { b: [1, { c: 1 }] }, d: [1] };
    const r = project({ a: 1, d: 1 }, doc);
    ((r.a as Document).b as unknown[]).push(9);
    (r.d as unknown[]).push(9);
    assert.deepEqual(doc, { _id: 1, a: { b: [1, { c: 1 }] }, d: [1] });
  });

  it('never shares arrays or documents with the input (exclusion)', () => {
    const doc = { _id: 1, a: { b: [1] }, x: 1 };
    const r = project({ x: 0 }, doc);
    ((r.a as Document).b as unknown[]).push(9);
    assert.deepEqual(doc, { _id: 1, a: { b: [1] }, x: 1 });
  });

  it('copies $slice and $elemMatch results', () => {
    const doc = { _id: 1, a: [{ k: 1 }], s: [[1]] };
    const r1 = project({ a: { $elemMatch: { k: 1 } } }, doc);
    (r1.a as Document[])[0].k = 2;
    const r2 = project({ s: { $slice: 1 } }, doc);
    (r2.s as unknown[][])[0].push(2);
    assert.deepEqual(doc, { _id: 1, a: [{ k: 1 }], s: [[1]] });
  });
});
