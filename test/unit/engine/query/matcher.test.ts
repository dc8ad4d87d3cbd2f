import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Binary,
  BSONRegExp,
  BSONSymbol,
  DBRef,
  Decimal128,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
} from 'bson';
import { EngineError } from '../../../../src/engine/errors';
import { compileFilter, isMatchAll } from '../../../../src/engine/query/matcher';
import type { Document } from '../../../../src/engine/values/types';

function matches(filter: Document, doc: Document): boolean {
  return compileFilter(filter)(doc);
}

/** Which of `docs` (by index) the filter selects. */
function selected(filter: Document, docs: Document[]): number[] {
  const pred = compileFilter(filter);
  return docs.flatMap((d, i) => (pred(d) ? [i] : []));
}

function assertError(filter: unknown, code: number, message?: RegExp): void {
  assert.throws(
    () => compileFilter(filter as Document),
    (err: unknown) => {
      assert.ok(err instanceof EngineError, `expected EngineError, got ${String(err)}`);
      assert.equal(err.code, code);
      if (message) assert.match(err.message, message);
      return true;
    },
  );
}

describe('matcher: basics', () => {
  test('empty filter matches every document', () => {
    assert.equal(matches({}, {}), true);
    assert.equal(matches({}, { a: 1 }), true);
  });

  test('isMatchAll is true only for an empty (or comment-only) filter', () => {
    assert.equal(isMatchAll({}), true);
    assert.equal(isMatchAll({ $comment: 'x' }), true);
    assert.equal(isMatchAll({ a: 1 }), false);
  });

  test('implicit equality on a top-level field', () => {
    assert.equal(matches({ a: 1 }, { a: 1 }), true);
    assert.equal(matches({ a: 1 }, { a: 2 }), false);
    assert.equal(matches({ a: 1 }, { b: 1 }), false);
  });

  test('several fields are an implicit $and', () => {
    assert.equal(matches({ a: 1, b: 'x' }, { a: 1, b: 'x' }), true);
    assert.equal(matches({ a: 1, b: 'x' }, { a: 1, b: 'y' }), false);
  });

  test('inherited Object.prototype keys are not document fields', () => {
    assert.equal(matches({ toString: { $exists: true } }, {}), false);
    assert.equal(matches({ constructor: null }, {}), true);
    assert.equal(matches({ 'a.hasOwnProperty': { $exists: true } }, { a: {} }), false);
  });

  test('a non-object filter is a TypeMismatch', () => {
    assertError('x', 14);
    assertError([{ a: 1 }], 14);
  });
});

describe('matcher: numeric type fidelity', () => {
  const int1 = new Int32(1);
  const long1 = Long.fromNumber(1);
  const dec1 = Decimal128.fromString('1.0');

  test('double 1 equals NumberInt(1), NumberLong(1) and Decimal128 1.0', () => {
    for (const v of [1, int1, long1, dec1]) assert.equal(matches({ n: 1 }, { n: v }), true, String(v));
  });

  test('NumberInt(1) in the filter equals every numeric 1 in documents', () => {
    for (const v of [1, int1, long1, dec1]) assert.equal(matches({ n: int1 }, { n: v }), true, String(v));
  });

  test('Decimal128 in the filter equals the same value in other numeric types', () => {
    assert.equal(matches({ n: dec1 }, { n: 1 }), true);
    assert.equal(matches({ n: dec1 }, { n: long1 }), true);
    assert.equal(matches({ n: Decimal128.fromString('0.1') }, { n: 0.1 }), false, 'double 0.1 is not exactly 1/10');
    assert.equal(matches({ n: Decimal128.fromString('0.1') }, { n: Decimal128.fromString('0.10') }), true);
  });

  test('a number never equals its string form', () => {
    assert.equal(matches({ n: 1 }, { n: '1' }), false);
    assert.equal(matches({ n: '1' }, { n: int1 }), false);
  });

  test('$gt NumberLong(5) matches double 6 and Int32 6, not 5', () => {
    const f = { n: { $gt: Long.fromNumber(5) } };
    assert.equal(matches(f, { n: 6 }), true);
    assert.equal(matches(f, { n: new Int32(6) }), true);
    assert.equal(matches(f, { n: 5 }), false);
    assert.equal(matches(f, { n: 5.5 }), true);
  });

  test('ranges compare Longs beyond 2^53 exactly', () => {
    const big = Long.fromString('9007199254740993'); // 2^53 + 1, not a double
    assert.equal(matches({ n: { $gt: 2 ** 53 } }, { n: big }), true);
    assert.equal(matches({ n: { $lte: 2 ** 53 } }, { n: big }), false);
    assert.equal(matches({ n: big }, { n: 2 ** 53 }), false);
    assert.equal(matches({ n: { $gt: big } }, { n: 2 ** 53 + 2 }), true);
  });

  test('Decimal128 ranges against doubles are exact', () => {
    const f = { n: { $gte: Decimal128.fromString('2.5'), $lt: Decimal128.fromString('3') } };
    assert.deepEqual(selected(f, [{ n: 2.4 }, { n: 2.5 }, { n: new Int32(3) }, { n: 2.99 }]), [1, 3]);
    assert.equal(
      matches({ n: { $gt: Decimal128.fromString('0.1') } }, { n: 0.1 }),
      true,
      'double 0.1 is slightly above 1/10',
    );
  });

  test('NaN equals NaN and is neither greater nor less than anything', () => {
    assert.equal(matches({ n: NaN }, { n: NaN }), true);
    assert.equal(matches({ n: NaN }, { n: Decimal128.fromString('NaN') }), true);
    assert.equal(matches({ n: { $gt: 0 } }, { n: NaN }), false);
    assert.equal(matches({ n: { $lt: 0 } }, { n: NaN }), false);
    assert.equal(matches({ n: { $lt: 0 } }, { n: Decimal128.fromString('NaN') }), false);
    assert.equal(matches({ n: { $gte: NaN } }, { n: NaN }), true);
    assert.equal(matches({ n: { $gt: NaN } }, { n: 5 }), false);
  });

  test('Infinity compares above every finite number', () => {
    assert.equal(matches({ n: { $gt: 1e308 } }, { n: Infinity }), true);
    assert.equal(matches({ n: { $lt: Decimal128.fromString('-1E+6000') } }, { n: -Infinity }), true);
  });

  test('0 and -0 are equal', () => {
    assert.equal(matches({ n: 0 }, { n: -0 }), true);
    assert.equal(matches({ n: { $in: [-0] } }, { n: new Int32(0) }), true);
  });
});

