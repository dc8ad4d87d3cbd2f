import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Binary, Decimal128, Int32, Long } from 'bson';
import { ErrorCode } from '../../../../src/engine/errors';
import { compileFilter } from '../../../../src/engine/query/matcher';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';

function matches(filter: Document, n: unknown): boolean {
  return compileFilter({ n: filter })({ n });
}

function assertBadValue(filter: Document, message: RegExp): void {
  expectError(() => compileFilter({ n: filter }), ErrorCode.BadValue, message);
}

function assertFailedToParse(filter: Document, message: string | RegExp): void {
  expectError(() => compileFilter({ n: filter }), ErrorCode.FailedToParse, message, 'FailedToParse');
}

describe('matcher: $bits* operators', () => {
  test('$bitsAllSet needs every named bit set, $bitsAnySet one of them', () => {
    assert.equal(matches({ $bitsAllSet: [0, 2] }, 0b101), true);
    assert.equal(matches({ $bitsAllSet: [0, 1] }, 0b101), false);
    assert.equal(matches({ $bitsAnySet: [1, 3] }, 0b101), false);
    assert.equal(matches({ $bitsAnySet: [1, 2] }, 0b101), true);
  });

  test('$bitsAllClear needs every named bit clear, $bitsAnyClear one of them', () => {
    assert.equal(matches({ $bitsAllClear: [1, 3] }, 0b101), true);
    assert.equal(matches({ $bitsAllClear: [1, 2] }, 0b101), false);
    assert.equal(matches({ $bitsAnyClear: [0, 2] }, 0b101), false);
    assert.equal(matches({ $bitsAnyClear: [0, 1] }, 0b101), true);
  });

  test('an empty list of positions: "all" holds for every integer, "any" for none', () => {
    assert.equal(matches({ $bitsAllSet: [] }, 6), true);
    assert.equal(matches({ $bitsAllClear: [] }, 6), true);
    assert.equal(matches({ $bitsAnySet: [] }, 6), false);
    assert.equal(matches({ $bitsAnyClear: [] }, 6), false);
  });

  test('a numeric bitmask names the bits set in it, up to bit 63', () => {
    assert.equal(matches({ $bitsAllSet: 0b110 }, 0b0110), true);
    assert.equal(matches({ $bitsAllSet: 0b110 }, 0b0100), false);
    assert.equal(matches({ $bitsAllSet: Long.fromString('9223372036854775807') }, -1), true);
    assert.equal(matches({ $bitsAllSet: Long.fromString('4611686018427387904') }, 1), false, 'bit 62');
    assert.equal(matches({ $bitsAnySet: new Int32(8) }, 8), true);
  });

  test('a BinData bitmask names its bits, byte 0 holding bits 0 to 7', () => {
    const mask = new Binary(Buffer.from([0b00000001, 0b00000010]));
    assert.equal(matches({ $bitsAllSet: mask }, 0b10_0000_0001), true);
    assert.equal(matches({ $bitsAllSet: mask }, 0b00_0000_0001), false, 'bit 9 is named by the second byte');
  });

  test('stored integers of every numeric type take part; negative ones are sign-extended past bit 63', () => {
    assert.equal(matches({ $bitsAllSet: [3] }, new Int32(8)), true);
    assert.equal(matches({ $bitsAllSet: [40] }, Long.fromString('1099511627776')), true);
    assert.equal(matches({ $bitsAllSet: [1] }, Decimal128.fromString('2')), true);
    assert.equal(matches({ $bitsAllSet: [63, 100] }, Long.fromString('-9223372036854775808')), true);
    assert.equal(matches({ $bitsAllSet: [100] }, 5), false, 'a positive number has no bit beyond 63');
    assert.equal(matches({ $bitsAllClear: [100] }, 5), true);
  });

  test('doubles outside the 64-bit range, fractions, NaN and non-numbers never match', () => {
    assert.equal(matches({ $bitsAllClear: [0] }, 2 ** 63), false);
    assert.equal(matches({ $bitsAllClear: [0] }, -(2 ** 63)), true, '-2^63 is the lowest 64-bit integer');
    assert.equal(matches({ $bitsAllClear: [0] }, -(2 ** 64)), false);
    assert.equal(matches({ $bitsAllClear: [0] }, 2.5), false);
    assert.equal(matches({ $bitsAllClear: [0] }, NaN), false);
    assert.equal(matches({ $bitsAllClear: [0] }, '2'), false);
    assert.equal(matches({ $bitsAllClear: [0] }, null), false);
  });

  test('a stored BinData is read bit by bit; bits past its end are clear', () => {
    const bin = new Binary(Buffer.from([0b00000100]));
    assert.equal(matches({ $bitsAllSet: [2] }, bin), true);
    assert.equal(matches({ $bitsAllSet: [1] }, bin), false);
    assert.equal(matches({ $bitsAllClear: [8, 20] }, bin), true);
    assert.equal(matches({ $bitsAnySet: [8] }, bin), false);
  });

  test('bit positions must be non-negative integers; a numeric bitmask a non-negative integer (FailedToParse, mongod wording)', () => {
    assertBadValue({ $bitsAllSet: ['a'] }, /bit positions must be an integer but got: a/);
    assertBadValue({ $bitsAllSet: [1.5] }, /bit positions must be an integer but got: 1.5/);
    assertBadValue({ $bitsAllSet: [-1] }, /bit positions must be >= 0 but got: -1/);
    assertFailedToParse({ $bitsAnySet: 1.5 }, 'Expected an integer: $bitsAnySet: 1.5');
    assertFailedToParse({ $bitsAnySet: NaN }, /^Expected an integer, but found NaN in: \$bitsAnySet: /);
    assertFailedToParse({ $bitsAllClear: -1 }, 'Expected a non-negative number in: $bitsAllClear: -1');
    assertBadValue({ $bitsAnyClear: 'x' }, /\$bitsAnyClear takes an Array, a number, or a BinData/);
  });
});

