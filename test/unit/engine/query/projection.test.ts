import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32, Long } from 'bson';
import { isExpressionOperator } from '../../../../src/engine/query/expressions';
import { compileProjection } from '../../../../src/engine/query/projection';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';

function project(spec: Document, doc: Document): Document {
  const fn = compileProjection(spec);
  assert.ok(fn, 'expected a projection function');
  return fn(doc);
}

// Until the engine has the aggregation operator $slice, a $slice not of the find form cannot be
// tried as an expression: the find syntax error stands alone.
const AGG_SLICE = { skip: isExpressionOperator('$slice') ? false : 'needs the $slice expression operator' };
const NO_AGG_SLICE = { skip: isExpressionOperator('$slice') ? 'the $slice expression operator exists' : false };

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

  it('without the aggregation $slice operator, a malformed find $slice reports its own error', NO_AGG_SLICE, () => {
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

describe('compileProjection: aggregation expressions and literals (MongoDB 4.4+)', () => {
  const doc = { _id: 7, v: 3, b: { c: 'deep' }, arr: [1, 2, 3], name: 'n' };

  it('computes an operator expression against the document: {c: {$add: ["$v", 2]}}', () => {
    assert.deepEqual(project({ c: { $add: ['$v', 2] } }, doc), { _id: 7, c: 5 });
  });

  it('sets a literal string field in an inclusion projection: {x: "text"}', () => {
    assert.deepEqual(project({ v: 1, x: 'text' }, doc), { _id: 7, v: 3, x: 'text' });
  });

  it('reads a $-path value from the document: {a: "$b.c"}', () => {
    assert.deepEqual(project({ a: '$b.c' }, doc), { _id: 7, a: 'deep' });
  });

  it('$literal keeps a value that would otherwise be a path or a flag', () => {
    assert.deepEqual(project({ p: { $literal: '$v' }, one: { $literal: 1 } }, doc), { _id: 7, p: '$v', one: 1 });
  });

  it('null, dates and arrays are literals too; an array evaluates its elements', () => {
    const d = new Date('2026-01-01T00:00:00Z');
    assert.deepEqual(project({ n: null, d, a: ['$v', 'x'] }, doc), { _id: 7, n: null, d, a: [3, 'x'] });
  });

  it('puts computed fields after the included ones, in specification order', () => {
    const r = project({ z: { $literal: 1 }, name: 1, y: '$v', v: 1 }, doc);
    assert.deepEqual(Object.keys(r), ['_id', 'v', 'name', 'z', 'y']);
  });

  it('a computed field over an existing field keeps its place in the document', () => {
    const r = project({ _id: 1, b: { c: 1 }, 'b.d': { $toUpper: '$b.c' } }, { _id: 1, b: { c: 'x', e: 1 }, f: 2 });
    assert.deepEqual(r, { _id: 1, b: { c: 'x', d: 'X' } });
  });

  it('computes nested paths given as sub-objects or dotted keys, creating subdocuments', () => {
    assert.deepEqual(project({ 'm.n': '$v', o: { p: { $multiply: ['$v', 2] } } }, doc), {
      _id: 7,
      m: { n: 3 },
      o: { p: 6 },
    });
  });

  it('a computed path through an array applies to each element; scalars there become documents', () => {
    const r = project({ 'a.k': '$v' }, { _id: 1, v: 3, a: [{ x: 1 }, 5, [{ y: 1 }]] });
    assert.deepEqual(r, { _id: 1, a: [{ k: 3 }, [{ k: 3 }]] });
    assert.deepEqual(project({ 'v.k': { $literal: 1 } }, { _id: 1, v: 3 }), { _id: 1, v: { k: 1 } });
  });

  it('a missing result ($$REMOVE or a missing path) leaves the field out', () => {
    assert.deepEqual(project({ gone: '$$REMOVE', nope: '$missing', v: 1 }, doc), { _id: 7, v: 3 });
  });

  it('_id stays unless excluded, and an expression may replace it', () => {
    assert.deepEqual(project({ _id: 0, c: '$v' }, doc), { c: 3 });
    assert.deepEqual(project({ _id: '$name' }, doc), { _id: 'n' });
  });

  it('an expression alone makes the projection an inclusion, even with a $slice', () => {
    assert.deepEqual(project({ arr: { $slice: 1 }, c: '$v' }, doc), { _id: 7, arr: [1], c: 3 });
  });

  it('$slice that is not of the find form is the aggregation operator: {$slice: ["$arr", 1, 1]}', AGG_SLICE, () => {
    assert.deepEqual(project({ s: { $slice: ['$arr', 1, 1] } }, doc), { _id: 7, s: [2] });
    assert.deepEqual(project({ s: { $slice: ['$arr', -1] } }, doc), { _id: 7, s: [3] });
  });

  it('$elemMatch is computed in specification order among the other computed fields', () => {
    const d = { _id: 1, items: [{ k: 1 }, { k: 2 }], z: 0 };
    assert.deepEqual(Object.keys(project({ c: { $literal: 1 }, items: { $elemMatch: { k: 2 } }, z: 1 }, d)), [
      '_id',
      'z',
      'c',
      'items',
    ]);
  });

  it('sees the variables it is given ($$NOW)', () => {
    const now = new Date('2026-03-04T05:06:07Z');
    const fn = compileProjection({ t: '$$NOW' }, { vars: { NOW: now } });
    assert.deepEqual(fn?.({ _id: 1 }), { _id: 1, t: now });
  });

  it('never shares a value of the input document', () => {
    const d = { _id: 1, b: { c: [1] } };
    const r = project({ copy: '$b' }, d);
    ((r.copy as Document).c as unknown[]).push(2);
    assert.deepEqual(d, { _id: 1, b: { c: [1] } });
  });
});

describe('compileProjection: mongod errors with expressions', () => {
  it('refuses a literal in an exclusion projection (31310)', () => {
    expectError(
      () => compileProjection({ a: 0, b: 'x' }),
      31310,
      'Cannot use an expression b: "x" in an exclusion projection',
    );
  });

  it('refuses an operator expression in an exclusion projection (31252)', () => {
    expectError(
      () => compileProjection({ a: 0, b: { $add: [1, 2] } }),
      31252,
      'Cannot use expression other than $meta in exclusion projection',
    );
  });

  it('refuses an exclusion after an expression (31254)', () => {
    expectError(
      () => compileProjection({ b: 'x', a: 0 }),
      31254,
      'Cannot do exclusion on field a in inclusion projection',
    );
  });

  it('refuses an unknown $-operator (31325)', () => {
    expectError(() => compileProjection({ a: { $nosuch: 1 } }), 31325, 'Unknown expression $nosuch');
  });

  it('reports a malformed expression with its own code', () => {
    expectError(() => compileProjection({ a: { $add: 1, b: 2 } }), 16410);
    expectError(() => compileProjection({ a: { $dateAdd: 1 } }), 5166400);
  });

  it('explains a $slice that fits neither form, with the expression error code', AGG_SLICE, () => {
    const err = expectError(() => compileProjection({ a: { $slice: [1] } }), 28667);
    assert.match(
      err.message,
      /^Invalid \$slice syntax\. .* did not match the find\(\) syntax because :: Location31272: /,
    );
  });

  it('refuses $meta: no text or search metadata here (2)', () => {
    expectError(() => compileProjection({ s: { $meta: 'textScore' } }), 2, /\$meta/);
  });

  it('reports path collisions between expressions and inclusions (31250, 31249)', () => {
    expectError(() => compileProjection({ a: 1, 'a.b': '$v' }), 31249, 'Path collision at a.b remaining portion b');
    expectError(() => compileProjection({ 'a.b': '$v', a: 'x' }), 31250, 'Path collision at a');
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

describe('compileProjection: the positional operator', () => {
  const doc = { _id: 1, grades: [80, 85, 90], other: 1, sub: { list: [{ k: 1 }, { k: 2 }] } };

  it('"a.$": 1 returns the element the query matched, as a one-element array', () => {
    const fn = compileProjection({ 'grades.$': 1 }, { query: { grades: { $gte: 85 } } });
    assert.deepEqual(fn?.(doc), { _id: 1, grades: [85] });
  });

  it('projects the first array on a dotted path, found through $and', () => {
    const fn = compileProjection({ 'sub.list.$': 1 }, { query: { $and: [{ 'sub.list.k': 2 }] } });
    assert.deepEqual(fn?.(doc), { _id: 1, sub: { list: [{ k: 2 }] } });
  });

  it('works with other inclusions and with _id excluded', () => {
    const fn = compileProjection({ _id: 0, other: 1, 'grades.$': 1 }, { query: { grades: 90 } });
    assert.deepEqual(fn?.(doc), { grades: [90], other: 1 });
  });

  it('fails at run time when the query matched no element of the array (51246)', () => {
    const fn = compileProjection({ 'grades.$': 1 }, { query: { $or: [{ grades: 99 }, { other: 1 }] } });
    expectError(() => fn?.({ _id: 2, grades: [1, 2], other: 1 }), 51246);
  });

  it('refuses a projection without a query condition on the field (51050, 31277)', () => {
    expectError(
      () => compileProjection({ 'a.$': 1 }),
      51050,
      'Projections with a positional operator require a matcher',
    );
    expectError(
      () => compileProjection({ 'a.$': 1 }, { query: { b: 1 } }),
      31277,
      /^Positional projection 'a\.\$' does not match the query document/,
    );
  });

  it('refuses two positionals, positional with $elemMatch, and misplaced ones', () => {
    const query = { a: 1, b: 1 };
    expectError(() => compileProjection({ 'a.$': 1, 'b.$': 1 }, { query }), 31276);
    expectError(() => compileProjection({ 'a.$': 1, b: { $elemMatch: { x: 1 } } }, { query }), 31255);
    expectError(() => compileProjection({ b: { $elemMatch: { x: 1 } }, 'a.$': 1 }, { query }), 31256);
    expectError(() => compileProjection({ 'a.$.b': 1 }, { query }), 31394);
    expectError(() => compileProjection({ 'a.$': { $slice: 1 } }, { query }), 31271);
    expectError(() => compileProjection({ 'a.$': 'x' }, { query }), 31308);
    expectError(() => compileProjection({ b: 0, 'a.$': 1 }, { query }), 31253);
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