describe('matcher: type bracketing', () => {
  test('$gt on a number matches only numbers', () => {
    const f = { a: { $gt: 1 } };
    assert.deepEqual(
      selected(f, [{ a: 'x' }, { a: true }, { a: new Date() }, { a: {} }, { a: 2 }, { a: null }, {}]),
      [4],
    );
  });

  test('$lt on a string matches only strings (and symbols)', () => {
    const f = { a: { $lt: 'm' } };
    assert.deepEqual(selected(f, [{ a: 'a' }, { a: 'z' }, { a: 1 }, { a: new BSONSymbol('b') }]), [0, 3]);
  });

  test('string ordering is by UTF-8 bytes', () => {
    assert.equal(matches({ s: { $gt: '\uffff' } }, { s: '\u{1F600}' }), true);
  });

  test('$gt MinKey matches every value, including missing', () => {
    const f = { a: { $gt: new MinKey() } };
    assert.deepEqual(
      selected(f, [{ a: 1 }, { a: 'x' }, { a: null }, {}, { a: new MinKey() }, { a: new MaxKey() }]),
      [0, 1, 2, 3, 5],
    );
  });

  test('$lt MaxKey matches everything but MaxKey; $lte MaxKey matches MaxKey too', () => {
    assert.deepEqual(selected({ a: { $lt: new MaxKey() } }, [{ a: 1 }, { a: new MaxKey() }, {}]), [0, 2]);
    assert.deepEqual(selected({ a: { $lte: new MaxKey() } }, [{ a: 1 }, { a: new MaxKey() }]), [0, 1]);
  });

  test('$lt MinKey and $gt MaxKey match nothing; equality with MinKey matches only MinKey', () => {
    assert.equal(matches({ a: { $lt: new MinKey() } }, { a: -Infinity }), false);
    assert.equal(matches({ a: { $gt: new MaxKey() } }, { a: 'zzz' }), false);
    assert.equal(matches({ a: new MinKey() }, { a: new MinKey() }), true);
    assert.equal(matches({ a: new MinKey() }, { a: null }), false);
  });

  test('booleans order false < true', () => {
    assert.equal(matches({ b: { $gt: false } }, { b: true }), true);
    assert.equal(matches({ b: { $gt: false } }, { b: 1 }), false);
  });
});

describe('matcher: dates, ObjectIds and other BSON values', () => {
  const t0 = new Date('2024-01-01T00:00:00Z');
  const t1 = new Date('2024-06-01T00:00:00Z');

  test('date range selects dates inside it and nothing of another type', () => {
    const f = { at: { $gte: t0, $lt: t1 } };
    const docs = [
      { at: new Date('2023-12-31T23:59:59.999Z') },
      { at: t0 },
      { at: new Date('2024-03-01T00:00:00Z') },
      { at: t1 },
      { at: t0.getTime() + 1000 },
      { at: new Timestamp({ t: Math.floor(t0.getTime() / 1000) + 10, i: 0 }) },
    ];
    assert.deepEqual(selected(f, docs), [1, 2]);
  });

  test('date equality compares the instant', () => {
    assert.equal(matches({ at: new Date(t0.getTime()) }, { at: t0 }), true);
    assert.equal(matches({ at: t0 }, { at: t0.toISOString() }), false);
  });

  test('ObjectId equality and ordering', () => {
    const a = new ObjectId('65a000000000000000000001');
    const b = new ObjectId('65a000000000000000000002');
    assert.equal(matches({ _id: new ObjectId(a.toHexString()) }, { _id: a }), true);
    assert.equal(matches({ _id: a }, { _id: b }), false);
    assert.equal(matches({ _id: { $gt: a } }, { _id: b }), true);
    assert.equal(matches({ _id: a }, { _id: a.toHexString() }), false);
    assert.equal(matches({ _id: { $in: [b, a] } }, { _id: a }), true);
  });

  test('Timestamp comparison orders by seconds then increment', () => {
    const f = { ts: { $gt: new Timestamp({ t: 10, i: 5 }) } };
    assert.equal(matches(f, { ts: new Timestamp({ t: 10, i: 6 }) }), true);
    assert.equal(matches(f, { ts: new Timestamp({ t: 9, i: 100 }) }), false);
  });

  test('Binary equality compares subtype and bytes', () => {
    const bin = new Binary(Buffer.from([1, 2, 3]), 0);
    assert.equal(matches({ b: new Binary(Buffer.from([1, 2, 3]), 0) }, { b: bin }), true);
    assert.equal(matches({ b: new Binary(Buffer.from([1, 2, 3]), 4) }, { b: bin }), false);
  });
});

describe('matcher: null and missing', () => {
  const docs: Document[] = [{ a: null }, {}, { a: undefined }, { a: 0 }, { a: [] }, { a: [1, null] }, { a: [1] }];

  test('{a: null} matches null, missing and undefined, and arrays holding null', () => {
    assert.deepEqual(selected({ a: null }, docs), [0, 1, 2, 5]);
  });

  test('{a: {$ne: null}} is the exact complement', () => {
    assert.deepEqual(selected({ a: { $ne: null } }, docs), [3, 4, 6]);
  });

  test('$gte null and $lte null match like equality; $gt/$lt null match nothing', () => {
    assert.deepEqual(selected({ a: { $gte: null } }, docs), [0, 1, 2, 5]);
    assert.deepEqual(selected({ a: { $lte: null } }, docs), [0, 1, 2, 5]);
    assert.deepEqual(selected({ a: { $gt: null } }, docs), []);
    assert.deepEqual(selected({ a: { $lt: null } }, docs), []);
  });

  test('$in with null matches missing', () => {
    assert.deepEqual(selected({ a: { $in: [null, 0] } }, docs), [0, 1, 2, 3, 5]);
    assert.deepEqual(selected({ a: { $nin: [null] } }, docs), [3, 4, 6]);
  });

  test('a dotted null query matches array elements lacking the field but not scalar elements', () => {
    const f = { 'a.b': null };
    assert.equal(matches(f, { a: [{ b: 1 }, { c: 1 }] }), true);
    assert.equal(matches(f, { a: [{ b: 1 }, { b: 2 }] }), false);
    assert.equal(matches(f, { a: [1, 2] }), false, 'scalars in the array reach nothing');
    assert.equal(matches(f, { a: [] }), false);
    assert.equal(matches(f, { a: 5 }), true, 'a scalar in the middle of the path makes b missing');
    assert.equal(matches(f, { a: { b: null } }), true);
  });

  test('equality with a JS undefined operand is read as null (as the driver serialises it)', () => {
    assert.equal(matches({ a: undefined }, {}), true);
    assert.equal(matches({ a: { $eq: undefined } }, { a: null }), true);
  });
});

