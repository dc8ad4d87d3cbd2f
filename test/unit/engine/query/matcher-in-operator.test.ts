import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal128, Int32, Long } from 'bson';
import { ErrorCode } from '../../../../src/engine/errors';
import { collatorFor } from '../../../../src/engine/collation/collator';
import { withCollator } from '../../../../src/engine/collation/active';
import { parseCollation } from '../../../../src/engine/collation/spec';
import { compileFilter } from '../../../../src/engine/query/matcher';
import { BSON_UNDEFINED } from '../../../../src/engine/values/bson-undefined';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';

function matches(list: unknown[], doc: Document): boolean {
  return compileFilter({ a: { $in: list } })(doc);
}

// 2^53: a Long that exactDouble leaves out, so it is compared exactly rather than hashed.
const TWO_53 = 9007199254740992;

describe('matcher: $in', () => {
  test('without null in the list, a null or missing field is not a member', () => {
    assert.equal(matches([1, 'x'], { a: null }), false);
    assert.equal(matches([1, 'x'], {}), false);
    assert.equal(matches([null], {}), true);
  });

  test('a JS undefined in the list is read as null: it matches null and a missing field', () => {
    assert.equal(matches([undefined], { a: null }), true);
    assert.equal(matches([undefined], {}), true);
    assert.equal(matches([undefined], { a: 0 }), false);
  });

  test('a BSON undefined in the list is refused with 2 BadValue, for $in and $nin', () => {
    for (const op of ['$in', '$nin']) {
      expectError(
        () => compileFilter({ a: { [op]: [1, BSON_UNDEFINED] } }),
        ErrorCode.BadValue,
        `InMatchExpression equality cannot be undefined: ${op} takes null to match null or a missing field.`,
      );
    }
  });

  test('under a collation, a string matches a member the collation holds equal, and no other', () => {
    const caseInsensitive = collatorFor(parseCollation({ locale: 'en', strength: 2 }));
    withCollator(caseInsensitive, () => {
      const pred = compileFilter({ a: { $in: ['abc', 'def'] } });
      assert.equal(pred({ a: 'ABC' }), true);
      assert.equal(pred({ a: 'xyz' }), false);
    });
    assert.equal(matches(['abc'], { a: 'ABC' }), false);
  });

  test('a double equals a Long member beyond the exactly hashed range (2^53)', () => {
    assert.equal(matches([Long.fromNumber(TWO_53)], { a: TWO_53 }), true);
    assert.equal(matches([Long.fromString('1152921504606846976')], { a: 2 ** 60 }), true);
    assert.equal(matches([Long.fromNumber(TWO_53)], { a: TWO_53 - 1 }), false);
  });

  test('a wrapped number not equal to any member does not match', () => {
    assert.equal(matches([1], { a: new Int32(2) }), false);
    assert.equal(matches([1, Decimal128.fromString('0.1')], { a: new Int32(2) }), false);
    assert.equal(matches([Decimal128.fromString('0.1')], { a: Decimal128.fromString('0.2') }), false);
    assert.equal(matches([Decimal128.fromString('0.1')], { a: Decimal128.fromString('0.1') }), true);
  });

  test('a document value must equal a document member; non-members neither match nor throw', () => {
    assert.equal(matches([{ x: 1 }], { a: { x: 2 } }), false);
    assert.equal(matches([{ x: 1 }, { x: 2 }], { a: { x: 2 } }), true);
    assert.equal(matches([{ x: 1 }], { a: true }), false);
  });
});
