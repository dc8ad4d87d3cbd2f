import assert from 'node:assert/strict';
import { EngineError } from '../../../src/engine';

/** Runs `fn` and asserts it throws an EngineError with `code` (and message / codeName when given). */
export function expectError(fn: () => unknown, code: number, message?: RegExp, codeName?: string): EngineError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof EngineError, `expected an EngineError with code ${code}, got ${String(err)}`);
    assert.equal(err.code, code, `expected code ${code}, got ${err.code} (${err.codeName}): ${err.message}`);
    if (message) assert.match(err.message, message);
    if (codeName) assert.equal(err.codeName, codeName);
    return err;
  }
  return assert.fail(`expected an EngineError with code ${code}, but the call succeeded`);
}
