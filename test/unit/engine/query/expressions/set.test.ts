import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectError } from '../../../helpers/expect-error';
import { aggregate, ev, int } from './helpers';

const lit = (v: unknown): unknown => ({ $literal: v });

describe('set operators', () => {
  test('$setUnion and $setIntersection drop duplicates and answer in value order', () => {
    assert.deepEqual(ev({ $setUnion: [lit([3, 1, 1]), lit([2, 1])] }), [1, 2, 3]);
    assert.deepEqual(ev({ $setIntersection: [lit([3, 1, 2, 2]), lit([2, 3, 4])] }), [2, 3]);
    assert.deepEqual(ev({ $setUnion: [] }), []);
  });

  test('numbers of different types are the same element', () => {
    assert.deepEqual(ev({ $setIntersection: [lit([1]), lit([int(1)])] }), [1]);
    assert.equal(ev({ $setEquals: [lit([1, 2]), lit([int(2), int(1), 2])] }), true);
  });

  test('$setDifference keeps the first array order and drops its duplicates', () => {
    assert.deepEqual(ev({ $setDifference: [lit([3, 1, 3, 2]), lit([2])] }), [3, 1]);
  });

  test('$setIsSubset, $allElementsTrue, $anyElementTrue', () => {
    assert.equal(ev({ $setIsSubset: [lit([1, 1]), lit([1, 2])] }), true);
    assert.equal(ev({ $setIsSubset: [lit([3]), lit([1, 2])] }), false);
    assert.equal(ev({ $allElementsTrue: [lit([1, true, 'x'])] }), true);
    assert.equal(ev({ $allElementsTrue: [lit([1, 0])] }), false);
    assert.equal(ev({ $anyElementTrue: [lit([0, null, false])] }), false);
    assert.equal(ev({ $anyElementTrue: [lit([0, [false]])] }), true);
  });

  test('null answers null for union, intersection and difference', () => {
    assert.equal(ev({ $setUnion: [lit([1]), null] }), null);
    assert.equal(ev({ $setIntersection: ['$nope', lit([1])] }), null);
    assert.equal(ev({ $setDifference: [lit([1]), null] }), null);
  });

  test('non-arrays are refused with each operator code', () => {
    expectError(
      () => ev({ $setUnion: [lit([1]), 1] }),
      17043,
      'All operands of $setUnion must be arrays. One argument is of type: double',
    );
    expectError(() => ev({ $setIntersection: [1] }), 17047);
    expectError(() => ev({ $setDifference: [1, lit([])] }), 17048);
    expectError(() => ev({ $setDifference: [lit([]), 1] }), 17049);
    expectError(
      () => ev({ $setEquals: [lit([]), 1] }),
      17044,
      'All operands of $setEquals must be arrays. 2-th argument is of type: double',
    );
    expectError(() => ev({ $setEquals: [lit([])] }), 17045);
    expectError(() => ev({ $setIsSubset: [null, lit([])] }), 17046);
    expectError(() => ev({ $setIsSubset: [lit([]), null] }), 17042);
    expectError(() => ev({ $allElementsTrue: 1 }), 17040);
    expectError(() => ev({ $anyElementTrue: [null] }), 17041);
  });

  test('end to end: $setUnion of two fields in $project', () => {
    const out = aggregate(
      [{ _id: 1, a: ['x', 'y'], b: ['y', 'z'] }],
      [{ $project: { _id: 0, u: { $setUnion: ['$a', '$b'] } } }],
    );
    assert.deepEqual(out, [{ u: ['x', 'y', 'z'] }]);
  });
});
