import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Decimal128, Int32, Long, ObjectId, Timestamp } from 'bson';
import { type EngineError } from '../../../../src/engine/errors';
import { compareValues } from '../../../../src/engine/values/compare';
import { addToDate, compileExpression, valueKey, type Vars } from '../../../../src/engine/query/expressions';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';
import { isInt32, isLong } from '../../helpers/bson-assert';

function ev(expr: unknown, doc: Document = {}, vars?: Vars): unknown {
  return compileExpression(expr)(doc, vars);
}

function isDecimal(v: unknown, s: string): void {
  assert.ok(v instanceof Decimal128, `expected Decimal128, got ${String(v)}`);
  assert.equal(v.toString(), s);
}

const dec = (s: string): Decimal128 => Decimal128.fromString(s);

describe('field paths and variables', () => {
  test('a top-level field path reads the field', () => {
    assert.equal(ev('$a', { a: 5 }), 5);
  });

  test('a dotted path reads embedded documents', () => {
    assert.equal(ev('$a.b.c', { a: { b: { c: 'x' } } }), 'x');
  });

  test('a missing field evaluates to undefined (missing), not null', () => {
    assert.equal(ev('$nope', { a: 1 }), undefined);
    assert.equal(ev('$a.b', { a: 1 }), undefined);
  });

  test('a path through an array of documents gives an array of the values', () => {
    assert.deepEqual(ev('$a.b', { a: [{ b: 1 }, { b: 2 }, { c: 3 }] }), [1, 2]);
  });

  test('scalars and nested arrays inside the array are skipped', () => {
    assert.deepEqual(ev('$a.b', { a: [{ b: 1 }, 7, [{ b: 9 }], { b: [4, 5] }] }), [1, [4, 5]]);
  });

  test('paths through two levels of arrays nest the results', () => {
    assert.deepEqual(ev('$a.b.c', { a: [{ b: [{ c: 1 }, { c: 2 }] }, { b: { c: 3 } }] }), [[1, 2], 3]);
  });

  test('the path never reads Object.prototype members', () => {
    assert.equal(ev('$constructor', {}), undefined);
    assert.equal(ev('$a.toString', { a: {} }), undefined);
  });

  test('$$ROOT and $$CURRENT are the document', () => {
    const doc = { a: 1 };
    assert.equal(ev('$$ROOT', doc), doc);
    assert.equal(ev('$$CURRENT.a', doc), 1);
  });

  test('$$NOW reads the NOW variable when given', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    assert.equal(ev('$$NOW', {}, { NOW: now }), now);
  });

  test('$$REMOVE evaluates to missing', () => {
    assert.equal(ev('$$REMOVE', { a: 1 }), undefined);
  });

  test('user variables come from vars and can be walked', () => {
    assert.equal(ev('$$x.y', {}, { x: { y: 3 } }), 3);
  });

  test('variable names as mongod validates them: a defined name starts lowercase (16867), then letters, digits or _ (16868)', () => {
    for (const vars of [{ ROOT: 1 }, { REMOVE: 1 }, { FOO: 1 }, { _underbar: 1 }])
      expectError(() => ev({ $let: { vars, in: 1 } }), 16867, /starts with an invalid character/);
    for (const vars of [{ 'a.b': 1 }, { 'a b': 1 }]) expectError(() => ev({ $let: { vars, in: 1 } }), 16868);
    expectError(() => ev({ $let: { vars: { '': 1 }, in: 1 } }), 16866);
    expectError(() => ev({ $map: { input: [1], as: 'ROOT', in: '$$ROOT' } }), 16867);
    expectError(() => ev({ $filter: { input: [1], as: '$x', cond: true } }), 16867);
    // A reference may name an uppercase (system-like) variable; undefined, it is 17276.
    expectError(() => ev('$$Foo'), 17276, /Use of undefined variable: Foo/);
  });

  test('an undefined variable is error 17276', () => {
    expectError(() => ev('$$nope'), 17276, /Use of undefined variable: nope/);
  });

  test("'$' alone is not a field path (16872)", () => {
    expectError(() => ev('$'), 16872);
  });

  test('an empty path component is error 15998', () => {
    expectError(() => ev('$a..b'), 15998);
  });
});

