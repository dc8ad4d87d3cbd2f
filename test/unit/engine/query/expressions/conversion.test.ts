import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Decimal128, ObjectId, type Binary } from 'bson';
import { expectError } from '../../../helpers/expect-error';
import { aggregate, assertDecimal, assertDouble, assertInt, assertLong, dec, ev, int, long } from './helpers';

describe('$convert and its shorthands', () => {
  test('$toInt truncates doubles and decimals, parses base-10 strings, maps booleans', () => {
    assertInt(ev({ $toInt: 2.9 }), 2);
    assertInt(ev({ $toInt: -2.9 }), -2);
    assertInt(ev({ $toInt: dec('7.5') }), 7);
    assertInt(ev({ $toInt: '-42' }), -42);
    assertInt(ev({ $toInt: true }), 1);
    assertInt(ev({ $toInt: long(5) }), 5);
  });

  test('$toLong reads dates as milliseconds; $toDouble and $toDecimal widen', () => {
    assertLong(ev({ $toLong: new Date(1500) }), 1500);
    assertLong(ev({ $toLong: '9007199254740993' }), 9007199254740993n);
    assertDouble(ev({ $toDouble: int(3) }), 3);
    assertDouble(ev({ $toDouble: '1e3' }), 1000);
    assertDecimal(ev({ $toDecimal: 0.1 }), '0.1');
    assertDecimal(ev({ $toDecimal: '12.50' }), '12.50');
  });

  test('$toBool: zero and false are false; strings, dates and documents are true', () => {
    assert.equal(ev({ $toBool: 0 }), false);
    assert.equal(ev({ $toBool: dec('0') }), false);
    assert.equal(ev({ $toBool: '' }), true);
    assert.equal(ev({ $toBool: new Date(0) }), true);
    assert.equal(ev({ $toBool: { $literal: {} } }), true);
  });

  test('$toObjectId, $toString of an ObjectId, $toUUID', () => {
    const hex = '65a1b2c3d4e5f60718293a4b';
    assert.ok((ev({ $toObjectId: hex }) as ObjectId).equals(new ObjectId(hex)));
    assert.equal(ev({ $toString: new ObjectId(hex) }), hex);
    const uuid = ev({ $toUUID: '0e3b9063-8abd-4eb3-9f9f-f4c59fd30a60' }) as Binary;
    assert.equal(uuid.sub_type, 4);
    assert.equal(Buffer.from(uuid.buffer).toString('hex'), '0e3b90638abd4eb39f9ff4c59fd30a60');
  });

  test('null or missing input answers null, or onNull in $convert', () => {
    assert.equal(ev({ $toInt: null }), null);
    assert.equal(ev({ $toDecimal: '$nope' }), null);
    assert.equal(ev({ $convert: { input: '$nope', to: 'int', onNull: -1 } }), -1);
  });

  test('$convert: a nullish input answers onNull even when `to` is nullish; a nullish `to` alone answers null; a bad `to` fails first', () => {
    assert.equal(ev({ $convert: { input: null, to: null, onNull: 'N' } }), 'N');
    assert.equal(ev({ $convert: { input: '$nope', to: '$nope', onNull: 'N' } }), 'N');
    assert.equal(ev({ $convert: { input: 1, to: null, onNull: 'N' } }), null);
    expectError(() => ev({ $convert: { input: null, to: 'nonsense', onNull: 'N' } }), 2);
  });

  test('a conversion failure is 241 ConversionFailure, which onError catches', () => {
    expectError(() => ev({ $toInt: '12x' }), 241, /Failed to parse number '12x'/, 'ConversionFailure');
    expectError(() => ev({ $toInt: 2 ** 31 }), 241, /overflow/);
    expectError(() => ev({ $toInt: NaN }), 241, /NaN/);
    expectError(() => ev({ $toObjectId: 'abc' }), 241, /expected 24 but found 3/);
    expectError(
      () => ev({ $toDate: true }),
      241,
      'Unsupported conversion from bool to date in $convert with no onError value',
    );
    assert.equal(ev({ $convert: { input: 'abc', to: 'int', onError: 'bad' } }), 'bad');
  });

  test("'to' takes a type name, a type number or {type, subtype}; binData needs a format", () => {
    assertLong(ev({ $convert: { input: 3, to: 18 } }), 3);
    const bin = ev({ $convert: { input: 'aGk=', to: { type: 'binData', subtype: 0 }, format: 'base64' } }) as Binary;
    assert.equal(Buffer.from(bin.buffer).toString('utf8'), 'hi');
    assert.equal(ev({ $convert: { input: bin, to: 'string', format: 'hex' } }), '6869');
    expectError(() => ev({ $convert: { input: 'aGk=', to: 'binData' } }), 4341115);
  });

  test('$convert parse and target errors: 9 for the form, 2 for an unknown type', () => {
    expectError(() => ev({ $convert: 1 }), 9);
    expectError(() => ev({ $convert: { input: 1 } }), 9, "Missing 'to' parameter to $convert");
    expectError(() => ev({ $convert: { to: 'int' } }), 9, "Missing 'input' parameter to $convert");
    expectError(() => ev({ $convert: { input: 1, to: 'int', x: 1 } }), 9);
    expectError(() => ev({ $convert: { input: 1, to: 'integer' } }), 2, 'Unknown type name: integer');
    expectError(() => ev({ $convert: { input: 1, to: 99 } }), 2);
  });

  test("$convert to 'missing' is a known type no value converts to: 241, answered by onError", () => {
    expectError(() => ev({ $convert: { input: 1.9, to: 'missing' } }), 241);
    assert.equal(ev({ $convert: { input: 1.9, to: 'missing', onError: 'ERROR' } }), 'ERROR');
  });

  test('$isNumber is true for the four numeric types only', () => {
    assert.equal(ev({ $isNumber: int(1) }), true);
    assert.equal(ev({ $isNumber: Decimal128.fromString('1') }), true);
    assert.equal(ev({ $isNumber: '1' }), false);
    assert.equal(ev({ $isNumber: '$nope' }), false);
  });

  test('end to end: $convert with onError in $project over a real collection', () => {
    const out = aggregate(
      [
        { _id: 1, v: '10' },
        { _id: 2, v: 'ten' },
      ],
      [{ $project: { n: { $convert: { input: '$v', to: 'int', onError: null } } } }],
    );
    assertInt(out[0].n, 10);
    assert.equal(out[1].n, null);
  });
});