describe('matcher: $exists', () => {
  test('$exists: true matches any present value, including null and empty arrays', () => {
    assert.deepEqual(selected({ a: { $exists: true } }, [{ a: null }, {}, { a: [] }, { a: 0 }]), [0, 2, 3]);
  });

  test('$exists: false matches only missing fields', () => {
    assert.deepEqual(selected({ a: { $exists: false } }, [{ a: null }, {}, { a: [] }, { b: 1 }]), [1, 3]);
  });

  test('$exists reads its argument by BSON truthiness', () => {
    assert.equal(matches({ a: { $exists: 0 } }, {}), true);
    assert.equal(matches({ a: { $exists: 1 } }, { a: 1 }), true);
    assert.equal(matches({ a: { $exists: null } }, {}), true);
    assert.equal(matches({ a: { $exists: 'yes' } }, { a: 1 }), true);
  });

  test('dotted $exists through an array of documents', () => {
    assert.equal(matches({ 'a.b': { $exists: true } }, { a: [{ c: 1 }, { b: 2 }] }), true);
    assert.equal(matches({ 'a.b': { $exists: true } }, { a: [{ c: 1 }] }), false);
    assert.equal(matches({ 'a.b': { $exists: false } }, { a: [{ c: 1 }, { b: 2 }] }), false);
    assert.equal(matches({ 'a.b': { $exists: true } }, { a: [1, 2] }), false);
  });
});

describe('matcher: arrays', () => {
  test('equality matches an element of an array field', () => {
    assert.equal(matches({ tags: 'red' }, { tags: ['blue', 'red'] }), true);
    assert.equal(matches({ tags: 'green' }, { tags: ['blue', 'red'] }), false);
  });

  test('equality with an array value matches the whole array exactly or an array element', () => {
    assert.equal(matches({ a: [1, 2] }, { a: [1, 2] }), true);
    assert.equal(matches({ a: [1, 2] }, { a: [2, 1] }), false);
    assert.equal(matches({ a: [1, 2] }, { a: [1, 2, 3] }), false);
    assert.equal(matches({ a: [1, 2] }, { a: [[1, 2], 3] }), true);
    assert.equal(matches({ a: [] }, { a: [] }), true);
    assert.equal(matches({ a: [] }, { a: [[]] }), true);
  });

  test('nested arrays are not flattened for equality on scalars', () => {
    assert.equal(matches({ a: 1 }, { a: [[1, 2]] }), false);
  });

  test('$gt applies to each element: one element above suffices', () => {
    assert.equal(matches({ a: { $gt: 5 } }, { a: [1, 10] }), true);
    assert.equal(matches({ a: { $gt: 50 } }, { a: [1, 10] }), false);
  });

  test('two range operators may be satisfied by different elements', () => {
    assert.equal(matches({ a: { $gt: 5, $lt: 8 } }, { a: [1, 10] }), true);
  });

  test('a range on an array operand compares whole arrays (and array elements) as arrays', () => {
    assert.equal(matches({ a: { $gt: [1] } }, { a: [2] }), true);
    assert.equal(matches({ a: { $gt: [1] } }, { a: [0, [5]] }), true, 'element [5] > [1]');
    assert.equal(matches({ a: { $lt: [1] } }, { a: 0 }), false);
  });

  test('$ne on an array field requires that no element equals', () => {
    assert.equal(matches({ a: { $ne: 2 } }, { a: [1, 2, 3] }), false);
    assert.equal(matches({ a: { $ne: 4 } }, { a: [1, 2, 3] }), true);
  });

  test('$nin on an array field requires that no element is listed', () => {
    assert.equal(matches({ a: { $nin: [3, 9] } }, { a: [1, 2, 3] }), false);
    assert.equal(matches({ a: { $nin: [8, 9] } }, { a: [1, 2, 3] }), true);
  });

  test('$in matches any element and a whole-array operand', () => {
    assert.equal(matches({ a: { $in: [5, 2] } }, { a: [1, 2] }), true);
    assert.equal(matches({ a: { $in: [[1, 2]] } }, { a: [1, 2] }), true);
    assert.equal(matches({ a: { $in: [] } }, { a: [1, 2] }), false);
  });

  test('$in mixes strings, numbers of every type, dates and regexes', () => {
    const f = { a: { $in: ['x', Long.fromNumber(7), new Date(5), /^pre/, Decimal128.fromString('0.1'), true] } };
    const docs = [
      { a: 'x' },
      { a: 7 },
      { a: new Int32(7) },
      { a: new Date(5) },
      { a: 'prefix' },
      { a: Decimal128.fromString('0.1') },
      { a: 0.1 },
      { a: true },
      { a: 'y' },
      { a: 1 },
    ];
    assert.deepEqual(selected(f, docs), [0, 1, 2, 3, 4, 5, 7]);
  });

  test('$in with NaN matches NaN of any numeric type', () => {
    assert.equal(matches({ a: { $in: [NaN] } }, { a: Decimal128.fromString('NaN') }), true);
    assert.equal(matches({ a: { $in: [1] } }, { a: NaN }), false);
  });

  test('$size matches the array length exactly and never scalars', () => {
    assert.equal(matches({ a: { $size: 2 } }, { a: [1, 2] }), true);
    assert.equal(matches({ a: { $size: 2 } }, { a: [1] }), false);
    assert.equal(matches({ a: { $size: 0 } }, { a: [] }), true);
    assert.equal(matches({ a: { $size: 1 } }, { a: 1 }), false);
    assert.equal(matches({ a: { $size: 1 } }, { a: [[1, 2]] }), true, 'leaf arrays are not expanded for $size');
    assert.equal(matches({ a: { $size: new Int32(2) } }, { a: [1, 2] }), true);
  });

  test('$size through a path into an array of documents', () => {
    assert.equal(matches({ 'a.b': { $size: 2 } }, { a: [{ b: [1] }, { b: [1, 2] }] }), true);
  });

  test('$all requires every listed value', () => {
    assert.equal(matches({ a: { $all: [1, 3] } }, { a: [1, 2, 3] }), true);
    assert.equal(matches({ a: { $all: [1, 4] } }, { a: [1, 2, 3] }), false);
    assert.equal(matches({ a: { $all: [1] } }, { a: 1 }), true, 'a scalar field satisfies $all of itself');
    assert.equal(matches({ a: { $all: [] } }, { a: [] }), false, '$all of nothing matches nothing');
    assert.equal(matches({ a: { $all: [[1, 2]] } }, { a: [1, 2] }), true);
    assert.equal(matches({ a: { $all: [/^a/, /b$/] } }, { a: ['ax', 'xb'] }), true);
  });

  test('$all of $elemMatch requires an element for each clause', () => {
    const f = {
      items: {
        $all: [{ $elemMatch: { size: 'M', qty: { $gt: 50 } } }, { $elemMatch: { num: 100, color: 'green' } }],
      },
    };
    assert.equal(matches(f, { items: [{ size: 'M', qty: 60, num: 100, color: 'green' }] }), true);
    assert.equal(
      matches(f, {
        items: [
          { size: 'M', qty: 60 },
          { num: 100, color: 'green' },
        ],
      }),
      true,
    );
    assert.equal(
      matches(f, {
        items: [
          { size: 'M', qty: 40 },
          { num: 100, color: 'green' },
        ],
      }),
      false,
    );
  });
});