describe('literals, objects and arrays', () => {
  test('non-$ strings, numbers, booleans, null and dates are literals', () => {
    const d = new Date(5);
    assert.equal(ev('abc'), 'abc');
    assert.equal(ev(3), 3);
    assert.equal(ev(true), true);
    assert.equal(ev(null), null);
    assert.equal(ev(d), d);
  });

  test('$literal returns its argument unevaluated', () => {
    assert.equal(ev({ $literal: '$a' }, { a: 1 }), '$a');
    assert.deepEqual(ev({ $literal: { $add: [1, 2] } }), { $add: [1, 2] });
  });

  test("$const is mongod's other name for $literal", () => {
    assert.equal(ev({ $const: '$a' }, { a: 1 }), '$a');
    assert.deepEqual(ev({ $const: { $add: [1, 2] } }), { $add: [1, 2] });
  });

  test('object expressions evaluate each field and drop missing ones', () => {
    assert.deepEqual(ev({ x: '$a', y: { z: '$b' }, m: '$nope' }, { a: 1, b: 2 }), { x: 1, y: { z: 2 } });
  });

  test('array expressions evaluate elements and turn missing into null', () => {
    assert.deepEqual(ev(['$a', '$nope', 3], { a: 1 }), [1, null, 3]);
  });

  test('an unknown operator is InvalidPipelineOperator (168)', () => {
    expectError(() => ev({ $foo: 1 }), 168, /Unrecognized expression '\$foo'/);
    try {
      ev({ $foo: 1 });
    } catch (err) {
      assert.equal((err as EngineError).codeName, 'InvalidPipelineOperator');
    }
  });

  test('an operator object with extra fields is error 15983', () => {
    expectError(() => ev({ $add: [1], b: 1 }), 15983);
  });

  test("a field name containing '.' in an object expression is error 16412", () => {
    expectError(() => ev({ 'a.b': 1 }), 16412);
  });
});