describe('matcher: $mod', () => {
  test('$mod with a divisor beyond 32 bits divides exactly', () => {
    const big = 2 ** 40;
    assert.equal(matches({ $mod: [big, 5] }, big * 3 + 5), true);
    assert.equal(matches({ $mod: [big, 5] }, big * 3 + 6), false);
    assert.equal(matches({ $mod: [7, 2 ** 35] }, 2 ** 35), false, 'a remainder beyond the divisor never matches');
  });

  test('$mod of a double beyond 2^53 and of Decimal128 values', () => {
    assert.equal(matches({ $mod: [3, 1] }, 2 ** 60), true); // 2^60 = 1 (mod 3)
    assert.equal(matches({ $mod: [3, 0] }, 2 ** 60), false);
    assert.equal(matches({ $mod: [4, 1] }, Decimal128.fromString('9.7')), true);
  });

  test('$mod with a negative divisor keeps the sign of the value (truncated division)', () => {
    assert.equal(matches({ $mod: [-4, 1] }, 5), true);
    assert.equal(matches({ $mod: [-4, -1] }, -5), true);
    assert.equal(matches({ $mod: [-4, 1] }, -5), false);
  });

  test('$mod never matches infinities', () => {
    assert.equal(matches({ $mod: [2, 0] }, Infinity), false);
    assert.equal(matches({ $mod: [2, 0] }, -Infinity), false);
  });

  test('$mod arguments: NaN or infinite divisor and remainder are BadValue, fractions truncate', () => {
    assertBadValue({ $mod: [NaN, 1] }, /divisor value is invalid .*NaN\/Inf/);
    assertBadValue({ $mod: [Infinity, 1] }, /divisor value is invalid/);
    assertBadValue({ $mod: [4, NaN] }, /remainder value is invalid .*NaN\/Inf/);
    assertBadValue({ $mod: [4, 'a'] }, /remainder not a number/);
    assertBadValue({ $mod: ['a', 1] }, /divisor not a number/);
    assertBadValue({ $mod: [0.5, 0] }, /divisor cannot be 0/);
    assert.equal(matches({ $mod: [4.9, 1.9] }, 5), true);
  });
});
