import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BSONRegExp, Long } from 'bson';
import { compileFilter } from '../../../../src/engine/query/matcher';
import type { Document } from '../../../../src/engine/values/types';

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

  test('$bits*: zero has every bit past 63 clear, as it is not negative', () => {
    assert.equal(matches({ $bitsAllClear: [64, 200] }, 0), true);
    assert.equal(matches({ $bitsAnySet: [64] }, 0), false);
    assert.equal(matches({ $bitsAnySet: [64] }, -1), true);
  });
});