describe('matcher: dotted paths', () => {
  test('a dotted path walks embedded documents', () => {
    assert.equal(matches({ 'a.b.c': 1 }, { a: { b: { c: 1 } } }), true);
    assert.equal(matches({ 'a.b.c': 1 }, { a: { b: { c: 2 } } }), false);
    assert.equal(matches({ 'a.b.c': 1 }, { a: { b: 1 } }), false);
  });

  test('a dotted path fans out over an array of documents', () => {
    const doc = { a: [{ b: 1 }, { b: 2 }] };
    assert.equal(matches({ 'a.b': 2 }, doc), true);
    assert.equal(matches({ 'a.b': 3 }, doc), false);
    assert.equal(matches({ 'a.b': { $gt: 1 } }, doc), true);
  });

  test('arrays at several levels are all traversed', () => {
    const doc = { a: [{ b: [{ c: 1 }, { c: 2 }] }, { b: [{ c: 3 }] }] };
    assert.equal(matches({ 'a.b.c': 3 }, doc), true);
    assert.equal(matches({ 'a.b.c': 4 }, doc), false);
    assert.equal(matches({ 'a.b.c': { $size: 1 } }, doc), false);
  });

  test('a leaf array reached through an array of documents is expanded', () => {
    assert.equal(matches({ 'a.b': 5 }, { a: [{ b: [4, 5] }] }), true);
    assert.equal(matches({ 'a.b': [4, 5] }, { a: [{ b: [4, 5] }] }), true);
  });

  test('nested arrays are not entered by a field name', () => {
    assert.equal(matches({ 'a.b': 1 }, { a: [[{ b: 1 }]] }), false);
  });

  test('a numeric component is an array index', () => {
    assert.equal(matches({ 'a.1': 'y' }, { a: ['x', 'y'] }), true);
    assert.equal(matches({ 'a.0': 'y' }, { a: ['x', 'y'] }), false);
    assert.equal(matches({ 'a.5': { $exists: true } }, { a: ['x', 'y'] }), false);
  });

  test('a numeric component is also a field name in documents', () => {
    assert.equal(matches({ 'a.0': 'x' }, { a: { 0: 'x' } }), true);
    assert.equal(matches({ 'a.0': 'x' }, { a: [{ 0: 'x' }] }), true, 'field "0" of an element');
    assert.equal(matches({ 'a.0.b': 1 }, { a: [{ b: 1 }] }), true, 'index 0 then field b');
    assert.equal(matches({ 'a.1.b': 1 }, { a: [{ b: 1 }, { b: 2 }] }), false);
  });

  test('a non-canonical number like "01" is only a field name', () => {
    assert.equal(matches({ 'a.01': 'x' }, { a: ['y', 'x'] }), false);
    assert.equal(matches({ 'a.01': 'x' }, { a: { '01': 'x' } }), true);
  });

  test('a positional component enters a nested array', () => {
    assert.equal(matches({ 'a.0.1': 6 }, { a: [[5, 6]] }), true);
    assert.equal(matches({ 'a.0': 1 }, { a: [[1, 2]] }), false, 'the element named by index is not expanded');
    assert.equal(matches({ 'a.0': [1, 2] }, { a: [[1, 2]] }), true);
  });

  test('a nested array entered by position fans out over the rest of the path', () => {
    assert.equal(matches({ 'a.0.b': { $exists: true } }, { a: [[{ b: 1 }]] }), true);
    assert.equal(matches({ 'a.b': { $exists: true } }, { a: [[{ b: 1 }]] }), false, 'no implicit nested fan-out');
    assert.equal(matches({ 'a.0.b': { $exists: false } }, { a: [[], [{ b: 1 }]] }), true);
    assert.equal(matches({ 'a.1.0.b': 1 }, { a: [[], [{ b: 1 }]] }), true);
    assert.equal(matches({ 'a.0.0.0': { $exists: true } }, { a: [[[1]]] }), true);
  });

  test('a path through a scalar reaches nothing', () => {
    assert.equal(matches({ 'a.b': { $exists: true } }, { a: 'str' }), false);
    assert.equal(matches({ 'a.length': 3 }, { a: 'abc' }), false);
    assert.equal(matches({ 'a.length': 2 }, { a: [1, 2] }), false);
  });
});

