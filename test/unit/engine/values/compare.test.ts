import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Binary, BSONRegExp, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp } from 'bson';
import { compareStrings, compareValues, valuesEqual } from '../../../../src/engine/values/compare';
import { addNumbers, compareNumbers, multiplyNumbers } from '../../../../src/engine/values/numbers';
import { bsonTypeOf, canonicalRank } from '../../../../src/engine/values/types';
import { cloneDocument, cloneForStorage } from '../../../../src/engine/values/clone';

describe('BSON type order', () => {
  const ordered: Array<[string, unknown]> = [
    ['MinKey', new MinKey()],
    ['null', null],
    ['number', 5],
    ['string', 'a'],
    ['object', { a: 1 }],
    ['array', [1]],
    ['binData', new Binary(Buffer.from('x'))],
    ['ObjectId', new ObjectId('000000000000000000000001')],
    ['bool', false],
    ['date', new Date(0)],
    ['timestamp', new Timestamp({ t: 1, i: 1 })],
    ['regex', new BSONRegExp('a', 'i')],
    ['MaxKey', new MaxKey()],
  ];
  for (let i = 0; i + 1 < ordered.length; i++) {
    const [an, a] = ordered[i];
    const [bn, b] = ordered[i + 1];
    test(`${an} sorts before ${bn}`, () => {
      assert.equal(compareValues(a, b), -1);
      assert.equal(compareValues(b, a), 1);
    });
  }

  test('false < true and bools of equal value compare equal', () => {
    assert.equal(compareValues(false, true), -1);
    assert.equal(compareValues(true, true), 0);
  });

  test('a JS RegExp and a BSONRegExp are the same BSON type', () => {
    assert.equal(bsonTypeOf(/a/i), 'regex');
    assert.equal(compareValues(/a/i, new BSONRegExp('a', 'i')), 0);
  });
});

describe('numbers compare by value across int, long, double and decimal', () => {
  test('1, NumberInt(1), NumberLong(1), Double(1) and Decimal128("1") are equal', () => {
    const ones = [
      1,
      new Int32(1),
      Long.fromNumber(1),
      new Double(1),
      Decimal128.fromString('1'),
      Decimal128.fromString('1.000'),
    ];
    for (const a of ones) for (const b of ones) assert.ok(valuesEqual(a, b), `${String(a)} == ${String(b)}`);
  });

  test('a Long beyond 2^53 compares exactly with its neighbours', () => {
    const big = Long.fromString('9007199254740993'); // 2^53 + 1, not representable as a double
    assert.equal(compareNumbers(big, 9007199254740992), 1);
    assert.equal(compareNumbers(Long.fromString('9007199254740992'), 9007199254740992), 0);
    assert.equal(compareNumbers(big, Long.fromString('9007199254740994')), -1);
  });

  test('Decimal128 compares exactly against doubles', () => {
    assert.equal(compareNumbers(Decimal128.fromString('0.1'), 0.1), -1, 'the double 0.1 is slightly above 1/10');
    assert.equal(compareNumbers(Decimal128.fromString('2.5'), 2.5), 0);
    assert.equal(compareNumbers(Decimal128.fromString('-3'), new Int32(-2)), -1);
    assert.equal(compareNumbers(Decimal128.fromString('1E+3'), 1000), 0);
  });

  test('NaN sorts before every other number and equals NaN', () => {
    assert.equal(compareNumbers(NaN, -Infinity), -1);
    assert.equal(compareNumbers(NaN, NaN), 0);
    assert.equal(compareNumbers(Decimal128.fromString('NaN'), NaN), 0);
    assert.equal(compareNumbers(-Infinity, Long.MIN_VALUE), -1);
  });

  test('a number sorts before any string regardless of value', () => {
    assert.equal(compareValues(1e300, ''), -1);
    assert.equal(canonicalRank(new Int32(3)), canonicalRank(3.5));
  });
});

