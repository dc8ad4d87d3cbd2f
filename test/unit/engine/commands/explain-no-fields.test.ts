/**
 * An aggregate whose stages after the query read no field of the documents ($count, a $group by a
 * constant, a $project of constants without _id) asks the query for no document: an index whose
 * one range decides the filter counts its keys (COUNT_SCAN) under the $cursor, as mongod plans it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { needsNoFields } from '../../../../src/engine/commands/explain-no-fields';

function cursorPlan(pipeline: Document[]): Document {
  const engine = new Engine();
  engine.runCommand('t', {
    insert: 'c',
    documents: Array.from({ length: 15 }, (_, i) => ({ foo: i % 3, bar: i })),
  });
  engine.runCommand('t', { createIndexes: 'c', indexes: [{ key: { foo: 1 }, name: 'foo_1' }] });
  const e = engine.runCommand('t', {
    explain: { aggregate: 'c', pipeline, cursor: {} },
    verbosity: 'executionStats',
  });
  return (e.stages as Document[])[0].$cursor as Document;
}

describe('explain: an aggregate that reads no field', () => {
  it('a $count or a $group by a constant over a range the index decides: COUNT_SCAN, no document examined', () => {
    for (const tail of [{ $count: 'n' }, { $group: { _id: null, n: { $sum: 1 } } }]) {
      const cursor = cursorPlan([{ $match: { foo: { $gt: 0 } } }, tail]);
      assert.equal(((cursor.queryPlanner as Document).winningPlan as Document).stage, 'COUNT_SCAN');
      assert.equal((cursor.executionStats as Document).totalDocsExamined, 0);
      assert.equal((cursor.executionStats as Document).nReturned, 10);
    }
  });

  it('several intervals, or a stage that reads a field, keep the index scan and its fetch', () => {
    const inList = cursorPlan([{ $match: { foo: { $in: [0, 1] } } }, { $count: 'n' }]);
    assert.notEqual(((inList.queryPlanner as Document).winningPlan as Document).stage, 'COUNT_SCAN');
    const reads = cursorPlan([{ $match: { foo: { $gt: 0 } } }, { $group: { _id: '$bar' } }]);
    assert.notEqual(((reads.queryPlanner as Document).winningPlan as Document).stage, 'COUNT_SCAN');
  });

  it('a $project needs no field when it drops _id and computes only constants', () => {
    assert.equal(needsNoFields([{ $project: { _id: 0, a: { $literal: null } } }]), true);
    assert.equal(needsNoFields([{ $project: { _id: 0, a: 1 } }]), false);
    assert.equal(needsNoFields([{ $project: { a: { $literal: null } } }]), false);
    assert.equal(needsNoFields([{ $group: { _id: null, s: { $sum: '$a' } } }]), false);
  });
});