describe('matcher: embedded documents', () => {
  test('equality with a document is exact, including field order', () => {
    assert.equal(matches({ a: { x: 1, y: 2 } }, { a: { x: 1, y: 2 } }), true);
    assert.equal(matches({ a: { x: 1, y: 2 } }, { a: { y: 2, x: 1 } }), false);
    assert.equal(matches({ a: { x: 1 } }, { a: { x: 1, y: 2 } }), false);
    assert.equal(matches({ a: { x: 1 } }, { a: { x: new Int32(1) } }), true, 'values compare by BSON value');
  });

  test('equality with a document matches an equal array element', () => {
    assert.equal(matches({ a: { x: 1 } }, { a: [{ x: 2 }, { x: 1 }] }), true);
  });

  test('an empty document operand matches only empty documents', () => {
    assert.equal(matches({ a: {} }, { a: {} }), true);
    assert.equal(matches({ a: {} }, { a: { b: 1 } }), false);
  });

  test('a {$ref, $id} operand is a DBRef value, not an operator object', () => {
    assert.equal(matches({ r: { $ref: 'c', $id: 1 } }, { r: { $ref: 'c', $id: 1 } }), true);
  });
});

describe('matcher: $elemMatch', () => {
  test('value form: one element satisfies every operator', () => {
    const f = { s: { $elemMatch: { $gte: 80, $lt: 85 } } };
    assert.equal(matches(f, { s: [82, 90] }), true);
    assert.equal(matches(f, { s: [79, 90] }), false);
    assert.equal(
      matches({ s: { $gte: 80, $lt: 85 } }, { s: [79, 90] }),
      true,
      'without $elemMatch different elements may satisfy each',
    );
  });

  test('document form: one element document satisfies every condition', () => {
    const doc = {
      r: [
        { p: 'x', s: 8 },
        { p: 'y', s: 9 },
      ],
    };
    assert.equal(matches({ r: { $elemMatch: { p: 'x', s: { $gte: 8 } } } }, doc), true);
    assert.equal(matches({ r: { $elemMatch: { p: 'x', s: 9 } } }, doc), false);
    assert.equal(matches({ 'r.p': 'x', 'r.s': 9 }, doc), true, 'dotted paths may be satisfied by different elements');
  });

  test('$elemMatch never matches a non-array field', () => {
    assert.equal(matches({ a: { $elemMatch: { $gt: 1 } } }, { a: 5 }), false);
    assert.equal(matches({ a: { $elemMatch: { b: 1 } } }, { a: { b: 1 } }), false);
  });

  test('document form skips scalar elements', () => {
    assert.equal(matches({ a: { $elemMatch: { b: { $exists: false } } } }, { a: [1, 2] }), false);
    assert.equal(matches({ a: { $elemMatch: {} } }, { a: [1, { x: 1 }] }), true);
    assert.equal(matches({ a: { $elemMatch: {} } }, { a: [1, 2] }), false);
  });

  test('document form with a leading $or is still a query on element documents', () => {
    const f = { a: { $elemMatch: { $or: [{ b: 1 }, { c: 2 }] } } };
    assert.equal(matches(f, { a: [{ c: 2 }] }), true);
    assert.equal(matches(f, { a: [{ c: 3 }] }), false);
  });

  test('value form with $ne and $not tests each element', () => {
    assert.equal(matches({ a: { $elemMatch: { $ne: 1 } } }, { a: [1, 2] }), true);
    assert.equal(matches({ a: { $elemMatch: { $ne: 1 } } }, { a: [1, 1] }), false);
    assert.equal(matches({ a: { $elemMatch: { $not: { $gt: 5 } } } }, { a: [9, 3] }), true);
  });

  test('nested $elemMatch matches arrays of arrays', () => {
    assert.equal(matches({ a: { $elemMatch: { $elemMatch: { $gt: 5 } } } }, { a: [[1], [2, 6]] }), true);
    assert.equal(matches({ a: { $elemMatch: { $elemMatch: { $gt: 5 } } } }, { a: [[1], [2, 4]] }), false);
  });

  test('document form on nested arrays reads indexes as field names', () => {
    assert.equal(matches({ a: { $elemMatch: { 0: 1 } } }, { a: [[1, 2]] }), true);
  });

  test('$elemMatch through a dotted path', () => {
    const doc = { o: [{ items: [{ q: 1 }, { q: 5 }] }] };
    assert.equal(matches({ 'o.items': { $elemMatch: { q: { $gt: 4 } } } }, doc), true);
    assert.equal(matches({ 'o.items': { $elemMatch: { q: { $gt: 5 } } } }, doc), false);
  });
});

describe('matcher: logical operators', () => {
  test('$and requires all clauses', () => {
    assert.equal(matches({ $and: [{ a: 1 }, { b: 2 }] }, { a: 1, b: 2 }), true);
    assert.equal(matches({ $and: [{ a: 1 }, { b: 2 }] }, { a: 1, b: 3 }), false);
  });

  test('$or requires one clause', () => {
    assert.deepEqual(selected({ $or: [{ a: 1 }, { b: 2 }] }, [{ a: 1 }, { b: 2 }, { a: 2, b: 1 }]), [0, 1]);
  });

  test('$nor requires no clause', () => {
    assert.deepEqual(selected({ $nor: [{ a: 1 }, { b: 2 }] }, [{ a: 1 }, { b: 2 }, { a: 2, b: 1 }, {}]), [2, 3]);
  });

  test('$not negates the whole field condition', () => {
    assert.deepEqual(
      selected({ a: { $not: { $gt: 5 } } }, [{ a: 3 }, { a: 7 }, {}, { a: 'x' }, { a: [1, 9] }]),
      [0, 2, 3],
    );
  });

  test('$not with a regex matches non-matching strings and non-strings', () => {
    assert.deepEqual(selected({ s: { $not: /^a/ } }, [{ s: 'abc' }, { s: 'xyz' }, { s: 1 }, {}]), [1, 2, 3]);
  });

  test('$not of several operators negates their conjunction', () => {
    assert.deepEqual(selected({ a: { $not: { $gt: 1, $lt: 5 } } }, [{ a: 3 }, { a: 0 }, { a: 9 }]), [1, 2]);
  });

  test('logical operators nest', () => {
    const f = { $or: [{ $and: [{ a: { $gte: 1 } }, { a: { $lte: 2 } }] }, { $nor: [{ b: { $exists: true } }] }] };
    assert.deepEqual(selected(f, [{ a: 1, b: 0 }, { a: 3, b: 0 }, { a: 3 }]), [0, 2]);
  });

  test('$comment is ignored', () => {
    assert.equal(matches({ a: 1, $comment: 'why' }, { a: 1 }), true);
  });

  test('$alwaysTrue and $alwaysFalse', () => {
    assert.equal(matches({ $alwaysTrue: 1 }, {}), true);
    assert.equal(matches({ $alwaysFalse: 1 }, {}), false);
    assertError({ $alwaysTrue: 0 }, 9);
  });
});