describe('strings, objects, arrays', () => {
  test('strings compare by UTF-8 bytes: a surrogate pair sorts after U+FFFD', () => {
    assert.equal(compareStrings('\u{1F600}', '\uFFFD'), 1);
    assert.equal(compareStrings('abc', 'abd'), -1);
    assert.equal(compareStrings('ab', 'abc'), -1);
  });

  test('documents compare field by field: type, then name, then value', () => {
    assert.equal(compareValues({ a: 1 }, { a: 2 }), -1);
    assert.equal(compareValues({ a: 1 }, { b: 0 }), -1);
    assert.equal(compareValues({ a: 'x' }, { a: 1 }), 1, 'string value type ranks above number');
    assert.equal(compareValues({ a: 1 }, { a: 1, b: 1 }), -1);
    assert.equal(compareValues({ a: 1, b: 2 }, { b: 2, a: 1 }), -1, 'field order matters');
  });

  test('arrays compare element by element', () => {
    assert.equal(compareValues([1, 2], [1, 3]), -1);
    assert.equal(compareValues([1, 2], [1]), 1);
    assert.equal(compareValues([], [0]), -1);
  });

  test('ObjectIds compare by bytes, dates by milliseconds (before 1970 too)', () => {
    assert.equal(compareValues(new ObjectId('00000000000000000000000a'), new ObjectId('0000000000000000000000ff')), -1);
    assert.equal(compareValues(new Date(-1000), new Date(0)), -1);
  });

  test('binData compares length first, then subtype, then bytes', () => {
    assert.equal(compareValues(new Binary(Buffer.from([9]), 0), new Binary(Buffer.from([1, 1]), 0)), -1);
    assert.equal(compareValues(new Binary(Buffer.from([9]), 0), new Binary(Buffer.from([1]), 4)), -1);
  });

  test('timestamps compare by time then increment', () => {
    assert.equal(compareValues(new Timestamp({ t: 1, i: 5 }), new Timestamp({ t: 2, i: 0 })), -1);
    assert.equal(compareValues(new Timestamp({ t: 2, i: 1 }), new Timestamp({ t: 2, i: 0 })), 1);
  });
});

describe('arithmetic keeps MongoDB type promotion', () => {
  test('int + int stays Int32, and overflows into Long', () => {
    const r = addNumbers(new Int32(2), new Int32(3));
    assert.ok(r instanceof Int32);
    assert.equal(r.value, 5);
    const o = addNumbers(new Int32(2147483647), new Int32(1));
    assert.ok(o instanceof Long);
    assert.equal(o.toString(), '2147483648');
  });

  test('long + double is a double; long * long stays Long', () => {
    assert.equal(addNumbers(Long.fromNumber(2), 0.5), 2.5);
    const m = multiplyNumbers(Long.fromNumber(3), Long.fromNumber(4));
    assert.ok(m instanceof Long);
    assert.equal(m.toNumber(), 12);
  });

  test('decimal arithmetic is exact', () => {
    const r = addNumbers(Decimal128.fromString('0.1'), Decimal128.fromString('0.2'));
    assert.ok(r instanceof Decimal128);
    assert.equal(compareNumbers(r, Decimal128.fromString('0.3')), 0);
  });
});

describe('clones', () => {
  test('a clone shares no mutable structure and turns Double into a number, undefined into null', () => {
    const src = { a: { b: [1, { c: new Date(5) }] }, d: new Double(2), u: undefined };
    const copy = cloneDocument(src);
    (src.a.b[1] as { c: Date }).c.setTime(99);
    (src.a.b as unknown[]).push(3);
    assert.deepEqual(copy, { a: { b: [1, { c: new Date(5) }] }, d: 2, u: null });
  });

  test('cloneForStorage bounds the BSON size from above', () => {
    const { sizeBound } = cloneForStorage({ s: 'x'.repeat(1000), n: 1 });
    assert.ok(sizeBound >= 1000 + 8);
    assert.ok(sizeBound < 4000);
  });
});
