import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal128, Int32, Long, ObjectId } from 'bson';
import { ErrorCode } from '../../../../src/engine/errors';
import { compileFilter } from '../../../../src/engine/query/matcher';
import { BSON_UNDEFINED } from '../../../../src/engine/values/bson-undefined';
import { expectError } from '../../helpers/expect-error';

/** Whether `{a: condition}` selects a document whose `a` is `value`. */
function matches(condition: unknown, value: unknown): boolean {
  return compileFilter({ a: condition })({ a: value });
}

function matchesMissing(condition: unknown): boolean {
  return compileFilter({ a: condition })({ b: 1 });
}

// Decimal128("0.1") has no exact double, so these operands take the exact (non-double) path.
const TENTH = Decimal128.fromString('0.1');

describe('matcher: equality with a document operand', () => {
  test('{a: {}} matches an empty document, never a missing field', () => {
    assert.equal(matches({ $eq: {} }, {}), true);
    assert.equal(matchesMissing({ $eq: {} }), false);
    assert.equal(matchesMissing({ $eq: { x: 1 } }), false);
  });
});

describe('matcher: $gt/$gte/$lt/$lte on strings, dates and other brackets', () => {
  test('$gt excludes the operand itself (string, ObjectId)', () => {
    assert.equal(matches({ $gt: 'b' }, 'b'), false);
    assert.equal(matches({ $gt: 'b' }, 'c'), true);
    const id = new ObjectId('650000000000000000000000');
    assert.equal(matches({ $gt: id }, new ObjectId('650000000000000000000000')), false);
    assert.equal(matches({ $gt: id }, new ObjectId('650000000000000000000001')), true);
  });

  test('$lte includes the operand and what sorts below it, not what sorts above', () => {
    assert.equal(matches({ $lte: 'b' }, 'b'), true);
    assert.equal(matches({ $lte: 'b' }, 'a'), true);
    assert.equal(matches({ $lte: 'b' }, 'c'), false);
  });

  test('a JS undefined range operand is read as null: $gte/$lte match null and missing, $gt/$lt nothing', () => {
    assert.equal(matches({ $gte: undefined }, null), true);
    assert.equal(matchesMissing({ $lte: undefined }), true);
    assert.equal(matches({ $gt: undefined }, null), false);
    assert.equal(matches({ $gte: undefined }, 0), false);
  });

  test('a BSON undefined range operand is refused with 2 BadValue', () => {
    for (const op of ['$gt', '$gte', '$lt', '$lte']) {
      expectError(
        () => compileFilter({ a: { [op]: BSON_UNDEFINED } }),
        ErrorCode.BadValue,
        /cannot compare to undefined/,
      );
    }
  });

  test('an Invalid Date is neither below, at nor above a date operand (as it equals no date)', () => {
    const invalid = new Date(NaN);
    assert.equal(matches({ $gte: new Date(0) }, invalid), false);
    assert.equal(matches({ $lte: new Date(0) }, invalid), false);
    assert.equal(matches({ $eq: new Date(0) }, invalid), false);
    assert.equal(matches({ $gte: new Date(0) }, new Date(0)), true);
  });
});

describe('matcher: range operators with an operand that has no exact double', () => {
  test('a number on the wrong side of Decimal128("0.1") does not match', () => {
    assert.equal(matches({ $gt: TENTH }, 0), false);
    assert.equal(matches({ $gt: TENTH }, 1), true);
    assert.equal(matches({ $lt: TENTH }, 1), false);
    assert.equal(matches({ $lt: TENTH }, 0), true);
  });

  test('NaN (double or decimal) is neither below nor above Decimal128("0.1")', () => {
    assert.equal(matches({ $lt: TENTH }, NaN), false);
    assert.equal(matches({ $lte: TENTH }, NaN), false);
    assert.equal(matches({ $lt: TENTH }, Decimal128.fromString('NaN')), false);
    assert.equal(matches({ $gt: TENTH }, Decimal128.fromString('-NaN')), false);
  });

  test('a non-number is outside the numeric bracket of Decimal128("0.1")', () => {
    assert.equal(matches({ $gt: TENTH }, 'a'), false);
    assert.equal(matches({ $lt: TENTH }, null), false);
  });
});

describe('matcher: $lt/$lte with an operand that is an exact double', () => {
  test('$lt excludes an equal number of any type, $lte includes it', () => {
    assert.equal(matches({ $lt: 5 }, 5), false);
    assert.equal(matches({ $lt: 5 }, new Int32(5)), false);
    assert.equal(matches({ $lte: 5 }, 5), true);
    assert.equal(matches({ $lte: Long.fromNumber(5) }, 5), true);
  });

  test('$lt matches a smaller plain or wrapped number, not a larger one', () => {
    assert.equal(matches({ $lt: 5 }, 4), true);
    assert.equal(matches({ $lt: 5 }, new Int32(4)), true);
    assert.equal(matches({ $lt: 5 }, new Int32(6)), false);
    assert.equal(matches({ $lt: 5 }, Long.fromNumber(6)), false);
  });
});