describe('matcher: $type', () => {
  const docs: Document[] = [
    { v: 1 },
    { v: new Int32(1) },
    { v: Long.fromNumber(1) },
    { v: Decimal128.fromString('1') },
    { v: 'x' },
    { v: new Date(0) },
    { v: null },
    {},
    { v: [1, 'x'] },
    { v: { a: 1 } },
    { v: new ObjectId() },
    { v: true },
  ];

  test('type names select exactly one BSON type', () => {
    assert.deepEqual(selected({ v: { $type: 'double' } }, docs), [0, 8]);
    assert.deepEqual(selected({ v: { $type: 'int' } }, docs), [1]);
    assert.deepEqual(selected({ v: { $type: 'long' } }, docs), [2]);
    assert.deepEqual(selected({ v: { $type: 'decimal' } }, docs), [3]);
    assert.deepEqual(selected({ v: { $type: 'date' } }, docs), [5]);
    assert.deepEqual(selected({ v: { $type: 'null' } }, docs), [6]);
    assert.deepEqual(selected({ v: { $type: 'objectId' } }, docs), [10]);
    assert.deepEqual(selected({ v: { $type: 'bool' } }, docs), [11]);
    assert.deepEqual(selected({ v: { $type: 'object' } }, docs), [9]);
  });

  test('"number" matches all four numeric types', () => {
    assert.deepEqual(selected({ v: { $type: 'number' } }, docs), [0, 1, 2, 3, 8]);
  });

  test('numeric type codes and lists of types', () => {
    assert.deepEqual(selected({ v: { $type: 2 } }, docs), [4, 8]);
    assert.deepEqual(selected({ v: { $type: [9, 'bool'] } }, docs), [5, 11]);
    assert.deepEqual(selected({ v: { $type: new Int32(16) } }, docs), [1]);
  });

  test('"array" matches array fields; element types match too', () => {
    assert.deepEqual(selected({ v: { $type: 'array' } }, docs), [8]);
    assert.equal(matches({ v: { $type: 'string' } }, { v: ['a'] }), true);
  });

  test('$type never matches a missing field', () => {
    assert.equal(matches({ v: { $type: 'undefined' } }, {}), false);
    assert.equal(matches({ v: { $type: 'minKey' } }, {}), false);
  });

  test('unknown alias, bad code and bad argument type are errors', () => {
    assertError({ v: { $type: 'foo' } }, 2, /Unknown type name alias: foo/);
    assertError({ v: { $type: 100 } }, 2, /Invalid numerical type code/);
    assertError({ v: { $type: 1.5 } }, 2);
    assertError({ v: { $type: {} } }, 14);
  });
});

describe('matcher: $regex', () => {
  test('a regex literal matches strings', () => {
    assert.equal(matches({ s: /^ab/ }, { s: 'abc' }), true);
    assert.equal(matches({ s: /^ab/ }, { s: 'xab' }), false);
  });

  test('regexes never match non-strings', () => {
    assert.equal(matches({ s: /1/ }, { s: 1 }), false);
    assert.equal(matches({ s: /null/ }, { s: null }), false);
    assert.equal(matches({ s: /./ }, {}), false);
  });

  test('$regex with $options i, in either order', () => {
    assert.equal(matches({ s: { $regex: '^AB', $options: 'i' } }, { s: 'abc' }), true);
    assert.equal(matches({ s: { $options: 'i', $regex: '^AB' } }, { s: 'abc' }), true);
    assert.equal(matches({ s: { $regex: '^AB' } }, { s: 'abc' }), false);
  });

  test('BSONRegExp values and RegExp values both work as operands', () => {
    assert.equal(matches({ s: new BSONRegExp('^a.c$', 'i') }, { s: 'ABC' }), true);
    assert.equal(matches({ s: { $regex: /b/ } }, { s: 'abc' }), true);
    assert.equal(matches({ s: { $regex: /B/, $options: 'i' } }, { s: 'abc' }), true);
  });

  test('the m, s and x options', () => {
    assert.equal(matches({ s: { $regex: '^b', $options: 'm' } }, { s: 'a\nb' }), true);
    assert.equal(matches({ s: { $regex: '^b' } }, { s: 'a\nb' }), false);
    assert.equal(matches({ s: { $regex: 'a.b', $options: 's' } }, { s: 'a\nb' }), true);
    assert.equal(matches({ s: { $regex: 'a b # comment\n c', $options: 'x' } }, { s: 'abc' }), true);
  });

  test('PCRE anchors \\A and \\z', () => {
    assert.equal(matches({ s: { $regex: '\\Aab\\z' } }, { s: 'ab' }), true);
    assert.equal(matches({ s: { $regex: '\\Aab\\z' } }, { s: 'ab\n' }), false);
  });

  test('a regex matches any string element of an array', () => {
    assert.equal(matches({ tags: /^re/ }, { tags: ['blue', 'red'] }), true);
  });

  test('a regex literal matches an identical stored regex; $eq with a regex only matches regexes', () => {
    assert.equal(matches({ r: /ab/i }, { r: new BSONRegExp('ab', 'i') }), true);
    assert.equal(matches({ r: { $eq: /ab/ } }, { r: 'ab' }), false);
    assert.equal(matches({ r: { $eq: /ab/ } }, { r: /ab/ }), true);
  });

  test('a regex matches symbols', () => {
    assert.equal(matches({ s: /^a/ }, { s: new BSONSymbol('abc') }), true);
  });

  test('regex errors: bad pattern, bad option, $options alone, conflicting options, non-string', () => {
    assertError({ s: { $regex: '(' } }, 51091, /Regular expression is invalid/);
    assertError({ s: { $regex: 'a', $options: 'q' } }, 51108);
    assertError({ s: { $options: 'i' } }, 2, /\$options needs a \$regex/);
    assertError({ s: { $regex: /a/i, $options: 'm' } }, 51075, /options set in both/);
    assertError({ s: { $options: 'm', $regex: /a/i } }, 51074, /options set in both/);
    assertError({ s: { $regex: 5 } }, 2, /\$regex has to be a string/);
    assertError({ s: { $ne: /a/ } }, 2);
    assertError({ s: { $gt: /a/ } }, 2);
  });
});

