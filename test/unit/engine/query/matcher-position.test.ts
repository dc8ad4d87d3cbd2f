import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileMatchedPosition } from '../../../../src/engine/query/matcher';
import type { Document } from '../../../../src/engine/values/types';

function position(filter: Document, doc: Document): string | undefined {
  return compileMatchedPosition(filter)(doc);
}

describe('matcher: the array position a match went through (positional $)', () => {
  const doc = { grades: [80, 85, 90], name: 'x' };

  test('equality on an array field gives the index of the matching element', () => {
    assert.equal(position({ grades: 85 }, doc), '1');
    assert.equal(position({ grades: 80 }, doc), '0');
  });

  test('a condition met without an array, or not met at all, gives no position', () => {
    assert.equal(position({ name: 'x' }, doc), undefined);
    assert.equal(position({ grades: 99 }, doc), undefined);
  });

  test('a dotted path into an array of documents gives the index of the matching document', () => {
    const d = { grades: [{ mean: 80 }, { mean: 85 }] };
    assert.equal(position({ 'grades.mean': 85 }, d), '1');
  });

  test('$elemMatch gives the index of the first element that satisfies it', () => {
    const d = { grades: [{ mean: 70 }, { mean: 85 }, { mean: 90 }] };
    assert.equal(position({ grades: { $elemMatch: { mean: { $gt: 80 } } } }, d), '1');
    assert.equal(position({ grades: { $elemMatch: { $gt: 82 } } }, doc), '1');
  });

  test('of several conditions, the last one that matched through an array decides', () => {
    // $gt 82 first matches 85 (index 1), $lt 95 first matches 80 (index 0): the later one wins.
    assert.equal(position({ grades: { $gt: 82, $lt: 95 } }, doc), '0');
    assert.equal(position({ grades: { $lt: 95, $gt: 82 } }, doc), '1');
    assert.equal(position({ name: 'x', grades: 90 }, doc), '2');
    assert.equal(position({ grades: 90, name: 'x' }, doc), '2', 'a condition through no array records nothing');
  });

  test('conditions inside $and and a one-clause $or record their position', () => {
    assert.equal(position({ $and: [{ name: 'x' }, { grades: 90 }] }, doc), '2');
    assert.equal(position({ $or: [{ grades: 85 }] }, doc), '1');
  });

  test('a $or of several clauses, $nor and negations record nothing', () => {
    assert.equal(position({ $or: [{ grades: 85 }, { name: 'y' }] }, doc), undefined);
    assert.equal(position({ $nor: [{ grades: 99 }] }, doc), undefined);
    assert.equal(position({ grades: { $ne: 99 } }, doc), undefined);
    assert.equal(position({ grades: { $not: { $lt: 81 } } }, doc), undefined);
  });

  test('top-level operators other than $and and $or ($comment, $expr) record nothing', () => {
    assert.equal(position({ $comment: 'c', grades: 85 }, doc), '1');
    assert.equal(position({ $expr: { $eq: [1, 1] } }, doc), undefined);
  });
});
