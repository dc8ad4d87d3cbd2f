import assert from 'node:assert/strict';
import { EngineError } from '../../../src/engine';

/**
 * Runs `fn` and asserts it throws an EngineError with `code`, and when given the message (a string
 * must match exactly, a RegExp anywhere) and the codeName.
 */
export function expectError(
  fn: () => unknown,
  code: number,
  message?: string | RegExp,
  codeName?: string,
): EngineError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof EngineError, `expected an EngineError with code ${code}, got ${String(err)}`);
    assert.equal(err.code, code, `expected code ${code}, got ${err.code} (${err.codeName}): ${err.message}`);
    if (typeof message === 'string') assert.equal(err.message, message);
    else if (message) assert.match(err.message, message);
    if (codeName) assert.equal(err.codeName, codeName);
    return err;
  }
  return assert.fail(`expected an EngineError with code ${code}, but the call succeeded`);
}