describe('matcher: $mod and bit operators', () => {
  test('$mod truncates values toward zero and matches numbers only', () => {
    const f = { n: { $mod: [4, 1] } };
    assert.deepEqual(
      selected(f, [
        { n: 5 },
        { n: 5.9 },
        { n: 6 },
        { n: new Int32(9) },
        { n: Long.fromNumber(13) },
        { n: '5' },
        { n: NaN },
      ]),
      [0, 1, 3, 4],
    );
    assert.equal(matches({ n: { $mod: [4, -1] } }, { n: -5 }), true);
  });

  test('$mod works on Longs beyond 2^53', () => {
    assert.equal(matches({ n: { $mod: [10, 3] } }, { n: Long.fromString('9007199254740993') }), true);
  });

  test('$mod argument errors', () => {
    assertError({ n: { $mod: 4 } }, 2, /needs to be an array/);
    assertError({ n: { $mod: [4] } }, 2, /not enough elements/);
    assertError({ n: { $mod: [4, 1, 2] } }, 2, /too many elements/);
    assertError({ n: { $mod: [0, 1] } }, 2, /divisor cannot be 0/);
    assertError({ n: { $mod: ['a', 1] } }, 2);
  });

  test('$bitsAllSet / $bitsAnySet / $bitsAllClear / $bitsAnyClear with masks and positions', () => {
    assert.equal(matches({ n: { $bitsAllSet: 0b101 } }, { n: 0b1101 }), true);
    assert.equal(matches({ n: { $bitsAllSet: [1, 4] } }, { n: 0b1101 }), false);
    assert.equal(matches({ n: { $bitsAnySet: [1, 2] } }, { n: 0b0100 }), true);
    assert.equal(matches({ n: { $bitsAllClear: [1, 4] } }, { n: 0b0101 }), true);
    assert.equal(matches({ n: { $bitsAnyClear: 0b11 } }, { n: 0b01 }), true);
    assert.equal(matches({ n: { $bitsAllSet: [70] } }, { n: -1 }), true, 'negative numbers are sign-extended');
    assert.equal(matches({ n: { $bitsAllSet: 1 } }, { n: 1.5 }), false, 'non-integral values never match');
    assert.equal(matches({ n: { $bitsAllSet: 1 } }, { n: new Binary(Buffer.from([1])) }), true);
  });
});

describe('matcher: $geoWithin', () => {
  test('$box contains legacy points inclusively', () => {
    const f = {
      loc: {
        $geoWithin: {
          $box: [
            [0, 0],
            [10, 10],
          ],
        },
      },
    };
    assert.deepEqual(
      selected(f, [{ loc: [5, 5] }, { loc: [10, 10] }, { loc: [11, 5] }, { loc: { x: 1, y: 2 } }, {}]),
      [0, 1, 3],
    );
  });

  test('$center and $polygon on the plane', () => {
    assert.equal(matches({ p: { $geoWithin: { $center: [[0, 0], 5] } } }, { p: [3, 4] }), true);
    assert.equal(matches({ p: { $geoWithin: { $center: [[0, 0], 5] } } }, { p: [4, 4] }), false);
    const tri = {
      p: {
        $geoWithin: {
          $polygon: [
            [0, 0],
            [10, 0],
            [0, 10],
          ],
        },
      },
    };
    assert.equal(matches(tri, { p: [2, 2] }), true);
    assert.equal(matches(tri, { p: [8, 8] }), false);
  });

  test('$geometry polygon contains GeoJSON points on the sphere', () => {
    const f = {
      loc: {
        $geoWithin: {
          $geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [0, 0],
                [10, 0],
                [10, 10],
                [0, 10],
                [0, 0],
              ],
            ],
          },
        },
      },
    };
    assert.equal(matches(f, { loc: { type: 'Point', coordinates: [5, 5] } }), true);
    assert.equal(matches(f, { loc: { type: 'Point', coordinates: [15, 5] } }), false);
    assert.equal(matches(f, { loc: [5, 5] }), true, 'legacy pairs are read as [lng, lat]');
  });

  test('$centerSphere uses great-circle distance in radians', () => {
    const f = { loc: { $geoWithin: { $centerSphere: [[0, 0], (10 * Math.PI) / 180] } } };
    assert.equal(matches(f, { loc: [0, 9.9] }), true);
    assert.equal(matches(f, { loc: [0, 10.1] }), false);
  });

  test('unknown shape is an error', () => {
    assertError({ loc: { $geoWithin: { $circle: [] } } }, 2, /unknown geo specifier/);
  });
});

