import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../../src/engine/errors';
import { compileFilter } from '../../../../src/engine/query/matcher';
import { expectError } from '../../helpers/expect-error';

describe('matcher: $type arguments', () => {
  test("an inherited property name ('toString', 'constructor') is an unknown alias: 2 BadValue", () => {
    for (const name of ['toString', 'constructor', 'hasOwnProperty']) {
      expectError(() => compileFilter({ a: { $type: name } }), ErrorCode.BadValue, `Unknown type name alias: ${name}`);
    }
    assert.equal(compileFilter({ a: { $type: 'string' } })({ a: 'x' }), true);
  });

  test('an argument that is neither a number nor a string is refused with 14 TypeMismatch', () => {
    for (const arg of [true, null, {}]) {
      expectError(
        () => compileFilter({ a: { $type: arg } }),
        ErrorCode.TypeMismatch,
        'type must be represented as a number or a string',
        'TypeMismatch',
      );
    }
  });
});
