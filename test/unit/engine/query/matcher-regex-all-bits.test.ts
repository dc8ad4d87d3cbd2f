import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BSONRegExp, Decimal128, Long } from 'bson';
import { ErrorCode } from '../../../../src/engine/errors';
import { compileFilter } from '../../../../src/engine/query/matcher';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';

function matches(filter: Document, a: unknown): boolean {
  return compileFilter({ a: filter })({ a });
}

describe('matcher: a regex against values that are not strings', () => {
  test('regex: null, numbers, booleans, dates and embedded documents never match a regex', () => {
    for (const value of [null, 5, true, new Date(0), { b: 'x' }, Long.fromNumber(1)]) {
      assert.equal(compileFilter({ a: /x/ })({ a: value }), false, String(value));
      assert.equal(matches({ $regex: 'x' }, value), false, String(value));
    }
  });

  test('regex: a stored BSONRegExp matches only a regex with the same pattern and the same flags', () => {
    assert.equal(compileFilter({ a: /x/i })({ a: new BSONRegExp('x', 'i') }), true);
    assert.equal(compileFilter({ a: /x/i })({ a: new BSONRegExp('y', 'i') }), false, 'another pattern');
    assert.equal(compileFilter({ a: /x/i })({ a: new BSONRegExp('x', '') }), false, 'other flags');
  });
});

describe('matcher: $all and $elemMatch shapes', () => {
  test('$all: an empty document in the list is a value to find, not an $elemMatch', () => {
    assert.equal(matches({ $all: [{}] }, [{}]), true);
    assert.equal(matches({ $all: [{}] }, {}), true);
    assert.equal(matches({ $all: [{}] }, [{ b: 1 }]), false);
  });

  test('$elemMatch: the elements of a nested array are not searched, only the array own elements', () => {
    assert.equal(matches({ $elemMatch: { $in: [5] } }, [[5]]), false);
    assert.equal(matches({ $elemMatch: { $gt: 1 } }, [[1, 2]]), false);
    assert.equal(matches({ $elemMatch: { $gt: 1 } }, [[1, 2], 3]), true);
    assert.equal(matches({ $elemMatch: { $elemMatch: { $in: [5] } } }, [[5]]), true);
  });
});

describe('matcher: $bits* edge values', () => {
  test('$bits*: a bitmask of 0 names no bit, so "all" holds for every integer and "any" for none', () => {
    assert.equal(matches({ $bitsAllSet: 0 }, 5), true);
    assert.equal(matches({ $bitsAllClear: 0 }, 5), true);
    assert.equal(matches({ $bitsAnySet: 0 }, 5), false);
    assert.equal(matches({ $bitsAnyClear: 0 }, 5), false);
  });

  test('$bits*: a Long is read exactly, so Long.MAX_VALUE (2^63 - 1) has bits 0 to 62 set and 63 clear', () => {
    assert.equal(matches({ $bitsAllSet: [0, 62] }, Long.MAX_VALUE), true);
    assert.equal(matches({ $bitsAllClear: [63] }, Long.MAX_VALUE), true);
    assert.equal(matches({ $bitsAllSet: [0, 63] }, Long.MIN_VALUE), false);
  });

  test('$bits*: a numeric bitmask a 64-bit integer cannot hold is FailedToParse, not a mask of its low bits', () => {
    const refused = (mask: unknown, message: string | RegExp) =>
      expectError(() => compileFilter({ a: { $bitsAllSet: mask } }), ErrorCode.FailedToParse, message, 'FailedToParse');
    refused(2 ** 64, /^Cannot represent as a 64-bit integer: \$bitsAllSet: /);
    refused(2 ** 63, /^Cannot represent as a 64-bit integer: \$bitsAllSet: /);
    refused(-(2 ** 64), /^Cannot represent as a 64-bit integer: \$bitsAllSet: /);
    refused(Infinity, /^Cannot represent as a 64-bit integer: \$bitsAllSet: /);
    refused(Decimal128.fromString('9223372036854775808'), /^Cannot represent as a 64-bit integer: /);
    refused(Decimal128.fromString('2.5'), 'Cannot represent as a 64-bit integer: $bitsAllSet: Decimal128("2.5")');
    refused(Decimal128.fromString('NaN'), /^Cannot represent as a 64-bit integer: /);
    refused(Long.fromNumber(-4), 'Expected a non-negative number in: $bitsAllSet: -4');
    refused(-4.5, 'Expected an integer: $bitsAllSet: -4.5');
    refused(Long.MIN_VALUE, 'Expected a non-negative number in: $bitsAllSet: -9223372036854775808');
    assert.equal(matches({ $bitsAllSet: Long.MAX_VALUE }, -1), true, '2^63 - 1 names bits 0 to 62');
    assert.equal(matches({ $bitsAllSet: Long.MAX_VALUE }, Long.MAX_VALUE), true);
    assert.equal(matches({ $bitsAllSet: Decimal128.fromString('6') }, 6), true, 'a whole Decimal128 is a mask');
  });

  test('$bits*: zero has every bit past 63 clear, as it is not negative', () => {
    assert.equal(matches({ $bitsAllClear: [64, 200] }, 0), true);
    assert.equal(matches({ $bitsAnySet: [64] }, 0), false);
    assert.equal(matches({ $bitsAnySet: [64] }, -1), true);
  });
});