describe('matcher: parse errors', () => {
  test('unknown top-level operator', () => {
    assertError(
      { $foo: 1 },
      2,
      /^unknown top level operator: \$foo\. If you have a field name that starts with a '\$' symbol/,
    );
    assertError({ $not: { a: 1 } }, 2, /unknown top level operator: \$not/);
  });

  test('unknown field operator', () => {
    assertError({ a: { $bar: 1 } }, 2, /^unknown operator: \$bar$/);
    assertError({ a: { $gt: 1, b: 2 } }, 2, /unknown operator: b/);
    assertError({ a: { $and: [] } }, 2, /unknown operator: \$and/);
  });

  test('$in and $nin need arrays without $ operators', () => {
    assertError({ a: { $in: 1 } }, 2, /\$in needs an array/);
    assertError({ a: { $nin: 'x' } }, 2, /\$nin needs an array/);
    assertError({ a: { $in: [{ $gt: 1 }] } }, 2, /cannot nest \$ under \$in/);
  });

  test('$size argument validation', () => {
    assertError({ a: { $size: 'x' } }, 2, /\$size needs a number/);
    assertError({ a: { $size: 1.5 } }, 2);
    assertError({ a: { $size: -1 } }, 2);
  });

  test('$and/$or/$nor need non-empty arrays of objects', () => {
    assertError({ $and: {} }, 2);
    assertError({ $or: [] }, 2, /nonempty array/);
    assertError({ $nor: [1] }, 2, /full objects/);
  });

  test('$not needs a regex or a non-empty document', () => {
    assertError({ a: { $not: 5 } }, 2, /\$not needs a regex or a document/);
    assertError({ a: { $not: {} } }, 2, /\$not cannot be empty/);
  });

  test('$all and $elemMatch argument errors', () => {
    assertError({ a: { $all: 1 } }, 2, /\$all needs an array/);
    assertError({ a: { $all: [{ $elemMatch: { b: 1 } }, 1] } }, 2, /has to be consistent/);
    assertError({ a: { $all: [{ $gt: 1 }] } }, 2, /no \$ expressions in \$all/);
    assertError({ a: { $elemMatch: 1 } }, 2, /\$elemMatch needs an Object/);
  });

  test('errors inside nested clauses surface at compile time', () => {
    assertError({ $or: [{ a: 1 }, { b: { $foo: 1 } }] }, 2);
    assertError({ a: { $elemMatch: { b: { $regex: '[' } } } }, 51091);
  });

  test('$elemMatch with a DBRef-shaped document ({$ref, $id}) matches those fields, not operators', () => {
    const doc = {
      links: [
        { $ref: 'a', $id: 1 },
        { $ref: 'b', $id: 2 },
      ],
    };
    assert.equal(matches({ links: { $elemMatch: { $ref: 'b', $id: 2 } } }, doc), true);
    assert.equal(matches({ links: { $elemMatch: { $ref: 'a', $id: 2 } } }, doc), false);
  });

  test('a stored DBRef is read as its document: paths reach $ref, $id and $db, and $elemMatch matches them', () => {
    const id = new ObjectId('65a000000000000000000001');
    const doc = { link: new DBRef('a', id, 'other'), links: [new DBRef('b', id)] };
    assert.equal(matches({ 'link.$ref': 'a' }, doc), true);
    assert.equal(matches({ 'link.$db': 'other' }, doc), true);
    assert.equal(matches({ 'links.$id': id }, doc), true);
    assert.equal(matches({ links: { $elemMatch: { $ref: 'b', $id: id } } }, doc), true);
    assert.equal(matches({ links: { $elemMatch: { $ref: 'a', $id: id } } }, doc), false);
  });

  test('$expr under $elemMatch is refused (2): it can only be applied to the top-level document', () => {
    assertError({ a: { $elemMatch: { $expr: { $eq: ['$foo', '$bar'] } } } }, 2, /top-level document/);
    assertError({ a: { $elemMatch: { $or: [{ $expr: true }, { b: 1 }] } } }, 2);
    // At the top level and inside $or it is fine, and the filter after a refusal still compiles.
    assert.equal(matches({ $or: [{ $expr: { $eq: ['$foo', '$bar'] } }, { b: 1 }] }, { foo: 1, bar: 1 }), true);
  });

  test('$expr evaluates aggregation expressions against the document', () => {
    const pred = compileFilter({ $expr: { $gt: ['$spent', '$budget'] } });
    assert.equal(pred({ spent: 10, budget: 5 }), true);
    assert.equal(pred({ spent: 1, budget: 5 }), false);
  });

  test('$where, $text, $near are rejected with QueryFeatureNotAllowed', () => {
    assertError({ $where: 'this.a == 1' }, 224, /\$where/);
    assertError({ $text: { $search: 'x' } }, 224, /\$text/);
    assertError({ loc: { $near: [0, 0] } }, 224, /\$near/);
    assertError({ a: { $where: 'x' } }, 2, /\$where cannot be applied to a field/);
  });
});

describe('matcher: compiled predicate reuse', () => {
  test('one compiled filter gives consistent answers across many documents', () => {
    const pred = compileFilter({ age: { $gte: 30, $lt: 40 }, status: 'active' });
    let count = 0;
    for (let i = 0; i < 1000; i++) {
      if (pred({ age: i % 100, status: i % 2 ? 'active' : 'idle' })) count++;
    }
    assert.equal(count, 50);
  });

  test('a compiled regex predicate is not stateful across calls', () => {
    const pred = compileFilter({ s: /a/g });
    assert.equal(pred({ s: 'a' }), true);
    assert.equal(pred({ s: 'a' }), true);
  });
});

describe('matcher: $sampleRate', () => {
  const docs = Array.from({ length: 4000 }, (_, i) => ({ _id: i }));

  test('$sampleRate: 0 selects no document and 1 selects every document', () => {
    assert.deepEqual(selected({ $sampleRate: 0 }, docs), []);
    assert.equal(selected({ $sampleRate: 1 }, docs).length, docs.length);
    assert.equal(selected({ $sampleRate: new Int32(1) }, docs).length, docs.length);
  });

  test('$sampleRate: 0.25 keeps each document with that chance, independently', () => {
    // Binomial(4000, 0.25): mean 1000, sd ~27; 850..1150 fails about once in 10^7 runs.
    const n = selected({ $sampleRate: 0.25 }, docs).length;
    assert.ok(n > 850 && n < 1150, `selected ${n} of 4000`);
    // With other clauses it is one more condition on the document.
    assert.deepEqual(selected({ _id: { $lt: 10 }, $sampleRate: 0 }, docs), []);
  });

  test('$sampleRate: a non-number or a rate outside [0, 1] (NaN included) is BadValue', () => {
    assertError({ $sampleRate: '0.5' }, 2, /must be a numeric type/);
    assertError({ $sampleRate: 1.5 }, 2, /must be in \[0, 1\]/);
    assertError({ $sampleRate: -0.1 }, 2, /must be in \[0, 1\]/);
    assertError({ $sampleRate: NaN }, 2, /must be in \[0, 1\]/);
  });
});
