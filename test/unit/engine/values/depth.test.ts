/**
 * The nesting measure behind the depth limits: containers (documents, arrays) count one level each,
 * empty ones optionally none, and the walk stops one level past the limit, so a value of any depth,
 * or a cyclic one, is measured without overflowing the stack.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Code, Int32, ObjectId } from 'bson';
import { checkCommandDepth, checkFieldPathLength, nestsDeeperThan } from '../../../../src/engine/values/depth';
import { expectError } from '../../helpers/expect-error';

function nested(levels: number, leaf: unknown = 1): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

describe('nestsDeeperThan', () => {
  it('counts each document and array as a level, the top-level value included', () => {
    assert.equal(nestsDeeperThan(nested(3), 3, true), false);
    assert.equal(nestsDeeperThan(nested(4), 3, true), true);
    assert.equal(nestsDeeperThan({ a: [[1]] }, 3, true), false);
    assert.equal(nestsDeeperThan({ a: [[[1]]] }, 3, true), true);
    assert.equal(nestsDeeperThan(5, 0, true), false);
  });

  it('does not count empty documents and arrays when asked not to', () => {
    assert.equal(nestsDeeperThan(nested(3, {}), 3, true), true);
    assert.equal(nestsDeeperThan(nested(3, {}), 3, false), false);
    assert.equal(nestsDeeperThan(nested(3, []), 3, false), false);
    assert.equal(nestsDeeperThan(nested(3, [1]), 3, false), true);
  });

  it('treats dates, regexes and BSON values as leaves, and counts a code scope as a level', () => {
    const leaves = { d: new Date(0), r: /x/, o: new ObjectId(), i: new Int32(1) };
    assert.equal(nestsDeeperThan(leaves, 1, true), false);
    assert.equal(nestsDeeperThan({ c: new Code('f', { s: { t: 1 } }) }, 2, true), true);
    assert.equal(nestsDeeperThan({ c: new Code('f', { s: 1 }) }, 2, true), false);
  });

  it('measures 100,000 levels and cyclic values without overflowing the stack', () => {
    assert.equal(nestsDeeperThan(nested(100_000), 200, true), true);
    const cyclic: { self?: unknown } = {};
    cyclic.self = [cyclic];
    assert.equal(nestsDeeperThan(cyclic, 200, false), true);
  });
});

describe('command depth and field path limits', () => {
  it('a command may nest 200 levels below its top level (code 15 past that)', () => {
    checkCommandDepth({ find: 'c', filter: nested(200) });
    expectError(() => checkCommandDepth({ find: 'c', filter: nested(201) }), 15, /more than 200 levels/, 'Overflow');
  });

  it('a field path may have 180 components (code 5729100 past that)', () => {
    checkFieldPathLength('a' + '.a'.repeat(179));
    checkFieldPathLength('a'.repeat(10_000));
    expectError(
      () => checkFieldPathLength('a' + '.a'.repeat(180)),
      5729100,
      /FieldPath is too long/,
      'Location5729100',
    );
  });
});