describe('matcher: $mod within the 64-bit integer range', () => {
  const outOfBounds = (role: string) =>
    `malformed mod, ${role} value is invalid :: caused by :: Out of bounds coercing to integral value`;

  test('$mod: a dividend a 64-bit integer cannot hold never matches', () => {
    assert.equal(matches({ $mod: [2, 0] }, 2 ** 64), false);
    assert.equal(matches({ $mod: [2, 0] }, 2 ** 63), false);
    assert.equal(matches({ $mod: [2, 0] }, -(2 ** 64)), false);
    assert.equal(matches({ $mod: [2, 0] }, Decimal128.fromString('1E+20')), false);
    assert.equal(matches({ $mod: [2, 0] }, -(2 ** 63)), true, '-2^63 is the lowest 64-bit integer');
    assert.equal(matches({ $mod: [3, 1] }, 2 ** 62), true, '2^62 = 1 (mod 3)');
  });

  test('$mod: a Long or Decimal128 dividend beyond 2^53 is truncated exactly, not through a double', () => {
    assert.equal(matches({ $mod: [2, 1] }, Decimal128.fromString('9007199254740993')), true);
    assert.equal(matches({ $mod: [2, 1] }, Decimal128.fromString('9007199254740993.9')), true);
    assert.equal(matches({ $mod: [2, 1] }, Long.fromString('9007199254740993')), true);
    assert.equal(matches({ $mod: [2, 1] }, Decimal128.fromString('9223372036854775807')), true);
  });

  test('$mod: a divisor or remainder a 64-bit integer cannot hold is BadValue "Out of bounds"', () => {
    const refused = (arg: unknown[], message: string) =>
      expectError(() => compileFilter({ a: { $mod: arg } }), ErrorCode.BadValue, message, 'BadValue');
    refused([2 ** 63, 0], outOfBounds('divisor'));
    refused([-(2 ** 64), 0], outOfBounds('divisor'));
    refused([Decimal128.fromString('9223372036854775808'), 0], outOfBounds('divisor'));
    refused([3, 2 ** 63], outOfBounds('remainder'));
    refused([3, Decimal128.fromString('-9223372036854775809')], outOfBounds('remainder'));
    assert.equal(matches({ $mod: [-(2 ** 63), 0] }, 0), true, '-2^63 is a divisor');
    assert.equal(matches({ $mod: [Decimal128.fromString('9223372036854775807'), 1] }, 1), true);
  });
});
