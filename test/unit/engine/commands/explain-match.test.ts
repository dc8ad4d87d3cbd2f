/**
 * A $match left in an explained pipeline is printed as mongod prints it after optimizing it: one
 * path and one operator per predicate (equality as $eq), $and flattened, a single-clause $and or
 * $or reduced to its clause.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { optimizedMatch } from '../../../../src/engine/commands/explain-match';

describe('explain: an optimized $match', () => {
  it('a single-clause $and is its clause, with the equality as $eq', () => {
    assert.deepEqual(optimizedMatch({ $and: [{ c: 1 }] }), { c: { $eq: 1 } });
    assert.deepEqual(optimizedMatch({ $or: [{ c: 1 }] }), { c: { $eq: 1 } });
  });

  it('several paths or operators are one flat $and; an embedded document is compared whole', () => {
    assert.deepEqual(optimizedMatch({ a: 1, $and: [{ b: { $gt: 2, $lt: 5 } }, { $and: [{ c: { d: 1 } }] }] }), {
      $and: [{ a: { $eq: 1 } }, { b: { $gt: 2 } }, { b: { $lt: 5 } }, { c: { $eq: { d: 1 } } }],
    });
    assert.deepEqual(optimizedMatch({ a: { $regex: 'x', $options: 'i' } }), { a: { $regex: 'x', $options: 'i' } });
    assert.deepEqual(optimizedMatch({}), {});
  });

  it('the $match stage after a stage it depends on shows the optimized form in explain', () => {
    const engine = new Engine();
    engine.runCommand('t', { insert: 'c', documents: [{ a: 1, b: 1 }] });
    const e = engine.runCommand('t', {
      explain: {
        aggregate: 'c',
        pipeline: [{ $sort: { b: -1 } }, { $addFields: { c: { $mod: ['$a', 4] } } }, { $match: { $and: [{ c: 1 }] } }],
        cursor: {},
      },
    });
    const stages = e.stages as Document[];
    assert.deepEqual(stages[stages.length - 1], { $match: { c: { $eq: 1 } } });
  });
});