describe('arithmetic type promotion', () => {
  test('$add of Int32s stays Int32', () => {
    isInt32(ev({ $add: [new Int32(1), new Int32(2)] }), 3);
  });

  test('$add of Int32s that overflows becomes Long', () => {
    isLong(ev({ $add: [new Int32(2147483647), new Int32(1)] }), 2147483648n);
  });

  test('$add of Int32 and Long is Long', () => {
    isLong(ev({ $add: [new Int32(1), Long.fromNumber(2)] }), 3n);
  });

  test('$add of Longs that overflows becomes a double', () => {
    const v = ev({ $add: [Long.MAX_VALUE, Long.fromNumber(1)] });
    assert.equal(typeof v, 'number');
    assert.equal(v, 2 ** 63);
  });

  test('$add with a double is a double', () => {
    assert.equal(ev({ $add: [new Int32(1), 0.5] }), 1.5);
  });

  test('$add with a decimal is a decimal', () => {
    const v = ev({ $add: [dec('0.1'), dec('0.2'), new Int32(1)] });
    assert.ok(v instanceof Decimal128);
    assert.equal(compareValues(v, dec('1.3')), 0);
  });

  test('$add of a date and milliseconds is a date', () => {
    const d = ev({ $add: [new Date('2024-01-01T00:00:00Z'), 60_000] });
    assert.ok(d instanceof Date);
    assert.equal(d.toISOString(), '2024-01-01T00:01:00.000Z');
  });

  test('$add with a null or missing operand is null', () => {
    assert.equal(ev({ $add: [1, null] }), null);
    assert.equal(ev({ $add: [1, '$nope'] }), null);
  });

  test('$add with two dates is error 16612', () => {
    expectError(() => ev({ $add: [new Date(0), new Date(1)] }), 16612);
  });

  test('$add of a string is error 16554', () => {
    expectError(() => ev({ $add: [1, 'x'] }), 16554, /not string/);
  });

  test('$add with no operands is Int32 0', () => {
    isInt32(ev({ $add: [] }), 0);
  });

  test('$subtract keeps the widest integer type', () => {
    isInt32(ev({ $subtract: [new Int32(5), new Int32(7)] }), -2);
    isLong(ev({ $subtract: [new Int32(-2147483648), new Int32(1)] }), -2147483649n);
  });

  test('$subtract of two dates is Long milliseconds', () => {
    isLong(ev({ $subtract: [new Date(5000), new Date(2000)] }), 3000n);
  });

  test('$subtract of a number from a date is a date', () => {
    const d = ev({ $subtract: [new Date(5000), 1000] });
    assert.ok(d instanceof Date);
    assert.equal(d.getTime(), 4000);
  });

  test('$subtract of a date from a number is TypeMismatch', () => {
    expectError(() => ev({ $subtract: [5, new Date(0)] }), 14);
  });

  test('$subtract takes exactly 2 arguments (16020)', () => {
    expectError(() => ev({ $subtract: [1] }), 16020, /takes exactly 2 arguments\. 1 were passed in/);
  });

  test('$subtract of decimals is exact', () => {
    isDecimal(ev({ $subtract: [dec('1.1'), dec('0.2')] }), '0.9');
  });

  test('$multiply promotes like $add', () => {
    isInt32(ev({ $multiply: [new Int32(6), new Int32(7)] }), 42);
    isLong(ev({ $multiply: [new Int32(65536), new Int32(65536)] }), 4294967296n);
    assert.equal(ev({ $multiply: [new Int32(2), 1.5] }), 3);
  });

  test('$divide always answers a double, even for Int32s', () => {
    const v = ev({ $divide: [new Int32(6), new Int32(3)] });
    assert.equal(typeof v, 'number');
    assert.equal(v, 2);
  });

  test('$divide with a decimal answers a decimal with 34 digits', () => {
    isDecimal(ev({ $divide: [dec('1'), dec('3')] }), '0.3333333333333333333333333333333333');
    isDecimal(ev({ $divide: [dec('10'), new Int32(4)] }), '2.5');
  });

  test('$divide by zero is BadValue', () => {
    expectError(() => ev({ $divide: [1, 0] }), 2, /can't \$divide by zero/);
  });

  test('$mod keeps the integer type and the sign of the dividend', () => {
    isInt32(ev({ $mod: [new Int32(-7), new Int32(3)] }), -1);
    isLong(ev({ $mod: [Long.fromNumber(7), new Int32(4)] }), 3n);
    assert.equal(ev({ $mod: [7.5, 2] }), 1.5);
    isDecimal(ev({ $mod: [dec('7.5'), dec('2')] }), '1.5');
  });

  test('$mod by zero is error 16610', () => {
    expectError(() => ev({ $mod: [1, 0] }), 16610);
  });

  test('$abs keeps the type; abs(INT_MIN) widens to Long', () => {
    isInt32(ev({ $abs: new Int32(-3) }), 3);
    isLong(ev({ $abs: new Int32(-2147483648) }), 2147483648n);
    assert.equal(ev({ $abs: -2.5 }), 2.5);
    isDecimal(ev({ $abs: dec('-1.5') }), '1.5');
    assert.equal(ev({ $abs: null }), null);
  });

  test('$abs of a string is error 28765', () => {
    expectError(() => ev({ $abs: 'x' }), 28765);
  });

  test('$floor and $ceil leave integers alone and round doubles and decimals', () => {
    isInt32(ev({ $floor: new Int32(3) }), 3);
    assert.equal(ev({ $floor: -1.5 }), -2);
    assert.equal(ev({ $ceil: -1.5 }), -1);
    isDecimal(ev({ $floor: dec('-1.5') }), '-2');
    isDecimal(ev({ $ceil: dec('1.2') }), '2');
  });

  test('$round rounds half to even', () => {
    assert.equal(ev({ $round: [19.25, 1] }), 19.2);
    assert.equal(ev({ $round: 2.5 }), 2);
    assert.equal(ev({ $round: 3.5 }), 4);
    assert.equal(ev({ $round: [1.298, 1] }), 1.3);
    assert.equal(ev({ $round: [23.298, -1] }), 20);
  });

  test('$round keeps decimal scale and integer types', () => {
    isDecimal(ev({ $round: [dec('1.298'), 1] }), '1.3');
    isDecimal(ev({ $round: [dec('23.298'), -1] }), '2E+1');
    isDecimal(ev({ $round: [dec('-1.6')] }), '-2');
    isInt32(ev({ $round: [new Int32(1250), -2] }), 1200);
    isLong(ev({ $round: [new Int32(2147483647), -1] }), 2147483650n);
  });

  test('$trunc truncates toward zero', () => {
    assert.equal(ev({ $trunc: [1.298, 1] }), 1.2);
    assert.equal(ev({ $trunc: -1.2 }), -1);
    isDecimal(ev({ $trunc: [dec('1.298'), 0] }), '1');
  });

  test('$round rejects a place outside [-20, 100] (51083) and non-integral places (51082)', () => {
    expectError(() => ev({ $round: [1, 101] }), 51083);
    expectError(() => ev({ $round: [1, 1.5] }), 51082);
    expectError(() => ev({ $round: [1, 2, 3] }), 28667);
    expectError(() => ev({ $round: 'x' }), 51081);
  });
});

describe('comparison and boolean operators', () => {
  test('comparisons use BSON order across numeric types', () => {
    assert.equal(ev({ $eq: [new Int32(1), 1.0] }), true);
    assert.equal(ev({ $eq: [Long.fromNumber(2), dec('2.0')] }), true);
    assert.equal(ev({ $gt: ['a', 5] }), true, 'strings sort after numbers');
    assert.equal(ev({ $lt: [null, 0] }), true);
    assert.equal(
      ev({
        $ne: [
          [1, 2],
          [1, 2],
        ],
      }),
      false,
    );
  });

  test('missing is not equal to null and sorts before it', () => {
    assert.equal(ev({ $eq: ['$nope', null] }), false);
    assert.equal(ev({ $lt: ['$nope', null] }), true);
  });

  test('$gte and $lte include equality', () => {
    assert.equal(ev({ $gte: [2, 2] }), true);
    assert.equal(ev({ $lte: [3, 2] }), false);
  });

  test('$cmp answers Int32 -1, 0 or 1', () => {
    isInt32(ev({ $cmp: [1, 2] }), -1);
    isInt32(ev({ $cmp: ['b', 'b'] }), 0);
    isInt32(ev({ $cmp: [new Date(2), new Date(1)] }), 1);
  });

  test('comparisons take exactly 2 arguments', () => {
    expectError(() => ev({ $eq: [1] }), 16020);
  });

  test('$and / $or / $not use mongod truthiness', () => {
    assert.equal(ev({ $and: [1, 'x', [], {}] }), true);
    assert.equal(ev({ $and: [1, 0] }), false);
    assert.equal(ev({ $and: [] }), true);
    assert.equal(ev({ $or: [null, '$nope', false, new Int32(0), dec('0')] }), false);
    assert.equal(ev({ $or: [] }), false);
    assert.equal(ev({ $not: [0] }), true);
    assert.equal(ev({ $not: '' }), false, 'the empty string is true');
  });

  test('$and short-circuits: later operands are not evaluated', () => {
    assert.equal(ev({ $and: [false, { $divide: [1, 0] }] }), false);
    assert.equal(ev({ $or: [true, { $divide: [1, 0] }] }), true);
  });

  test('$cond works in array and object forms and only evaluates the chosen branch', () => {
    assert.equal(ev({ $cond: [{ $gt: ['$a', 1] }, 'big', 'small'] }, { a: 2 }), 'big');
    assert.equal(ev({ $cond: { if: '$nope', then: 1, else: 2 } }), 2);
    assert.equal(ev({ $cond: [true, 1, { $divide: [1, 0] }] }), 1);
  });

  test('$cond object form reports missing and unknown parameters', () => {
    expectError(() => ev({ $cond: { if: true, then: 1 } }), 17082);
    expectError(() => ev({ $cond: { if: true, then: 1, else: 2, x: 1 } }), 17083);
    expectError(() => ev({ $cond: [true, 1] }), 16020);
  });

  test('$ifNull returns the first non-null operand, else the last', () => {
    assert.equal(ev({ $ifNull: ['$a', 'dflt'] }, { a: null }), 'dflt');
    assert.equal(ev({ $ifNull: ['$nope', '$b', 'dflt'] }, { b: 0 }), 0);
    assert.equal(ev({ $ifNull: ['$a', 'dflt'] }, { a: false }), false);
  });
});

describe('string operators', () => {
  test('$concat joins strings; null or missing makes null', () => {
    assert.equal(ev({ $concat: ['a', '$b', 'c'] }, { b: '-' }), 'a-c');
    assert.equal(ev({ $concat: ['a', '$nope'] }), null);
    expectError(() => ev({ $concat: ['a', 1] }), 16702, /not double/);
  });

  test('$toLower / $toUpper change ASCII letters and coerce numbers; null gives ""', () => {
    assert.equal(ev({ $toLower: 'ÀBC' }), 'Àbc');
    assert.equal(ev({ $toUpper: 'abc' }), 'ABC');
    assert.equal(ev({ $toUpper: null }), '');
    assert.equal(ev({ $toLower: new Int32(12) }), '12');
    expectError(() => ev({ $toLower: { a: 1 } }), 16007);
  });

  test('$substr / $substrBytes count UTF-8 bytes', () => {
    assert.equal(ev({ $substr: ['hello', 1, 3] }), 'ell');
    assert.equal(ev({ $substrBytes: ['hello', 2, -1] }), 'llo');
    assert.equal(ev({ $substrBytes: ['hello', 10, 2] }), '');
    assert.equal(ev({ $substrBytes: ['héllo', 0, 3] }), 'hé');
    expectError(() => ev({ $substrBytes: ['héllo', 2, 1] }), 28656);
  });

  test('$substrCP counts code points', () => {
    assert.equal(ev({ $substrCP: ['héllo', 1, 3] }), 'éll');
    assert.equal(ev({ $substrCP: ['a😀b', 1, 1] }), '😀');
    expectError(() => ev({ $substrCP: ['abc', -1, 1] }), 34455);
    expectError(() => ev({ $substrCP: ['abc', 'x', 1] }), 34450);
  });

  test('$strLenCP counts code points and answers Int32', () => {
    isInt32(ev({ $strLenCP: 'a😀é' }), 3);
    expectError(() => ev({ $strLenCP: '$nope' }), 34471, /found: missing/);
  });

  test('$toString converts scalars with mongod spellings', () => {
    assert.equal(ev({ $toString: 2.5 }), '2.5');
    assert.equal(ev({ $toString: 1 }), '1');
    assert.equal(ev({ $toString: Long.fromString('9007199254740993') }), '9007199254740993');
    assert.equal(ev({ $toString: true }), 'true');
    assert.equal(ev({ $toString: new Date(Date.UTC(2018, 2, 27, 16, 58, 51, 538)) }), '2018-03-27T16:58:51.538Z');
    assert.equal(ev({ $toString: new ObjectId('5ab9cbfa31c2ab715d42129e') }), '5ab9cbfa31c2ab715d42129e');
    assert.equal(ev({ $toString: '$nope' }), null);
    expectError(() => ev({ $toString: [[1]] }), 241);
  });
});

describe('array operators', () => {
  test('$size answers Int32 and requires an array', () => {
    isInt32(ev({ $size: '$a' }, { a: [1, 2, 3] }), 3);
    expectError(() => ev({ $size: '$nope' }), 17124, /Type of argument is: missing/);
  });

  test('$size of a literal array needs the array wrapped once more', () => {
    isInt32(ev({ $size: [[1, 2]] }), 2);
    expectError(() => ev({ $size: [1, 2] }), 16020);
  });

  test('$arrayElemAt indexes from either end; out of range is missing', () => {
    assert.equal(ev({ $arrayElemAt: ['$a', 0] }, { a: [1, 2, 3] }), 1);
    assert.equal(ev({ $arrayElemAt: ['$a', -1] }, { a: [1, 2, 3] }), 3);
    assert.equal(ev({ $arrayElemAt: ['$a', 5] }, { a: [1, 2, 3] }), undefined);
    assert.equal(ev({ $arrayElemAt: ['$nope', 0] }), null);
    expectError(() => ev({ $arrayElemAt: ['x', 0] }), 28689);
    expectError(() => ev({ $arrayElemAt: [[1], 0.5] }), 28691);
  });

  test('$in tests membership with BSON equality', () => {
    assert.equal(ev({ $in: [new Int32(2), [1, 2.0, 3]] }), true);
    assert.equal(ev({ $in: ['x', []] }), false);
    expectError(() => ev({ $in: [1, '$nope'] }), 40081);
  });

  test('$map, $filter and $let bind variables', () => {
    assert.deepEqual(ev({ $map: { input: '$a', as: 'x', in: { $multiply: ['$$x', 2] } } }, { a: [1, 2] }), [2, 4]);
    assert.deepEqual(ev({ $filter: { input: '$a', cond: { $gt: ['$$this', 1] } } }, { a: [1, 2, 3] }), [2, 3]);
    assert.equal(ev({ $let: { vars: { t: { $add: ['$a', 1] } }, in: { $multiply: ['$$t', 10] } } }, { a: 1 }), 20);
  });

  test('$concatArrays joins arrays; null gives null', () => {
    assert.deepEqual(ev({ $concatArrays: [[1], ['$a']] }, { a: 2 }), [1, 2]);
    assert.equal(ev({ $concatArrays: [[1], null] }), null);
  });
});

describe('$sum / $avg / $min / $max as expressions', () => {
  test('one array operand is reduced over its elements', () => {
    isInt32(ev({ $sum: '$a' }, { a: [new Int32(1), new Int32(2), 'x', null] }), 3);
    assert.equal(ev({ $avg: '$a' }, { a: [1, 2, 'x'] }), 1.5);
    assert.equal(ev({ $max: '$a' }, { a: [1, 5, 3] }), 5);
    assert.equal(ev({ $min: '$a' }, { a: [4, null, 2] }), 2);
  });

  test('several operands are reduced as values', () => {
    assert.equal(ev({ $sum: ['$a', '$b'] }, { a: 1, b: 2 }), 3);
    assert.equal(ev({ $max: ['$a', '$b'] }, { a: 1, b: 'z' }), 'z');
  });

  test('with nothing numeric, $sum is Int32 0 and $avg / $min are null', () => {
    isInt32(ev({ $sum: '$nope' }), 0);
    assert.equal(ev({ $avg: [] }), null);
    assert.equal(ev({ $min: '$nope' }), null);
  });

  test('$sum of Int32s overflowing int is Long', () => {
    isLong(ev({ $sum: [[new Int32(2147483647), new Int32(1)]] }), 2147483648n);
  });

  test('$avg over decimals is a decimal', () => {
    isDecimal(ev({ $avg: [[dec('1'), dec('2')]] }), '1.5');
  });
});

describe('type operators', () => {
  test('$type names BSON types and "missing"', () => {
    assert.equal(ev({ $type: '$a' }, { a: 1 }), 'double');
    assert.equal(ev({ $type: '$a' }, { a: new Int32(1) }), 'int');
    assert.equal(ev({ $type: '$a' }, { a: Long.fromNumber(1) }), 'long');
    assert.equal(ev({ $type: '$a' }, { a: [1] }), 'array');
    assert.equal(ev({ $type: '$a' }, { a: null }), 'null');
    assert.equal(ev({ $type: '$nope' }), 'missing');
  });

  test('$toDate converts numbers, strings, ObjectIds and Timestamps', () => {
    assert.equal((ev({ $toDate: Long.fromNumber(1000) }) as Date).getTime(), 1000);
    assert.equal((ev({ $toDate: 1500.7 }) as Date).getTime(), 1500);
    assert.equal((ev({ $toDate: '2024-02-03T04:05:06.789Z' }) as Date).toISOString(), '2024-02-03T04:05:06.789Z');
    assert.equal((ev({ $toDate: '2024-02-03T04:05:06+02:00' }) as Date).toISOString(), '2024-02-03T02:05:06.000Z');
    assert.equal((ev({ $toDate: new ObjectId('5ab9cbfa31c2ab715d42129e') }) as Date).getTime(), 0x5ab9cbfa * 1000);
    assert.equal((ev({ $toDate: new Timestamp({ t: 10, i: 1 }) }) as Date).getTime(), 10_000);
    assert.equal(ev({ $toDate: null }), null);
  });

  test('$toDate rejects Int32 and unparsable strings with ConversionFailure', () => {
    expectError(() => ev({ $toDate: new Int32(5) }), 241);
    expectError(() => ev({ $toDate: 'not a date' }), 241);
    expectError(() => ev({ $toDate: '2024-02-30' }), 241);
  });
});

describe('date operators', () => {
  const d = new Date('2024-03-05T07:08:09.010Z');

  test('date parts in UTC are Int32s', () => {
    isInt32(ev({ $year: d }), 2024);
    isInt32(ev({ $month: d }), 3);
    isInt32(ev({ $dayOfMonth: d }), 5);
    isInt32(ev({ $hour: d }), 7);
    isInt32(ev({ $minute: d }), 8);
    isInt32(ev({ $second: d }), 9);
    isInt32(ev({ $millisecond: d }), 10);
    isInt32(ev({ $dayOfWeek: d }), 3);
    isInt32(ev({ $dayOfYear: d }), 65);
  });

  test('date parts accept [date] and {date, timezone}', () => {
    isInt32(ev({ $hour: ['$d'] }, { d }), 7);
    isInt32(ev({ $hour: { date: '$d', timezone: 'Asia/Kolkata' } }, { d }), 12);
    isInt32(ev({ $hour: { date: '$d', timezone: '-03:30' } }, { d }), 3);
    isInt32(ev({ $dayOfMonth: { date: '$d', timezone: '-08' } }, { d }), 4);
  });

  test('date parts of null or missing are null; of a string, error 16006', () => {
    assert.equal(ev({ $year: '$nope' }), null);
    assert.equal(ev({ $year: null }), null);
    expectError(() => ev({ $year: 'x' }), 16006);
  });

  test('date parts read ObjectIds and Timestamps', () => {
    isInt32(ev({ $year: new ObjectId('5ab9cbfa31c2ab715d42129e') }), 2018);
    isInt32(ev({ $year: new Timestamp({ t: 0, i: 1 }) }), 1970);
  });

  test('an unknown time zone is error 40485', () => {
    expectError(() => ev({ $year: { date: d, timezone: 'Mars/Olympus' } }), 40485);
  });

  test('$dateToString defaults to ISO format in UTC', () => {
    assert.equal(ev({ $dateToString: { date: '$d' } }, { d }), '2024-03-05T07:08:09.010Z');
  });

  test('$dateToString formats every supported directive', () => {
    const s = ev({ $dateToString: { date: d, format: '%Y|%m|%d|%H|%M|%S|%L|%j|%w|%u|%U|%V|%G|%z|%Z|%b|%B|%%' } });
    assert.equal(s, '2024|03|05|07|08|09|010|065|3|2|09|10|2024|+0000|0|Mar|March|%');
  });

  test('$dateToString with a timezone drops the Z and shifts the wall clock', () => {
    assert.equal(ev({ $dateToString: { date: d, timezone: 'America/New_York' } }), '2024-03-05T02:08:09.010');
    assert.equal(ev({ $dateToString: { date: d, format: '%H:%M %z %Z', timezone: '+05:30' } }), '12:38 +0530 330');
  });

  test('$dateToString: ISO week-year differs from the calendar year near New Year', () => {
    assert.equal(ev({ $dateToString: { date: new Date('2021-01-01T00:00:00Z'), format: '%G-W%V-%u' } }), '2020-W53-5');
  });

  test('$dateToString of null uses onNull, else null', () => {
    assert.equal(ev({ $dateToString: { date: '$nope' } }), null);
    assert.equal(ev({ $dateToString: { date: null, onNull: 'none' } }), 'none');
  });

  test('$dateToString rejects bad formats and arguments', () => {
    expectError(() => ev({ $dateToString: { date: d, format: '%Q' } }), 18536);
    expectError(() => ev({ $dateToString: { date: d, format: 'x%' } }), 18535);
    expectError(() => ev({ $dateToString: { format: '%Y' } }), 18628);
    expectError(() => ev({ $dateToString: { date: d, bogus: 1 } }), 18534);
    expectError(() => ev({ $dateToString: { date: d, format: 5 } }), 18533);
  });

  test('$dateAdd adds fixed units as milliseconds', () => {
    const r = ev({ $dateAdd: { startDate: d, unit: 'hour', amount: 2 } }) as Date;
    assert.equal(r.toISOString(), '2024-03-05T09:08:09.010Z');
    const s = ev({ $dateAdd: { startDate: d, unit: 'second', amount: Long.fromNumber(-9) } }) as Date;
    assert.equal(s.toISOString(), '2024-03-05T07:08:00.010Z');
  });

  test('$dateAdd by months clamps to the end of the month', () => {
    const r = ev({ $dateAdd: { startDate: new Date('2024-01-31T10:00:00Z'), unit: 'month', amount: 1 } }) as Date;
    assert.equal(r.toISOString(), '2024-02-29T10:00:00.000Z');
    const y = ev({ $dateAdd: { startDate: new Date('2024-02-29T00:00:00Z'), unit: 'year', amount: 1 } }) as Date;
    assert.equal(y.toISOString(), '2025-02-28T00:00:00.000Z');
    const q = ev({ $dateAdd: { startDate: new Date('2024-11-30T00:00:00Z'), unit: 'quarter', amount: 1 } }) as Date;
    assert.equal(q.toISOString(), '2025-02-28T00:00:00.000Z');
  });

  test('$dateAdd by days in a time zone keeps the wall-clock time across DST', () => {
    // 2024-03-10 is the US spring-forward day: one local day later is 23 hours later.
    const start = new Date('2024-03-09T17:00:00Z'); // 12:00 EST
    const r = ev({ $dateAdd: { startDate: start, unit: 'day', amount: 1, timezone: 'America/New_York' } }) as Date;
    assert.equal(r.toISOString(), '2024-03-10T16:00:00.000Z'); // 12:00 EDT
  });

  test('$dateSubtract goes backwards', () => {
    const r = ev({ $dateSubtract: { startDate: new Date('2024-03-31T00:00:00Z'), unit: 'week', amount: 2 } }) as Date;
    assert.equal(r.toISOString(), '2024-03-17T00:00:00.000Z');
    const m = ev({ $dateSubtract: { startDate: new Date('2024-03-31T00:00:00Z'), unit: 'month', amount: 1 } }) as Date;
    assert.equal(m.toISOString(), '2024-02-29T00:00:00.000Z');
  });

  test('$dateAdd with a null operand is null', () => {
    assert.equal(ev({ $dateAdd: { startDate: '$nope', unit: 'day', amount: 1 } }), null);
    assert.equal(ev({ $dateAdd: { startDate: d, unit: 'day', amount: null } }), null);
  });

  test('$dateAdd validates its arguments', () => {
    expectError(() => ev({ $dateAdd: { startDate: d, unit: 'day' } }), 5166402);
    expectError(() => ev({ $dateAdd: { startDate: d, unit: 'day', amount: 1, x: 1 } }), 5166401);
    expectError(() => ev({ $dateAdd: { startDate: d, unit: 'day', amount: 1.5 } }), 5166405);
    expectError(() => ev({ $dateAdd: { startDate: 'x', unit: 'day', amount: 1 } }), 5166403);
    expectError(() => ev({ $dateAdd: { startDate: d, unit: 'fortnight', amount: 1 } }), 9);
  });

  test('addToDate handles negative months across years', () => {
    assert.equal(new Date(addToDate(Date.UTC(2024, 0, 15), 'month', -2)).toISOString(), '2023-11-15T00:00:00.000Z');
  });
});

describe('valueKey', () => {
  test('numerically equal values of different types share a key', () => {
    const keys = [1, new Int32(1), Long.fromNumber(1), dec('1.0'), dec('1')].map(valueKey);
    assert.equal(new Set(keys).size, 1);
    assert.equal(valueKey(0.5), valueKey(dec('0.5')));
    assert.equal(valueKey(-0), valueKey(0));
  });

  test('different values get different keys', () => {
    const values = [
      1,
      '1',
      true,
      null,
      [1],
      { a: 1 },
      { a: '1' },
      new Date(1),
      dec('0.1'),
      0.1,
      Long.fromString('9007199254740993'),
      2 ** 53,
    ];
    assert.equal(new Set(values.map(valueKey)).size, values.length);
  });

  test('field order matters for documents, as in BSON comparison', () => {
    assert.notEqual(valueKey({ a: 1, b: 2 }), valueKey({ b: 2, a: 1 }));
  });
});
