import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BSONRegExp } from 'bson';
import { ErrorCode } from '../../../../src/engine/errors';
import { compileFilter } from '../../../../src/engine/query/matcher';
import { expectError } from '../../helpers/expect-error';

function matches(condition: unknown, value: unknown): boolean {
  return compileFilter({ a: condition })({ a: value });
}

describe('matcher: a regex-valued field against a regex condition', () => {
  test('{$regex, $options} matches a stored regex with the same pattern and the same flags', () => {
    assert.equal(matches({ $regex: 'x', $options: 'i' }, new BSONRegExp('x', 'i')), true);
    assert.equal(matches({ $regex: 'x', $options: 'im' }, new BSONRegExp('x', 'im')), true);
    assert.equal(matches({ $regex: 'x', $options: 'i' }, new BSONRegExp('x', '')), false);
    assert.equal(matches({ $regex: 'x' }, new BSONRegExp('x', 'i')), false);
  });

  test('$options are compared as written: "mi" does not match a stored /x/im (mongod compares the strings)', () => {
    assert.equal(matches({ $regex: 'x', $options: 'mi' }, new BSONRegExp('x', 'im')), false);
    // The pattern itself still runs under both options.
    assert.equal(matches({ $regex: '^b', $options: 'mi' }, 'a\nB'), true);
  });

  test('a literal regex matches a stored regex by flags: /x/i is not /x/', () => {
    assert.equal(matches(/x/i, new BSONRegExp('x', 'i')), true);
    assert.equal(matches(/x/i, new BSONRegExp('x', '')), false);
    assert.equal(matches(/x/, new BSONRegExp('x', 'i')), false);
  });

  test('a literal regex drops the u flag (a driver sends no such BSON option): /x/u matches a stored /x/', () => {
    assert.equal(matches(/x/u, new BSONRegExp('x', '')), true);
    assert.equal(matches(/x/iu, new BSONRegExp('x', 'i')), true);
  });
});

describe('matcher: a field holding a JS RegExp', () => {
  test('it matches the same literal: the flags BSON does not carry (u, y, d, v, g) count on neither side', () => {
    assert.equal(matches(/x/u, /x/u), true);
    assert.equal(matches(/x/, /x/u), true);
    assert.equal(matches(/x/i, /x/iy), true);
    assert.equal(matches({ $regex: 'x', $options: 'i' }, /x/giu), true);
    assert.equal(matches(/x/, /x/i), false);
    assert.equal(matches(/y/u, /x/u), false);
  });
});

describe('matcher: $regex with $options', () => {
  test('a RegExp whose only flags carry no PCRE option (u, y) takes its options from $options', () => {
    assert.equal(matches({ $regex: /x/u, $options: 'i' }, 'X'), true);
    assert.equal(matches({ $regex: /x/y, $options: 'i' }, 'X'), true);
  });

  test('$options that is not a string is refused with 2 BadValue', () => {
    expectError(
      () => compileFilter({ a: { $regex: 'x', $options: 1 } }),
      ErrorCode.BadValue,
      '$options has to be a string',
    );
    expectError(
      () => compileFilter({ a: { $options: true, $regex: 'x' } }),
      ErrorCode.BadValue,
      '$options has to be a string',
    );
  });
});
