import { describe, test } from 'node:test';
import { ErrorCode } from '../../../../src/engine/errors';
import { compileFilter } from '../../../../src/engine/query/matcher';
import { expectError } from '../../helpers/expect-error';

function refused(condition: unknown, message: string): void {
  expectError(() => compileFilter({ a: condition }), ErrorCode.BadValue, message, 'BadValue');
}

describe('matcher: $size and $mod argument refusals (2 BadValue, mongod wording)', () => {
  test('$size of a fraction, NaN or Infinity is "$size must be a whole number"', () => {
    for (const n of [1.5, NaN, Infinity]) refused({ $size: n }, '$size must be a whole number');
  });

  test('$size of a negative whole number is "$size may not be negative"', () => {
    refused({ $size: -1 }, '$size may not be negative');
  });

  test('$mod of a non-array is "malformed mod, needs to be an array"', () => {
    refused({ $mod: 4 }, 'malformed mod, needs to be an array');
  });
});
