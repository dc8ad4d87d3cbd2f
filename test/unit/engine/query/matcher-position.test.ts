import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../../../../src/engine';
import { compileMatchedPosition } from '../../../../src/engine/query/matcher';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';

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

  test('equality to an array gives the index of the element equal to it; the whole array equal to it gives none', () => {
    assert.equal(position({ a: [5] }, { a: [1, [5]] }), '1');
    assert.equal(position({ a: [5] }, { a: [5] }), undefined);
  });

  test('an $expr whose expression is an $and is no query operator: it records nothing and the other conditions still do', () => {
    const d = { grades: [80, 85], n: 1 };
    assert.equal(position({ grades: 85, $expr: { $and: [{ $gt: ['$n', 0] }] } }, d), '1');
  });
});

describe('find: a positional projection with its filter', () => {
  test('a non-document $and clause is refused as the filter (BadValue), whether the collection exists or not', () => {
    const engine = new Engine();
    engine.runCommand('db', { insert: 'c', documents: [{ a: [1, 2] }] });
    for (const find of ['c', 'missing']) {
      expectError(
        () => engine.runCommand('db', { find, filter: { a: 2, $and: [null] }, projection: { 'a.$': 1 } }),
        2,
        '$or/$and/$nor entries need to be full objects',
        'BadValue',
      );
    }
  });

  test('a $expr next to the positional field projects the element the field matched', () => {
    const engine = new Engine();
    engine.runCommand('db', { insert: 'c', documents: [{ _id: 1, a: [1, 2, 3] }] });
    const reply = engine.runCommand('db', {
      find: 'c',
      filter: { a: 2, $expr: { $and: [{ $eq: ['$_id', 1] }] } },
      projection: { 'a.$': 1 },
    });
    assert.deepEqual((reply.cursor as Document).firstBatch, [{ _id: 1, a: [2] }]);
  });
});
