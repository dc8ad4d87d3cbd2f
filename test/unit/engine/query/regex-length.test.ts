/**
 * The longest regular expression pattern mongod compiles: 32761 bytes; one more is 51091.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

function matching(engine: Engine, filter: Document): number {
  return ((engine.runCommand('app', { find: 'c', filter }).cursor as Document).firstBatch as Document[]).length;
}

describe('regex: pattern length', () => {
  const engine = new Engine();
  engine.runCommand('app', { insert: 'c', documents: [{ z: 'c'.repeat(40000) }] });

  it('a pattern of 32761 bytes compiles and matches, through $regex and through $in', () => {
    const pattern = 'c'.repeat(32761);
    assert.equal(matching(engine, { z: { $regex: pattern } }), 1);
    assert.equal(matching(engine, { z: { $in: [new RegExp(pattern)] } }), 1);
  });

  it('one byte more is refused with 51091, through $regex and through $in', () => {
    const pattern = 'c'.repeat(32762);
    expectError(() => matching(engine, { z: { $regex: pattern } }), 51091, /pattern string is too long/);
    expectError(() => matching(engine, { z: { $in: [new RegExp(pattern)] } }), 51091);
  });

  it('counts UTF-8 bytes, not characters', () => {
    expectError(() => matching(engine, { z: { $regex: 'é'.repeat(16381) } }), 51091);
  });
});
